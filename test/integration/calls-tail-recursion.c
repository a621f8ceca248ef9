// Tail recursion: differentiated as recursion at -O0 and -O1; at -O2 and -O3
// tail-call elimination has turned it into a loop, differentiated as one.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
#include "fd.h"

double __enzyme_autodiff(void *, ...);

/* t(x, n) = t(s(x), n - 1), t(x, 0) = x, with s(v) = v - v^3/6 (no libm
 * call, so the test does not depend on -fno-math-errno) */
double tail(double x, int n) {
  return n == 0 ? x : tail(x - x * x * x / 6, n - 1);
}

int main(void) {
  static const double px[] = {0.5, -1.2, 2.0};
  for (int i = 0; i < 3; i++)
    for (int n = 0; n < 4; n++) {
      double x = px[i], d = 1, v = x;
      for (int k = 0; k < n; k++)
        d *= 1 - v * v / 2, v = v - v * v * v / 6;
      ZY_CHECK2("tail recursion", __enzyme_autodiff((void *)tail, x, n), d,
                ZY_DIFF(t, x, tail(t, n)));
    }
  return zy_report();
}
