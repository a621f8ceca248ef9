// Regression: reading the integer field of a { double, i32 } returned by a
// called function must cut the flow (like fptosi), not stop differentiation.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
#include "fd.h"

double __enzyme_autodiff(void *, ...);

typedef struct { double v; int n; } Pair;
static __attribute__((noinline)) Pair make(double a, int n) {
  return (Pair){a * a, n + (int)a};
}
double use(double x, int n) {
  Pair p = make(x, n);
  return p.v * p.n;
}

int main(void) {
  static const double px[] = {1.5, -0.5, 3.25};
  for (int i = 0; i < 3; i++) {
    double x = px[i];
    zy_check_close("p.v * p.n", __enzyme_autodiff((void *)use, x, 3),
                   2 * x * (3 + (int)x), ZY_TOL);
  }
  return zy_report();
}
