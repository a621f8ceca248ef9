// Vector forward mode (enzyme_width N) with Enzyme's conventions, widths
// 1, 2, 4 and 7: a floating-point argument followed by its N tangents, a
// pointer by its N shadows (enzyme_dup) or by one shadow whose lanes lie a
// stride apart (enzyme_dupv, stride, x, dx), the call returning the N
// tangents of the result in a row (after the result with
// enzyme_primal_return).  Each direction's tangent must equal the width-1
// tangent along it and central finite differences: scalars through
// arithmetic, math functions, a loop, a call that is not inlined and
// recursion; Jacobian columns of a vector function with a local array, a
// heap buffer and a callee taking pointers; and the full Hessian of the
// Rosenbrock function as vector forward over reverse, against its closed
// form.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
#include "fd.h"

#include <string.h>

extern int enzyme_const, enzyme_dup, enzyme_dupv, enzyme_width,
    enzyme_primal_return;
double __enzyme_fwddiff(void *, ...);
void __enzyme_fwddiff_void(void *, ...);
void __enzyme_autodiff_void(void *, ...);
typedef struct {
  double d[2];
} T2;
typedef struct {
  double d[4];
} T4;
typedef struct {
  double d[7];
} T7;
typedef struct {
  double y, d[4];
} P4;
T2 __enzyme_fwddiff2(void *, ...);
T4 __enzyme_fwddiff4(void *, ...);
T7 __enzyme_fwddiff7(void *, ...);
typedef struct {
  float d[2];
} F2;
F2 __enzyme_fwddifff2(void *, ...);
P4 __enzyme_fwddiff_p4(void *, ...);

#define NOINLINE __attribute__((noinline))

NOINLINE double helper(double a, double b) { return a * exp(b) + b * b; }

double power(double x, int n) { return n == 0 ? 1 : x * power(x, n - 1); }

float single(float x) { return sinf(x) * x + expf(-x); }

double scalar(double x, double y) {
  double acc = x * y + 1 / x;
  for (int i = 0; i < 5; i++)
    acc = acc * 0.5 + sin(acc * y) / (i + 1);
  return acc + helper(x, y) * cos(y) + power(x + y, 3) + pow(x, y);
}

/* y = F(x), R^n -> R^n: a local array filled by memcpy, a heap buffer
 * grown by realloc and a callee that takes pointers. */
#define NX 5
NOINLINE void smooth(const double *in, double *out, int n) {
  for (int i = 0; i < n; i++)
    out[i] = in[i] * in[(i + 1) % n] + exp(in[i]) * 0.1;
}
void vecfun(const double *x, double *y) {
  double t[NX], u[NX];
  double *h = malloc(2 * sizeof *h);
  memcpy(u, x, sizeof u);
  for (int i = 0; i < NX; i++)
    t[i] = sin(u[i]) * x[(i + 2) % NX];
  h[0] = t[0];
  h = realloc(h, NX * sizeof *h);
  smooth(t, h, NX);
  for (int i = 0; i < NX; i++)
    y[i] = h[i] * h[i] + log(1 + x[i] * x[i]);
  free(h);
}

double rosen(const double *x, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; i++) {
    double a = x[i + 1] - x[i] * x[i], b = 1 - x[i];
    s += 100 * a * a + b * b;
  }
  return s;
}
void grad(const double *x, double *g, int n) {
  memset(g, 0, n * sizeof *g);
  __enzyme_autodiff_void((void *)rosen, enzyme_dup, x, g, enzyme_const, n);
}

static double dirx(int j) { return 0.3 + 0.4 * j - 0.07 * j * j; }
static double diry(int j) { return -0.8 + 0.25 * j; }

/* Direction j's tangent of scalar() against width 1 and finite
 * differences along (dirx(j), diry(j)). */
static void check_scalar(const char *w, int j, double got, double x, double y) {
  char what[96];
  double one = __enzyme_fwddiff((void *)scalar, x, dirx(j), y, diry(j));
  double fd = ZY_DIFF(s, 0, scalar(x + s * dirx(j), y + s * diry(j)));
  snprintf(what, sizeof what, "scalar %s lane %d = width 1", w, j);
  zy_check_close(what, got, one, 1e-13);
  snprintf(what, sizeof what, "scalar %s lane %d (finite diff)", w, j);
  zy_check_close(what, got, fd, 1e-8);
}

static void scalars(void) {
  double x = 1.3, y = 0.7;
  double d1 =
      __enzyme_fwddiff((void *)scalar, enzyme_width, 1, x, dirx(0), y, diry(0));
  check_scalar("w1", 0, d1, x, y);
  T2 d2 = __enzyme_fwddiff2((void *)scalar, enzyme_width, 2, x, dirx(0),
                            dirx(1), y, diry(0), diry(1));
  for (int j = 0; j < 2; j++)
    check_scalar("w2", j, d2.d[j], x, y);
  T4 d4 = __enzyme_fwddiff4((void *)scalar, enzyme_width, 4, x, dirx(0),
                            dirx(1), dirx(2), dirx(3), y, diry(0), diry(1),
                            diry(2), diry(3));
  for (int j = 0; j < 4; j++)
    check_scalar("w4", j, d4.d[j], x, y);
  T7 d7 =
      __enzyme_fwddiff7((void *)scalar, enzyme_width, 7, x, dirx(0), dirx(1),
                        dirx(2), dirx(3), dirx(4), dirx(5), dirx(6), y, diry(0),
                        diry(1), diry(2), diry(3), diry(4), diry(5), diry(6));
  for (int j = 0; j < 7; j++)
    check_scalar("w7", j, d7.d[j], x, y);
  /* y constant; the result too */
  T2 c2 = __enzyme_fwddiff2((void *)scalar, enzyme_width, 2, x, 1.0, -1.0,
                            enzyme_const, y);
  zy_check_close("const y lane 1", c2.d[1],
                 -__enzyme_fwddiff((void *)scalar, x, 1.0, enzyme_const, y),
                 1e-13);
  P4 p = __enzyme_fwddiff_p4((void *)scalar, enzyme_width, 4,
                             enzyme_primal_return, x, dirx(0), dirx(1), dirx(2),
                             dirx(3), y, diry(0), diry(1), diry(2), diry(3));
  zy_check_close("primal_return y", p.y, scalar(x, y), 1e-15);
  for (int j = 0; j < 4; j++)
    check_scalar("primal_return", j, p.d[j], x, y);
  F2 f = __enzyme_fwddifff2((void *)single, enzyme_width, 2, 0.8f, 1.0f, -3.0f);
  double df = cos(0.8) * 0.8 + sin(0.8) - exp(-0.8);
  zy_check_close("float lane 0", f.d[0], df, 1e-5);
  zy_check_close("float lane 1", f.d[1], -3 * df, 1e-5);
}

/* Columns c0 .. c0+W-1 of the Jacobian of vecfun at x, with width W,
 * through enzyme_dupv (stride NX doubles) into jac[c][i] = dy_i/dx_c. */
#define JAC(W, c0, jac)                                                        \
  do {                                                                         \
    double seed[W][NX] = {0}, y[NX];                                           \
    for (int j = 0; j < W; j++)                                                \
      seed[j][(c0) + j] = 1;                                                   \
    __enzyme_fwddiff_void((void *)vecfun, enzyme_width, W, enzyme_dupv,        \
                          sizeof seed[0], x, seed, enzyme_dupv,                \
                          sizeof seed[0], y, &(jac)[c0]);                      \
    for (int i = 0; i < NX; i++)                                               \
      zy_check_close("vecfun primal", y[i], want[i], 1e-15);                   \
  } while (0)

static void jacobian(void) {
  double x[NX], want[NX], jac1[NX][NX], jac[NX][NX];
  char what[96];
  for (int i = 0; i < NX; i++)
    x[i] = 0.4 + 0.3 * i - 0.05 * i * i;
  vecfun(x, want);
  for (int c = 0; c < NX; c++) { /* width 1, one column at a time */
    double dx[NX] = {0}, y[NX];
    dx[c] = 1;
    __enzyme_fwddiff_void((void *)vecfun, x, dx, y, jac1[c]);
  }
  for (int c = 0; c < NX; c++)
    for (int i = 0; i < NX; i++) {
      double xs[NX], ys[NX];
      memcpy(xs, x, sizeof xs);
      double fd = ZY_DIFF(s, x[c], (xs[c] = s, vecfun(xs, ys), ys[i]));
      snprintf(what, sizeof what, "J[%d][%d] width 1 (finite diff)", i, c);
      zy_check_close(what, jac1[c][i], fd, 1e-8);
    }
  memset(jac, 0, sizeof jac);
  JAC(2, 0, jac);
  JAC(2, 2, jac);
  JAC(1, 4, jac);
  for (int c = 0; c < NX; c++)
    for (int i = 0; i < NX; i++) {
      snprintf(what, sizeof what, "J[%d][%d] widths 2,2,1", i, c);
      zy_check_close(what, jac[c][i], jac1[c][i], 1e-14);
    }
  memset(jac, 0, sizeof jac);
  JAC(4, 0, jac);
  JAC(1, 4, jac);
  for (int c = 0; c < NX; c++)
    for (int i = 0; i < NX; i++) {
      snprintf(what, sizeof what, "J[%d][%d] widths 4,1", i, c);
      zy_check_close(what, jac[c][i], jac1[c][i], 1e-14);
    }
  /* enzyme_dup under a width: the N shadows one by one */
  double s0[NX] = {0}, s1[NX] = {0}, t0[NX], t1[NX], y[NX];
  s0[1] = 1;
  s1[3] = 1;
  __enzyme_fwddiff_void((void *)vecfun, enzyme_width, 2, enzyme_dup, x, s0, s1,
                        enzyme_dup, y, t0, t1);
  for (int i = 0; i < NX; i++) {
    snprintf(what, sizeof what, "J[%d][1] enzyme_dup width 2", i);
    zy_check_close(what, t0[i], jac1[1][i], 1e-14);
    snprintf(what, sizeof what, "J[%d][3] enzyme_dup width 2", i);
    zy_check_close(what, t1[i], jac1[3][i], 1e-14);
  }
}

/* The Hessian of rosen, 7 x 7, in one vector forward pass over its
 * gradient: lane j seeds x with e_j, and its tangent of g is column j. */
static void hessian(void) {
  enum { N = 7 };
  double x[N], g[N], e[N][N] = {0}, h[N][N], want[N][N] = {0};
  char what[64];
  for (int i = 0; i < N; i++) {
    x[i] = 0.3 + 0.2 * i - 0.04 * i * i;
    e[i][i] = 1;
  }
  for (int i = 0; i + 1 < N; i++) {
    want[i][i] += 1200 * x[i] * x[i] - 400 * x[i + 1] + 2;
    want[i][i + 1] += -400 * x[i];
    want[i + 1][i] += -400 * x[i];
    want[i + 1][i + 1] += 200;
  }
  __enzyme_fwddiff_void((void *)grad, enzyme_width, N, enzyme_dupv, sizeof e[0],
                        x, e, enzyme_dupv, sizeof h[0], g, h, enzyme_const, N);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      snprintf(what, sizeof what, "H[%d][%d]", i, j);
      zy_check_close(what, h[j][i], want[i][j], 1e-12);
    }
}

int main(void) {
  scalars();
  jacobian();
  hessian();
  return zy_report();
}
