/* fd.h - finite-difference references for the integration tests: a central
 * difference with one Richardson step (error O(h^4)), written as
 * expression macros so any arity and any argument can be varied.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_TEST_FD_H
#define ZY_TEST_FD_H

#include "check.h"

/* d(expr)/d(var) at var = at, where `expr` mentions the double `var`:
 *   ZY_DIFF(t, 1.5, g(t, 2.0))
 * With h = 1e-3 * max(1, |at|) the error is about 1e-12 relative for
 * smooth, well-scaled functions. */
#define ZY_DIFF(var, at, expr)                                                 \
  ({                                                                           \
    double zy_a = (at), zy_h = 1e-3 * (fabs(zy_a) > 1 ? fabs(zy_a) : 1);       \
    double var, zy_p1, zy_m1, zy_p2, zy_m2;                                    \
    var = zy_a + zy_h;                                                         \
    zy_p1 = (expr);                                                            \
    var = zy_a - zy_h;                                                         \
    zy_m1 = (expr);                                                            \
    var = zy_a + zy_h / 2;                                                     \
    zy_p2 = (expr);                                                            \
    var = zy_a - zy_h / 2;                                                     \
    zy_m2 = (expr);                                                            \
    double zy_d1 = (zy_p1 - zy_m1) / (2 * zy_h);                               \
    double zy_d2 = (zy_p2 - zy_m2) / zy_h;                                     \
    (4 * zy_d2 - zy_d1) / 3;                                                   \
  })

/* The same in long double, for functions computed in long double. */
#define ZY_DIFFL(var, at, expr)                                                \
  ({                                                                           \
    long double zy_a = (at);                                                   \
    long double zy_h = 1e-4L * (fabsl(zy_a) > 1 ? fabsl(zy_a) : 1);            \
    long double var, zy_p1, zy_m1, zy_p2, zy_m2;                               \
    var = zy_a + zy_h;                                                         \
    zy_p1 = (expr);                                                            \
    var = zy_a - zy_h;                                                         \
    zy_m1 = (expr);                                                            \
    var = zy_a + zy_h / 2;                                                     \
    zy_p2 = (expr);                                                            \
    var = zy_a - zy_h / 2;                                                     \
    zy_m2 = (expr);                                                            \
    long double zy_d1 = (zy_p1 - zy_m1) / (2 * zy_h);                          \
    long double zy_d2 = (zy_p2 - zy_m2) / zy_h;                                \
    (4 * zy_d2 - zy_d1) / 3;                                                   \
  })

/* Default tolerances: closed forms, and finite differences. */
#define ZY_TOL 1e-12
#define ZY_FD_TOL 1e-8

/* Checks a gradient against a closed form and a finite difference. */
#define ZY_CHECK2(what, got, closed, fd)                                       \
  do {                                                                         \
    double zy_g = (got);                                                       \
    zy_check_close(what " (closed form)", zy_g, (closed), ZY_TOL);             \
    zy_check_close(what " (finite diff)", zy_g, (fd), ZY_FD_TOL);              \
  } while (0)

/* long double: |got - want| <= tol * max(1, |want|) */
static void zy_check_closel(const char *what, long double got, long double want,
                            long double tol) {
  zy_checks++;
  long double scale = fabsl(want) > 1 ? fabsl(want) : 1;
  if (!(fabsl(got - want) <= tol * scale)) {
    zy_failures++;
    printf("FAIL %s: got %.21Lg, want %.21Lg\n", what, got, want);
  } else {
    printf("ok   %s: %.15Lg\n", what, got);
  }
}

#endif
