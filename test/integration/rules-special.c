// Gradients of erf, erfc, tgamma and lgamma (through digamma), against
// closed forms (a long double digamma) and finite differences.
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

double f_erf(double x) { return erf(x); }
double f_erfc(double x) { return erfc(x); }
double f_tgamma(double x) { return tgamma(x); }
double f_lgamma(double x) { return lgamma(x); }
double f_comp(double x) { return erf(x * x) * lgamma(x + 3); }

/* Reference digamma: recurrence up to 30, then the asymptotic series. */
static double digamma(double x0) {
  long double x = x0, acc = 0;
  while (x < 30)
    acc -= 1 / x, x += 1;
  long double f = 1 / (x * x);
  return (double)(acc + logl(x) - 0.5L / x -
                  f * (1.0L / 12 - f * (1.0L / 120 - f * (1.0L / 252 -
                                                        f / 240))));
}

int main(void) {
  static const double all[] = {0.35, -1.1, 2.05};
  for (int i = 0; i < 3; i++) {
    double x = all[i];
    ZY_CHECK2("erf", __enzyme_autodiff((void *)f_erf, x),
              2 / sqrt(M_PI) * exp(-x * x), ZY_DIFF(t, x, erf(t)));
    ZY_CHECK2("erfc", __enzyme_autodiff((void *)f_erfc, x),
              -2 / sqrt(M_PI) * exp(-x * x), ZY_DIFF(t, x, erfc(t)));
    ZY_CHECK2("erf(x*x) lgamma(x+3)", __enzyme_autodiff((void *)f_comp, x),
              2 / sqrt(M_PI) * exp(-x * x * x * x) * 2 * x * lgamma(x + 3) +
                  erf(x * x) * digamma(x + 3),
              ZY_DIFF(t, x, f_comp(t)));
  }
  /* gamma: positive points on both sides of the minimum, larger ones, and
   * negative non-integers.  The closed forms need digamma to ~1e-12. */
  static const double g[] = {0.4, 1.3, 2.7, 5.5, 6.0, 9.25, -0.5, -2.3, 17.5};
  for (int i = 0; i < 9; i++) {
    double x = g[i];
    if (x < 10) /* the finite difference of tgamma is poor further out */
      ZY_CHECK2("tgamma", __enzyme_autodiff((void *)f_tgamma, x),
                tgamma(x) * digamma(x), ZY_DIFF(t, x, tgamma(t)));
    ZY_CHECK2("lgamma", __enzyme_autodiff((void *)f_lgamma, x), digamma(x),
              ZY_DIFF(t, x, lgamma(t)));
  }
  return zy_report();
}
