/* check.h - helpers for integration tests: compare a gradient with central
 * finite differences or a closed form, count failures, exit non-zero on
 * any.  Tests declare their own __enzyme_autodiff prototypes.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_TEST_CHECK_H
#define ZY_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int zy_failures, zy_checks;

/* |got - want| <= tol * max(1, |want|) */
static void zy_check_close(const char *what, double got, double want,
                           double tol) {
  zy_checks++;
  double scale = fabs(want) > 1 ? fabs(want) : 1;
  if (!(fabs(got - want) <= tol * scale)) {
    zy_failures++;
    printf("FAIL %s: got %.17g, want %.17g\n", what, got, want);
  } else {
    printf("ok   %s: %.12g\n", what, got);
  }
}

/* Central difference of a one-argument function. */
#define ZY_FD1(f, x, h) (((f)((x) + (h)) - (f)((x) - (h))) / (2 * (h)))

static int zy_report(void) {
  printf("%d checks, %d failed\n", zy_checks, zy_failures);
  return zy_failures != 0;
}

#endif
