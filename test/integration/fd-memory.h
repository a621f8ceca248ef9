/* fd-memory.h - finite-difference references for gradients through memory:
 * vary one element of an array while an expression reads it.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_TEST_FD_MEMORY_H
#define ZY_TEST_FD_MEMORY_H

#include "fd.h"

/* d(expr)/d(arr[i]) at the current value of arr[i], where `expr` reads the
 * double array `arr`; arr[i] is restored afterwards.  Functions that write
 * their arguments must be wrapped so that `expr` starts from a copy. */
#define ZY_DIFF_AT(arr, i, expr)                                               \
  ({                                                                           \
    double zy_saved = (arr)[i];                                                \
    double zy_d = ZY_DIFF(zy_t, zy_saved, ((arr)[i] = zy_t, (expr)));          \
    (arr)[i] = zy_saved;                                                       \
    zy_d;                                                                      \
  })

/* Checks the n gradients got[0..n) against want[0..n), labelled
 * "<what>[k]". */
static inline void zy_check_array(const char *what, const double *got,
                                  const double *want, int n, double tol) {
  char label[128];
  for (int k = 0; k < n; k++) {
    snprintf(label, sizeof label, "%s[%d]", what, k);
    zy_check_close(label, got[k], want[k], tol);
  }
}

#endif
