// Gradients of sinh, cosh, tanh, asinh, acosh and atanh, against closed
// forms and finite differences.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O0 -fno-math-errno %s -lm -o %t4 && %t4
// RUN: %clang -O2 -fno-math-errno %s -lm -o %t5 && %t5
// RUN: %clang -O2 -ffast-math %s -lm -o %tf && %tf
// RUN: %clang -O2 -fno-builtin %s -lm -o %tb && %tb
#include "fd.h"

double __enzyme_autodiff(void *, ...);

double f_sinh(double x) { return sinh(x); }
double f_cosh(double x) { return cosh(x); }
double f_tanh(double x) { return tanh(x); }
double f_asinh(double x) { return asinh(x); }
double f_acosh(double x) { return acosh(x); }
double f_atanh(double x) { return atanh(x); }
double f_comp(double x) { return tanh(sinh(x)) * cosh(x / 2); }

int main(void) {
  static const double all[] = {0.45, -1.6, 2.3};
  for (int i = 0; i < 3; i++) {
    double x = all[i];
    ZY_CHECK2("sinh", __enzyme_autodiff((void *)f_sinh, x), cosh(x),
              ZY_DIFF(t, x, sinh(t)));
    ZY_CHECK2("cosh", __enzyme_autodiff((void *)f_cosh, x), sinh(x),
              ZY_DIFF(t, x, cosh(t)));
    ZY_CHECK2("tanh", __enzyme_autodiff((void *)f_tanh, x),
              1 / (cosh(x) * cosh(x)), ZY_DIFF(t, x, tanh(t)));
    ZY_CHECK2("asinh", __enzyme_autodiff((void *)f_asinh, x),
              1 / sqrt(x * x + 1), ZY_DIFF(t, x, asinh(t)));
    double c = 1 + fabs(x); /* > 1 */
    ZY_CHECK2("acosh", __enzyme_autodiff((void *)f_acosh, c),
              1 / sqrt(c * c - 1), ZY_DIFF(t, c, acosh(t)));
    double a = x / 2.5; /* inside (-1, 1) */
    ZY_CHECK2("atanh", __enzyme_autodiff((void *)f_atanh, a), 1 / (1 - a * a),
              ZY_DIFF(t, a, atanh(t)));
    double th = tanh(sinh(x));
    ZY_CHECK2("composition", __enzyme_autodiff((void *)f_comp, x),
              (1 - th * th) * cosh(x) * cosh(x / 2) + th * sinh(x / 2) / 2,
              ZY_DIFF(t, x, f_comp(t)));
  }
  return zy_report();
}
