// Nested AD: functions that call __enzyme_autodiff differentiated again.
// Second and third derivatives of x^2 sin(x) (the functions declared in
// the opposite order of their nesting); Hessian entries of f(x, y) through
// a helper that extracts one field of the gradient struct; Hessian-vector
// products through an inner gradient with dup pointers (also through a
// loop with a data-dependent exit, the inner gradient split); loops whose
// inner gradients cache values in heap buffers (a data-dependent exit:
// buffers grown with realloc; a counted loop: buffers reserved from the
// count) up to the third derivative; the inner call in a loop of the outer
// function.
// Checked against closed forms and finite differences of the derivative
// one order lower; valgrind checks that no cache or shadow leaks.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %if !quick %{ %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-verify %s -lm -o %tv && %tv %}
// RUN: %valgrind %t0 > /dev/null
// RUN: %valgrind %t2 > /dev/null
#include "fd.h"

double __enzyme_autodiff(void *, ...);
typedef struct { double dx, dy; } G2;
G2 __enzyme_autodiff2(void *, ...);
int enzyme_dup, enzyme_const;

/* --- x^2 sin(x), nested three deep, outermost first -------------------- */
double f1(double x);
double df1(double x);
double ddf1(double x);
double dddf1(double x) { return __enzyme_autodiff((void *)ddf1, x); }
double ddf1(double x) { return __enzyme_autodiff((void *)df1, x); }
double df1(double x) { return __enzyme_autodiff((void *)f1, x); }
double f1(double x) { return x * x * sin(x); }

static void check_power_sin(double x) {
  double s = sin(x), c = cos(x);
  ZY_CHECK2("f1'", df1(x), 2 * x * s + x * x * c, ZY_DIFF(t, x, f1(t)));
  ZY_CHECK2("f1''", ddf1(x), 2 * s + 4 * x * c - x * x * s,
            ZY_DIFF(t, x, df1(t)));
  ZY_CHECK2("f1'''", dddf1(x), 6 * c - 6 * x * s - x * x * c,
            ZY_DIFF(t, x, ddf1(t)));
}

/* --- Hessian of f2(x, y) = x^2 sin(y) + exp(x y) ----------------------- */
double f2(double x, double y) { return x * x * sin(y) + exp(x * y); }
G2 grad2(double x, double y) { return __enzyme_autodiff2((void *)f2, x, y); }
double f2_x(double x, double y) { return grad2(x, y).dx; }
double f2_y(double x, double y) { return grad2(x, y).dy; }
G2 hess_x(double x, double y) { return __enzyme_autodiff2((void *)f2_x, x, y); }
G2 hess_y(double x, double y) { return __enzyme_autodiff2((void *)f2_y, x, y); }
/* d/dy of f_x, with x constant. */
double f2_xy(double x, double y) {
  return __enzyme_autodiff((void *)f2_x, enzyme_const, x, y);
}

static void check_hessian(double x, double y) {
  double e = exp(x * y);
  double fxx = 2 * sin(y) + y * y * e;
  double fxy = 2 * x * cos(y) + e * (1 + x * y);
  double fyy = -x * x * sin(y) + x * x * e;
  G2 hx = hess_x(x, y), hy = hess_y(x, y);
  ZY_CHECK2("f2_xx", hx.dx, fxx, ZY_DIFF(t, x, f2_x(t, y)));
  ZY_CHECK2("f2_xy", hx.dy, fxy, ZY_DIFF(t, y, f2_x(x, t)));
  ZY_CHECK2("f2_yx", hy.dx, fxy, ZY_DIFF(t, x, f2_y(t, y)));
  ZY_CHECK2("f2_yy", hy.dy, fyy, ZY_DIFF(t, y, f2_y(x, t)));
  ZY_CHECK2("f2_xy (x const)", f2_xy(x, y), fxy, ZY_DIFF(t, y, f2_x(x, t)));
}

/* --- Hessian-vector product: g(x) = sum x_i^2 sin(x_{i+1}) ------------- */
#define N 5
double g(const double *x, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; i++)
    s += x[i] * x[i] * sin(x[i + 1]);
  return s;
}
/* <grad g(x), v>, the gradient through enzyme_dup. */
double grad_dot(const double *x, const double *v, int n) {
  double dx[N] = {0};
  __enzyme_autodiff((void *)g, enzyme_dup, x, dx, enzyme_const, n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += dx[i] * v[i];
  return s;
}
void hvp(const double *x, const double *v, double *hv, int n) {
  for (int i = 0; i < n; i++)
    hv[i] = 0;
  __enzyme_autodiff((void *)grad_dot, enzyme_dup, x, hv, enzyme_const, v,
                    enzyme_const, n);
}

static void check_hvp(void) {
  double x[N] = {0.3, 0.5, -0.2, 0.9, 1.2}, v[N] = {1, -1, 0.5, 2, 0.1};
  double hv[N], want[N] = {0};
  hvp(x, v, hv, N);
  for (int i = 0; i + 1 < N; i++) { /* the 2x2 block of x_i^2 sin(x_i+1) */
    double s = sin(x[i + 1]), c = cos(x[i + 1]);
    want[i] += 2 * s * v[i] + 2 * x[i] * c * v[i + 1];
    want[i + 1] += 2 * x[i] * c * v[i] - x[i] * x[i] * s * v[i + 1];
  }
  for (int i = 0; i < N; i++) {
    char what[32];
    snprintf(what, sizeof what, "(H v)[%d]", i);
    double xp[N];
    for (int k = 0; k < N; k++)
      xp[k] = x[k];
    double fd = ZY_DIFF(t, x[i], (xp[i] = t, grad_dot(xp, v, N)));
    zy_check_close(what, hv[i], want[i], ZY_TOL);
    zy_check_close(what, hv[i], fd, ZY_FD_TOL);
  }
}

/* Hessian-vector product through a loop with a data-dependent exit: the
 * inner gradient caches in buffers it grows, and the outer one calls it
 * in split mode (it updates dx), with those caches in its tape. */
double w(const double *x, int n) {
  double s = 0;
  int i = 0;
  while (s < 3.0 && i < n) {
    s += x[i] * x[i] * sin(s + x[i]);
    i++;
  }
  return s;
}
double w_grad_dot(const double *x, const double *v, int n) {
  double dx[N] = {0};
  __enzyme_autodiff((void *)w, enzyme_dup, x, dx, enzyme_const, n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += dx[i] * v[i];
  return s;
}
void w_hvp(const double *x, const double *v, double *hv, int n) {
  for (int i = 0; i < n; i++)
    hv[i] = 0;
  __enzyme_autodiff((void *)w_grad_dot, enzyme_dup, x, hv, enzyme_const, v,
                    enzyme_const, n);
}

static void check_hvp_loop(void) {
  double x[N] = {0.3, 0.5, 0.2, 0.9, 0.4}, v[N] = {1, -1, 0.5, 2, 0.1};
  double hv[N];
  w_hvp(x, v, hv, N);
  for (int i = 0; i < N; i++) {
    double xp[N];
    for (int k = 0; k < N; k++)
      xp[k] = x[k];
    zy_check_close("(H v)[i] of the loop (finite diff)", hv[i],
                   ZY_DIFF(t, x[i], (xp[i] = t, w_grad_dot(xp, v, N))),
                   ZY_FD_TOL);
  }
}

/* --- Loops whose gradients cache values in heap buffers ---------------- */
/* A data-dependent exit: the inner gradient grows its buffers with
 * realloc; the second gradient gives them shadows, the third shadows of
 * those. */
double grow(double x) {
  double s = x;
  int i = 0;
  while (s < 40.0 && i < 1000) { /* 42 to 59 iterations here */
    s += 1 + 0.3 * x * cos(0.1 * s);
    i++;
  }
  return s;
}
double dgrow(double x) { return __enzyme_autodiff((void *)grow, x); }
double ddgrow(double x) { return __enzyme_autodiff((void *)dgrow, x); }
double dddgrow(double x) { return __enzyme_autodiff((void *)ddgrow, x); }

/* sum_{k=1..n} sin(x)^k / k: a counted loop (buffers reserved from n). */
double series(double x, int n) {
  double s = 0, t = 1, u = sin(x);
  for (int k = 1; k <= n; k++) {
    t = t * u;
    s += exp(t) / k;
  }
  return s;
}
double dseries(double x, int n) { return __enzyme_autodiff((void *)series, x, n); }
double ddseries(double x, int n) {
  return __enzyme_autodiff((void *)dseries, x, n);
}
double dddseries(double x, int n) {
  return __enzyme_autodiff((void *)ddseries, x, n);
}

/* Polynomial: p(x) = sum_{k=1..n} x^k / k, so p'' = sum (k-1) x^(k-2). */
double poly(double x, int n) {
  double s = 0, t = 1;
  for (int k = 1; k <= n; k++) {
    t *= x;
    s += t / k;
  }
  return s;
}
double dpoly(double x, int n) { return __enzyme_autodiff((void *)poly, x, n); }
double ddpoly(double x, int n) { return __enzyme_autodiff((void *)dpoly, x, n); }
double dddpoly(double x, int n) {
  return __enzyme_autodiff((void *)ddpoly, x, n);
}

static void check_loops(double x) {
  zy_check_close("grow'' (finite diff)", ddgrow(x), ZY_DIFF(t, x, dgrow(t)),
                 ZY_FD_TOL);
  zy_check_close("grow''' (finite diff)", dddgrow(x),
                 ZY_DIFF(t, x, ddgrow(t)), ZY_FD_TOL);
  for (int n = 0; n <= 9; n += 3) {
    double d2 = 0, d3 = 0;
    for (int k = 1; k <= n; k++) {
      d2 += (k - 1) * pow(x, k - 2);
      d3 += (k - 1) * (k - 2) * pow(x, k - 3);
    }
    ZY_CHECK2("poly''", ddpoly(x, n), d2, ZY_DIFF(t, x, dpoly(t, n)));
    ZY_CHECK2("poly'''", dddpoly(x, n), d3, ZY_DIFF(t, x, ddpoly(t, n)));
    zy_check_close("series'' (finite diff)", ddseries(x, n),
                   ZY_DIFF(t, x, dseries(t, n)), ZY_FD_TOL);
    zy_check_close("series''' (finite diff)", dddseries(x, n),
                   ZY_DIFF(t, x, ddseries(t, n)), ZY_FD_TOL);
  }
}

/* --- The inner call in a loop of the outer function -------------------- */
double q(double x, double c) { return sin(c * x) * x; }
/* sum_{i<n} dq/dx(x, i), and a recurrence through cos(s). */
double sum_dq(double x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += __enzyme_autodiff((void *)q, x, enzyme_const, (double)i);
  return s;
}
double chain_dq(double x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += __enzyme_autodiff((void *)q, x, enzyme_const, (double)i) *
         cos(0.1 * s);
  return s;
}
double d_sum_dq(double x, int n) { return __enzyme_autodiff((void *)sum_dq, x, n); }
double d_chain_dq(double x, int n) {
  return __enzyme_autodiff((void *)chain_dq, x, n);
}

static void check_inner_in_loop(double x) {
  for (int n = 0; n <= 6; n += 3) {
    double want = 0;
    for (int i = 0; i < n; i++) /* d2q/dx2 = 2c cos(cx) - c^2 x sin(cx) */
      want += 2 * i * cos(i * x) - (double)i * i * x * sin(i * x);
    ZY_CHECK2("sum dq''", d_sum_dq(x, n), want, ZY_DIFF(t, x, sum_dq(t, n)));
    zy_check_close("chain dq' (finite diff)", d_chain_dq(x, n),
                   ZY_DIFF(t, x, chain_dq(t, n)), ZY_FD_TOL);
  }
}

int main(void) {
  /* Away from where grow's trip count changes. */
  double xs[] = {1.6, -0.7, 2.1};
  for (int k = 0; k < 3; k++) {
    check_power_sin(xs[k]);
    check_loops(xs[k] > 0 ? xs[k] : -xs[k]);
    check_inner_in_loop(xs[k]);
  }
  check_hessian(0.7, 1.1);
  check_hessian(-0.4, 0.3);
  check_hvp();
  check_hvp_loop();
  return zy_report();
}
