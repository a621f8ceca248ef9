// A non-constant integer stored over a double with a shadow (bits built
// from an int, copied in with memcpy) must clear that double's adjoint like
// any other overwrite (or be refused); the memory's type was "anything"
// (double loaded, i64 stored), so the store was neither refused ("stored as
// an integer") nor reversed, and the stale adjoint leaked into dy.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -o %t0 2>%t0.err && %t0 || %FileCheck %s --check-prefix=REFUSED < %t0.err
// RUN: %clang -O2 %s -o %t2 2>%t2.err && %t2 || %FileCheck %s --check-prefix=REFUSED < %t2.err
// REFUSED: error: [zymase:unsupported] cannot differentiate 'f': floating-point data {{.*}}integer
#include "check.h"

#include <stdint.h>
#include <string.h>

void __enzyme_autodiff(void *, ...);

/* r = y0 * x0, then y[0] = the double with bits n << 52 (constant). */
double f(double *x, double *y, int n) {
  double r = y[0] * x[0];
  uint64_t b = (uint64_t)n << 52;
  memcpy(y, &b, sizeof b);
  return r;
}

int main(void) {
  double x[1] = {3}, dx[1] = {0}, y[1] = {5}, dy[1] = {7};
  __enzyme_autodiff((void *)f, x, dx, y, dy, 1000);
  zy_check_close("dx", dx[0], 5, 0);
  /* The seed 7 on the overwritten y[0] is dropped: dr/dy0 = x0. */
  zy_check_close("dy", dy[0], 3, 0);
  return zy_report();
}
