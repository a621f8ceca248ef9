// A pure callee reading memory its caller overwrites afterwards: its
// gradient must not recompute it in the reverse sweep with the new memory
// (it is split instead: the forward values are kept in a tape).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -o %t0 && %t0
// RUN: %clang -O2 %s -o %t2 && %t2
#include "check.h"

double __enzyme_autodiff(void *, ...);
extern int enzyme_const;
int enzyme_const;

double scale = 3; /* read by the callee, changed by the caller */

__attribute__((noinline)) double g(double x, const double *c) {
  return x * c[0] * scale;
}

double f(double x, double *c) {
  double y = g(x, c);
  c[0] = 100;
  scale = 7;
  return y * x;
}

int main(void) {
  double c[1] = {3};
  double d = __enzyme_autodiff((void *)f, 2.0, enzyme_const, c);
  /* f = x^2 c s with c = 3, s = 3 at the time of the call */
  zy_check_close("df/dx", d, 2 * 2.0 * 3 * 3, 1e-12);
  return zy_report();
}
