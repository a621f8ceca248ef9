/* blas_fd.h - for the BLAS tests: the gradient with respect to every entry
 * of a packed parameter vector, checked against central finite differences
 * (one Richardson step) of a function that evaluates the primal on fresh
 * copies of the parameters.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_TEST_BLAS_FD_H
#define ZY_TEST_BLAS_FD_H

#include "check.h"

#include <string.h>

typedef double (*ZyEval)(const double *p);

static double zy_fd_at(ZyEval eval, double *p, int i, double h) {
  double a = p[i];
  p[i] = a + h;
  double p1 = eval(p);
  p[i] = a - h;
  double m1 = eval(p);
  p[i] = a;
  return (p1 - m1) / (2 * h);
}

/* Checks grad[i] = d eval / d p[i] for i < np, with relative tolerance
 * `tol` (h scaled by `hs`: 1e-3 for double, larger for float). */
static void zy_check_grad(const char *what, ZyEval eval, double *p, int np,
                          const double *grad, double hs, double tol) {
  for (int i = 0; i < np; i++) {
    double h = hs * (fabs(p[i]) > 1 ? fabs(p[i]) : 1);
    double d1 = zy_fd_at(eval, p, i, h), d2 = zy_fd_at(eval, p, i, h / 2);
    char name[128];
    snprintf(name, sizeof name, "%s d[%d]", what, i);
    zy_check_close(name, grad[i], (4 * d2 - d1) / 3, tol);
  }
}

/* Deterministic test data in [-1.5, 1.5], never 0. */
static void zy_fill(double *p, int n, int seed) {
  for (int i = 0; i < n; i++) {
    double v = sin(1.7 * (i + 1) + 0.37 * seed) * 1.5;
    p[i] = fabs(v) < 0.05 ? 0.3 : v;
  }
}

#endif
