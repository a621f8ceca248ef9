// Regression: under the default -fmath-errno, libm calls whose only effect
// is errno must not block differentiation: a called function that uses sin,
// and lround/lrint/ilogb results (which cut the flow like fptosi).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
#include "fd.h"

double __enzyme_autodiff(void *, ...);

static __attribute__((noinline)) double helper(double a) { return sin(a) * a; }
double calls_helper(double x) { return helper(x) + helper(2 * x); }
double int_results(double x) {
  return lround(x) * x + (double)lrint(x) * x + ilogb(x) * x;
}

int main(void) {
  static const double px[] = {1.3, -0.6, 2.8};
  for (int i = 0; i < 3; i++) {
    double x = px[i];
    ZY_CHECK2("helper with sin", __enzyme_autodiff((void *)calls_helper, x),
              sin(x) + x * cos(x) + 2 * (sin(2 * x) + 2 * x * cos(2 * x)),
              ZY_DIFF(t, x, calls_helper(t)));
    zy_check_close("lround/lrint/ilogb", __enzyme_autodiff((void *)int_results, x),
                   (double)lround(x) + (double)lrint(x) + ilogb(x), ZY_TOL);
  }
  return zy_report();
}
