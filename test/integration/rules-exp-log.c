// Gradients of exp, exp2, exp10, expm1, log, log1p, log2 and log10 (libm
// calls, and intrinsics with -fno-math-errno), against closed forms and
// finite differences.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O0 -fno-math-errno %s -lm -o %t4 && %t4
// RUN: %clang -O2 -fno-math-errno %s -lm -o %t5 && %t5
// RUN: %clang -O2 -ffast-math %s -lm -o %tf && %tf
// RUN: %clang -O2 -fno-builtin %s -lm -o %tb && %tb
#define _GNU_SOURCE
#include "fd.h"

double __enzyme_autodiff(void *, ...);

double f_exp(double x) { return exp(x); }
double f_exp2(double x) { return exp2(x); }
double f_exp10(double x) { return exp10(x); }
double f_bexp10(double x) { return __builtin_exp10(x); }
double f_expm1(double x) { return expm1(x); }
double f_log(double x) { return log(x); }
double f_log1p(double x) { return log1p(x); }
double f_log2(double x) { return log2(x); }
double f_log10(double x) { return log10(x); }
/* compositions: exp of a product, log of a quotient */
double f_comp(double x) { return exp(x * sin(x)) + log(x * x + 1) / exp2(x); }

int main(void) {
  static const double all[] = {0.75, -1.3, 2.2};
  for (int i = 0; i < 3; i++) {
    double x = all[i];
    ZY_CHECK2("exp", __enzyme_autodiff((void *)f_exp, x), exp(x),
              ZY_DIFF(t, x, exp(t)));
    ZY_CHECK2("exp2", __enzyme_autodiff((void *)f_exp2, x), exp2(x) * M_LN2,
              ZY_DIFF(t, x, exp2(t)));
    ZY_CHECK2("exp10", __enzyme_autodiff((void *)f_exp10, x),
              exp10(x) * M_LN10, ZY_DIFF(t, x, exp10(t)));
    ZY_CHECK2("__builtin_exp10", __enzyme_autodiff((void *)f_bexp10, x),
              exp10(x) * M_LN10, ZY_DIFF(t, x, exp10(t)));
    ZY_CHECK2("expm1", __enzyme_autodiff((void *)f_expm1, x), exp(x),
              ZY_DIFF(t, x, expm1(t)));
    ZY_CHECK2("log1p", __enzyme_autodiff((void *)f_log1p, x / 3),
              1 / (1 + x / 3), ZY_DIFF(t, x / 3, log1p(t)));
    double e = x * sin(x), l = x * x + 1;
    ZY_CHECK2("composition", __enzyme_autodiff((void *)f_comp, x),
              exp(e) * (sin(x) + x * cos(x)) + 2 * x / l / exp2(x) -
                  log(l) * M_LN2 / exp2(x),
              ZY_DIFF(t, x, f_comp(t)));
  }
  static const double pos[] = {0.3, 1.7, 12.5};
  for (int i = 0; i < 3; i++) {
    double x = pos[i];
    ZY_CHECK2("log", __enzyme_autodiff((void *)f_log, x), 1 / x,
              ZY_DIFF(t, x, log(t)));
    ZY_CHECK2("log2", __enzyme_autodiff((void *)f_log2, x), 1 / (x * M_LN2),
              ZY_DIFF(t, x, log2(t)));
    ZY_CHECK2("log10", __enzyme_autodiff((void *)f_log10, x), 1 / (x * M_LN10),
              ZY_DIFF(t, x, log10(t)));
  }
  return zy_report();
}
