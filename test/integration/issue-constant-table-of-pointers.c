// A constant table of pointers to mutable globals: loads through it reach
// memory with derivatives, so the table has a shadow (the table of the
// globals' shadows).  Zymase used to take pointers loaded from constant
// memory as unshadowed and dropped the derivative silently (got 0).
// Entries pointing to constant data or to an inactive global get zero
// shadows of their own.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
#include "fd.h"

double __enzyme_autodiff(void *, ...);
extern int enzyme_const;

double g0 = 1, g1 = 2, trace;
void *__enzyme_inactive_global[] = {&trace};
const double coef[2] = {3.0, 0.5};
double *const tab[4] = {&g0, &g1, (double *)&coef[1], &trace};

struct term { double w; double *at; };
const struct term terms[2] = {{2.0, &g1}, {-1.0, &g0}};

__attribute__((noinline)) double f(double x, int i) {
  g0 = x;
  g1 = sin(x);
  trace = x * x;
  double s = *tab[i] * 2.0;
  for (int k = 0; k < 2; k++)
    s += terms[k].w * *terms[k].at * *tab[i];
  return s;
}

int main(void) {
  static const double xs[] = {0.8, -1.3};
  for (int t = 0; t < 2; t++)
    for (int i = 0; i < 4; i++) {
      double x = xs[t];
      double d = __enzyme_autodiff((void *)f, x, enzyme_const, i);
      if (i < 3)
        zy_check_close("df/dx (finite diff)", d, ZY_DIFF(u, x, f(u, i)),
                       1e-7);
      else /* trace's derivative is dropped: s = 2c + (2 sin x - x) c */
        zy_check_close("df/dx (trace inactive)", d,
                       (2 * cos(x) - 1) * x * x, 1e-12);
    }
  return zy_report();
}
