/* check-modes.h - the check shared by the integration tests of single
 * objectives in both modes (corners-*.c, calls-struct-pointers.c): define
 * N (the number of inputs) and declare __enzyme_autodiff/__enzyme_fwddiff
 * returning double and enzyme_dup first; MODES(f) makes grad_f (the
 * gradient into g, by __enzyme_autodiff) and tan_f (the tangent along v,
 * by __enzyme_fwddiff); check(name, f, grad_f, tan_f, x) compares every
 * entry of the gradient at x with a central difference of f, and the
 * tangent along v = (0.6 - 0.2 i) with the differences' dot product
 * (1e-8 each).
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_TEST_CHECK_MODES_H
#define ZY_TEST_CHECK_MODES_H

#include "fd.h"

#include <string.h>

typedef double (*Obj)(double *);
static void check(const char *name, Obj f, double (*grad)(double *, double *),
                  double (*tangent)(double *, double *), const double *x) {
  double g[N] = {0}, v[N], xs[N], want = 0;
  char what[96];
  memcpy(xs, x, sizeof xs);
  grad(xs, g);
  for (int i = 0; i < N; i++) {
    v[i] = 0.6 - 0.2 * i;
    double fd = ZY_DIFF(t, x[i], ({
                          memcpy(xs, x, sizeof xs);
                          xs[i] = t;
                          f(xs);
                        }));
    want += fd * v[i];
    snprintf(what, sizeof what, "%s gradient[%d]", name, i);
    zy_check_close(what, g[i], fd, 1e-8);
  }
  memcpy(xs, x, sizeof xs);
  snprintf(what, sizeof what, "%s tangent", name);
  zy_check_close(what, tangent(xs, v), want, 1e-8);
}

#define MODES(f)                                                               \
  static double grad_##f(double *x, double *g) {                               \
    return __enzyme_autodiff((void *)f, enzyme_dup, x, g);                     \
  }                                                                            \
  static double tan_##f(double *x, double *v) {                                \
    return __enzyme_fwddiff((void *)f, enzyme_dup, x, v);                      \
  }

#endif
