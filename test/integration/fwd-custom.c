// Forward mode through custom forward derivatives, registered as in Enzyme:
// void *__enzyme_register_derivative_f[2] = {(void *)f, (void *)df}, df
// taking f's parameters, each pointer and double followed by its shadow or
// tangent (an int without one), and returning {result, tangent}, the
// tangent alone, or nothing for a void f.  The functions registered reach
// their work through a function pointer (an indirect call forward mode
// refuses), so a tangent at all proves the registered derivative is used.
// Cases: a cube root returning {y, dy}, inside sin(.) * x; a scaled cube
// returning the tangent alone, with either argument constant; a 2x2 linear
// solve through pointers (dx = A^-1 (db - dA x)); an int parameter without
// a tangent, called in a loop; enzyme_primal_return (the primal checked
// against libm's cbrt, computed apart); vector mode (enzyme_width 3: df
// once per direction); a function with both a custom gradient (reverse
// mode) and a custom forward derivative; a call from a nested function.
// Against closed forms and central differences.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
#include "fd.h"

double __enzyme_fwddiff(void *, ...);
double __enzyme_autodiff(void *, ...);
typedef struct {
  double y, dy;
} Dual;
Dual __enzyme_fwddiff_primal(void *, ...);
typedef struct {
  double d[3];
} T3;
T3 __enzyme_fwddiff3(void *, ...);
extern int enzyme_const, enzyme_dup, enzyme_primal_return, enzyme_width;

static int derivs; /* calls of the registered derivatives */

/* 1. A cube root by Newton's method behind a function pointer. */
static double newton_cbrt(double x) {
  double y = x > 1 ? x / 2 : 1;
  for (int i = 0; i < 60; i++)
    y -= (y * y * y - x) / (3 * y * y);
  return y;
}
static double (*volatile cbrt_impl)(double) = newton_cbrt;
double croot(double x) { return cbrt_impl(x); }
Dual dcroot(double x, double dx) {
  derivs++;
  double y = cbrt_impl(x);
  return (Dual){y, dx / (3 * y * y)};
}
void *__enzyme_register_derivative_croot[2] = {(void *)croot, (void *)dcroot};
double h1(double x) { return sin(croot(x)) * x; }
static double h1_d(double x) {
  double y = cbrt(x);
  return cos(y) / (3 * y * y) * x + sin(y);
}

/* 2. a x^3, the derivative returning the tangent alone. */
static double cube_scaled(double x, double a) { return a * x * x * x; }
static double (*volatile scaled_impl)(double, double) = cube_scaled;
double scaled(double x, double a) { return scaled_impl(x, a); }
double dscaled(double x, double dx, double a, double da) {
  derivs++;
  return 3 * a * x * x * dx + x * x * x * da;
}
void *__enzyme_register_derivative_scaled[2] = {(void *)scaled,
                                                (void *)dscaled};
double h2(double x, double a) { return scaled(x * x, a) + a; }

/* 3. A 2x2 linear solve A x = b through pointers. */
static void solve2_impl(const double *A, const double *b, double *x) {
  double det = A[0] * A[3] - A[1] * A[2];
  x[0] = (A[3] * b[0] - A[1] * b[1]) / det;
  x[1] = (A[0] * b[1] - A[2] * b[0]) / det;
}
static void (*volatile solve_impl)(const double *, const double *,
                                   double *) = solve2_impl;
void solve2(const double *A, const double *b, double *x) {
  solve_impl(A, b, x);
}
void dsolve2(const double *A, const double *dA, const double *b,
             const double *db, double *x, double *dx) {
  derivs++;
  solve_impl(A, b, x);
  double r[2] = {db[0] - (dA[0] * x[0] + dA[1] * x[1]),
                 db[1] - (dA[2] * x[0] + dA[3] * x[1])};
  solve_impl(A, r, dx);
}
void *__enzyme_register_derivative_solve2[2] = {(void *)solve2,
                                                (void *)dsolve2};
double h3(double *A, double *b) {
  double x[2];
  solve2(A, b, x);
  return x[0] * x[1] + x[1];
}

/* The closed form: x = A^-1 b, dx = A^-1 (db - dA x). */
static double h3_d(const double *A, const double *dA, const double *b,
                   const double *db) {
  double x[2], dx[2];
  solve2_impl(A, b, x);
  double r[2] = {db[0] - (dA[0] * x[0] + dA[1] * x[1]),
                 db[1] - (dA[2] * x[0] + dA[3] * x[1])};
  solve2_impl(A, r, dx);
  return dx[0] * x[1] + x[0] * dx[1] + dx[1];
}

/* 4. An int parameter (no tangent), in a loop. */
static double powi_impl(double x, int n) {
  double r = 1;
  for (int i = 0; i < n; i++)
    r *= x;
  return r;
}
static double (*volatile powi_ptr)(double, int) = powi_impl;
double powi(double x, int n) { return powi_ptr(x, n); }
double dpowi(double x, double dx, int n) {
  derivs++;
  return n * powi_ptr(x, n - 1) * dx;
}
void *__enzyme_register_derivative_powi[2] = {(void *)powi, (void *)dpowi};
double h4(double x, int m) {
  double s = 0;
  for (int k = 1; k <= m; k++)
    s += powi(x, k) / k;
  return s;
}

/* 5. Both a custom gradient and a custom forward derivative: each mode
 *    uses its own (the pair scales by 2 and 3, to tell them apart). */
double both(double x) { return cbrt_impl(x); }
double both_aug(double x) { return cbrt_impl(x); }
double both_rev(double x, double dret) { return 2 * dret; }
double dboth(double x, double dx) { return 3 * dx; }
void *__enzyme_register_gradient_both[3] = {(void *)both, (void *)both_aug,
                                            (void *)both_rev};
void *__enzyme_register_derivative_both[2] = {(void *)both, (void *)dboth};
double use_both(double x) { return both(x) * 5; }

/* 6. A call from a function called by the one differentiated. */
__attribute__((noinline)) double inner(double x) { return croot(x * x) + x; }
double outer(double x) { return inner(x) * inner(2 * x); }

int main(void) {
  double xs[] = {0.7, 2.5, 8.0};
  for (int i = 0; i < 3; i++) {
    double x = xs[i];
    derivs = 0;
    ZY_CHECK2("h1 tangent", __enzyme_fwddiff((void *)h1, x, 1.0), h1_d(x),
              ZY_DIFF(t, x, sin(cbrt(t)) * t));
    zy_check_close("dcroot called", derivs, 1, 0);
    /* enzyme_primal_return: the result too, computed apart with libm */
    Dual r = __enzyme_fwddiff_primal((void *)h1, enzyme_primal_return, x, 0.5);
    zy_check_close("h1 primal", r.y, sin(cbrt(x)) * x, 1e-12);
    zy_check_close("h1 tangent (0.5)", r.dy, 0.5 * h1_d(x), 1e-12);
    /* vector mode: three directions, df once each */
    derivs = 0;
    T3 v = __enzyme_fwddiff3((void *)h1, enzyme_width, 3, x, 1.0, -2.0, 0.25);
    zy_check_close("h1 lane 0", v.d[0], h1_d(x), 1e-12);
    zy_check_close("h1 lane 1", v.d[1], -2 * h1_d(x), 1e-12);
    zy_check_close("h1 lane 2", v.d[2], 0.25 * h1_d(x), 1e-12);
    zy_check_close("dcroot called per lane", derivs, 3, 0);

    double a = 1.5 + i;
    ZY_CHECK2("h2 d/dx", __enzyme_fwddiff((void *)h2, x, 1.0, enzyme_const, a),
              6 * a * pow(x, 5), ZY_DIFF(t, x, a * pow(t, 6) + a));
    ZY_CHECK2("h2 d/da", __enzyme_fwddiff((void *)h2, enzyme_const, x, a, 1.0),
              pow(x, 6) + 1, ZY_DIFF(t, a, t * pow(x, 6) + t));
    ZY_CHECK2("h2 both", __enzyme_fwddiff((void *)h2, x, 0.5, a, 2.0),
              0.5 * 6 * a * pow(x, 5) + 2 * (pow(x, 6) + 1),
              ZY_DIFF(t, 0, h2(x + 0.5 * t, a + 2 * t)));

    double A[4] = {2 + x, 0.5, -0.3, 1 + x * x}, b[2] = {x, 1 - x};
    double dA[4] = {0.1, -0.2, 0.3, 0.05}, db[2] = {1.0, -0.5};
    double At[4], bt[2];
    ZY_CHECK2("h3 tangent", __enzyme_fwddiff((void *)h3, A, dA, b, db),
              h3_d(A, dA, b, db), ZY_DIFF(t, 0, ({
                for (int k = 0; k < 4; k++)
                  At[k] = A[k] + t * dA[k];
                bt[0] = b[0] + t * db[0], bt[1] = b[1] + t * db[1];
                h3(At, bt);
              })));
    ZY_CHECK2("h4 tangent", __enzyme_fwddiff((void *)h4, x, 1.0, 4),
              1 + x + x * x + x * x * x, ZY_DIFF(t, x, h4(t, 4)));

    zy_check_close("both, reverse mode (custom gradient)",
                   __enzyme_autodiff((void *)use_both, x), 10, 0);
    zy_check_close("both, forward mode (custom derivative)",
                   __enzyme_fwddiff((void *)use_both, x, 1.0), 15, 0);

    ZY_CHECK2("outer tangent", __enzyme_fwddiff((void *)outer, x, 1.0),
              ZY_DIFF(t, x, (cbrt(t * t) + t) * (cbrt(4 * t * t) + 2 * t)),
              ZY_DIFF(t, x, outer(t)));
  }
  return zy_report();
}
