// Second derivatives as forward over reverse: __enzyme_fwddiff of a
// function that calls __enzyme_autodiff (the inner gradient is made
// first, then differentiated in forward mode like any other function,
// loops, caches and shadows included).  Hessian-vector products of the
// Rosenbrock function against its closed-form Hessian, every column of
// the Hessian, a recurrence whose gradient caches a value per loop
// iteration against finite differences of its gradient, and the second
// derivative of a scalar function.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
#include "fd.h"

#include <string.h>

double __enzyme_autodiff(void *, ...);
void __enzyme_autodiff_void(void *, ...);
double __enzyme_fwddiff(void *, ...);
void __enzyme_fwddiff_void(void *, ...);
extern int enzyme_const, enzyme_dup;

#define N 7

double rosen(const double *x, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; i++) {
    double a = x[i + 1] - x[i] * x[i], b = 1 - x[i];
    s += 100 * a * a + b * b;
  }
  return s;
}

/* g = grad rosen(x) */
void grad(const double *x, double *g, int n) {
  memset(g, 0, n * sizeof *g);
  __enzyme_autodiff_void((void *)rosen, enzyme_dup, x, g, enzyme_const, n);
}

/* hv = H(x) v, closed form */
static void hess_vec(const double *x, const double *v, double *hv, int n) {
  for (int i = 0; i < n; i++)
    hv[i] = 0;
  for (int i = 0; i + 1 < n; i++) {
    double hii = 1200 * x[i] * x[i] - 400 * x[i + 1] + 2;
    double hij = -400 * x[i];
    hv[i] += hii * v[i] + hij * v[i + 1];
    hv[i + 1] += hij * v[i] + 200 * v[i + 1];
  }
}

/* A recurrence: the gradient caches s of every iteration (a loop buffer
 * grown on the heap), which the forward sweep then differentiates. */
double recur(const double *x, int n) {
  double s = 0.5;
  for (int i = 0; i < n; i++)
    s = s * x[i] + sin(s) * x[(i + 1) % n];
  return s * s;
}
void grad_recur(const double *x, double *g, int n) {
  memset(g, 0, n * sizeof *g);
  __enzyme_autodiff_void((void *)recur, enzyme_dup, x, g, enzyme_const, n);
}

double f(double x) { return sin(x) * exp(x) / (1 + x * x); }
double df(double x) { return __enzyme_autodiff((void *)f, x); }

int main(void) {
  double x[N], v[N], g[N], hv[N], want[N];
  char what[64];
  for (int i = 0; i < N; i++) {
    x[i] = 0.3 + 0.2 * i - 0.04 * i * i;
    v[i] = 0.5 - 0.25 * i + 0.1 * i * i;
  }
  __enzyme_fwddiff_void((void *)grad, x, v, g, hv, N);
  hess_vec(x, v, want, N);
  for (int i = 0; i < N; i++) {
    snprintf(what, sizeof what, "Hv[%d]", i);
    zy_check_close(what, hv[i], want[i], 1e-12);
  }
  /* every column of the Hessian */
  for (int j = 0; j < N; j++) {
    double e[N] = {0};
    e[j] = 1;
    __enzyme_fwddiff_void((void *)grad, x, e, g, hv, N);
    hess_vec(x, e, want, N);
    for (int i = 0; i < N; i++) {
      snprintf(what, sizeof what, "H[%d][%d]", i, j);
      zy_check_close(what, hv[i], want[i], 1e-12);
    }
  }
  /* H v of the recurrence against finite differences of its gradient */
  __enzyme_fwddiff_void((void *)grad_recur, x, v, g, hv, N);
  for (int i = 0; i < N; i++) {
    double fd = ZY_DIFF(t, 0, ({
                          double xt[N], gt[N];
                          for (int k = 0; k < N; k++)
                            xt[k] = x[k] + t * v[k];
                          grad_recur(xt, gt, N);
                          gt[i];
                        }));
    snprintf(what, sizeof what, "recurrence Hv[%d]", i);
    zy_check_close(what, hv[i], fd, 1e-7);
  }
  for (double t = -1; t <= 1.5; t += 0.5) {
    snprintf(what, sizeof what, "f''(%g)", t);
    zy_check_close(what, __enzyme_fwddiff((void *)df, t, 1.0),
                   ZY_DIFF(s, t, df(s)), 1e-8);
  }
  return zy_report();
}
