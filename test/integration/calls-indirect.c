// Indirect calls whose possible targets are known (a select or a phi of
// functions, user functions and libm) are differentiated as direct calls.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
#include "fd.h"

double __enzyme_autodiff(void *, ...);

static double sq(double x) { return x * x; }
static double cube(double x) { return x * x * x; }

/* A select of two user functions and a select of two libm functions. */
double by_select(double x, int k) {
  double (*fp)(double) = k ? sq : cube;
  double (*gp)(double) = k > 1 ? sin : cos;
  return fp(x) + gp(x);
}

/* A phi of three functions, chosen by a switch. */
double by_phi(double x, int k) {
  double (*fp)(double);
  switch (k) {
  case 0: fp = sq; break;
  case 1: fp = exp; break;
  default: fp = cube; break;
  }
  return fp(x) * x;
}

int main(void) {
  static const double xs[] = {1.3, -0.6};
  for (int i = 0; i < 2; i++)
    for (int k = 0; k < 3; k++) {
      double x = xs[i];
      double want = (k ? 2 * x : 3 * x * x) + (k > 1 ? cos(x) : -sin(x));
      ZY_CHECK2("select", __enzyme_autodiff((void *)by_select, x, k), want,
                ZY_DIFF(t, x, by_select(t, k)));
      double f = k == 0 ? x * x : k == 1 ? exp(x) : x * x * x;
      double df = k == 0 ? 2 * x : k == 1 ? exp(x) : 3 * x * x;
      ZY_CHECK2("phi", __enzyme_autodiff((void *)by_phi, x, k), df * x + f,
                ZY_DIFF(t, x, by_phi(t, k)));
    }
  return zy_report();
}
