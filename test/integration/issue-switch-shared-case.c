// Regression (found by tools/fuzz): a switch whose case values 0 and 1 jump
// to the same block gives that block a duplicated predecessor edge; the
// gradient must still be valid IR (-zymase-verify) and correct.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 -Xclang -load -Xclang %plugin -mllvm -zymase-verify %s -lm -o %t0 2>%t0.err && %t0
// RUN: %not grep "invalid IR" %t0.err
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-verify %s -lm -o %t2 2>%t2.err && %t2
// RUN: %not grep "invalid IR" %t2.err
#include "fd.h"

double __enzyme_autodiff(void *, ...);
int enzyme_const;

double f(double x, int k) {
  double t = x;
  switch (k) {
  case 0:
  case 1:
    break;
  case 2:
    t = sin(x);
    /* fall through */
  default:
    t = t * x;
  }
  return t * x;
}

int main(void) {
  static const double px[] = {1.5, -0.7};
  for (int i = 0; i < 2; i++)
    for (int k = 0; k < 4; k++) {
      double x = px[i];
      double want = k < 2    ? 2 * x
                    : k == 2 ? 2 * x * sin(x) + x * x * cos(x)
                             : 3 * x * x;
      ZY_CHECK2("switch with a shared case block",
                __enzyme_autodiff((void *)f, x, enzyme_const, k), want,
                ZY_DIFF(t, x, f(t, k)));
    }
  return zy_report();
}
