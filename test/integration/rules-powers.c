// Gradients of sqrt, pow (and the forms -O2 rewrites it to), powi, cbrt and
// hypot, against closed forms and finite differences.
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
typedef struct { double dx, dy; } G2;
G2 __enzyme_autodiff2(void *, ...);
int enzyme_const;

double f_sqrt(double x) { return sqrt(x); }
double f_bsqrt(double x) { return __builtin_sqrt(x * x + 1); }
double f_pow(double x, double y) { return pow(x, y); }
/* Constant exponents or bases that the optimizer turns into other code. */
double f_pow_sq(double x) { return pow(x, 2.0); }
double f_pow_cube(double x) { return pow(x, 3.0); }
double f_pow_half(double x) { return pow(x, 0.5); }
double f_pow_inv(double x) { return pow(x, -1.0); }
double f_pow_one(double x) { return pow(x, 1.0); }
double f_pow2(double x) { return pow(2.0, x); }
double f_pow10(double x) { return pow(10.0, x); }
double f_powi(double x, int n) { return __builtin_powi(x, n); }
double f_powi3(double x) { return __builtin_powi(x, 3) + __builtin_powi(x, -2); }
double f_cbrt(double x) { return cbrt(x); }
double f_hypot(double x, double y) { return hypot(x, y); }

int main(void) {
  static const double pos[] = {2.5, 0.09, 7.0};
  for (int i = 0; i < 3; i++) {
    double x = pos[i];
    ZY_CHECK2("sqrt", __enzyme_autodiff((void *)f_sqrt, x), 0.5 / sqrt(x),
              ZY_DIFF(t, x, sqrt(t)));
    ZY_CHECK2("pow(x, 0.5)", __enzyme_autodiff((void *)f_pow_half, x),
              0.5 / sqrt(x), ZY_DIFF(t, x, f_pow_half(t)));
  }

  static const double px[] = {1.7, 0.6, 3.1}, py[] = {2.3, -1.5, 0.5};
  for (int i = 0; i < 3; i++) {
    double x = px[i], y = py[i];
    G2 g = __enzyme_autodiff2((void *)f_pow, x, y);
    ZY_CHECK2("pow dx", g.dx, y * pow(x, y - 1), ZY_DIFF(t, x, pow(t, y)));
    ZY_CHECK2("pow dy", g.dy, pow(x, y) * log(x), ZY_DIFF(t, y, pow(x, t)));
  }

  static const double all[] = {1.5, -2.25, 0.375};
  for (int i = 0; i < 3; i++) {
    double x = all[i];
    ZY_CHECK2("sqrt(x*x+1)", __enzyme_autodiff((void *)f_bsqrt, x),
              x / sqrt(x * x + 1), ZY_DIFF(t, x, f_bsqrt(t)));
    ZY_CHECK2("pow(x, 2)", __enzyme_autodiff((void *)f_pow_sq, x), 2 * x,
              ZY_DIFF(t, x, f_pow_sq(t)));
    ZY_CHECK2("pow(x, 3)", __enzyme_autodiff((void *)f_pow_cube, x), 3 * x * x,
              ZY_DIFF(t, x, f_pow_cube(t)));
    ZY_CHECK2("pow(x, -1)", __enzyme_autodiff((void *)f_pow_inv, x),
              -1 / (x * x), ZY_DIFF(t, x, f_pow_inv(t)));
    zy_check_close("pow(x, 1)", __enzyme_autodiff((void *)f_pow_one, x), 1,
                   ZY_TOL);
    ZY_CHECK2("pow(2, x)", __enzyme_autodiff((void *)f_pow2, x),
              pow(2, x) * log(2.0), ZY_DIFF(t, x, f_pow2(t)));
    ZY_CHECK2("pow(10, x)", __enzyme_autodiff((void *)f_pow10, x),
              pow(10, x) * log(10.0), ZY_DIFF(t, x, f_pow10(t)));
    /* pow with a negative base and an integer exponent, exponent constant */
    G2 g = __enzyme_autodiff2((void *)f_pow, x, 3.0);
    ZY_CHECK2("pow(x, 3.0 active) dx", g.dx, 3 * x * x,
              ZY_DIFF(t, x, pow(t, 3.0)));
    ZY_CHECK2("pow(x, enzyme_const 3.0)",
              __enzyme_autodiff((void *)f_pow, x, enzyme_const, 3.0), 3 * x * x,
              ZY_DIFF(t, x, pow(t, 3.0)));
    static const int ns[] = {3, -2, 0, 1, 5};
    for (int k = 0; k < 5; k++) {
      int n = ns[k];
      ZY_CHECK2("powi", __enzyme_autodiff((void *)f_powi, x, n),
                n * pow(x, n - 1), ZY_DIFF(t, x, f_powi(t, n)));
    }
    ZY_CHECK2("powi 3 and -2", __enzyme_autodiff((void *)f_powi3, x),
              3 * x * x - 2 / (x * x * x), ZY_DIFF(t, x, f_powi3(t)));
    ZY_CHECK2("cbrt", __enzyme_autodiff((void *)f_cbrt, x * 4),
              1 / (3 * cbrt(x * 4) * cbrt(x * 4)), ZY_DIFF(t, x * 4, cbrt(t)));
    double y = 1.25 - x;
    g = __enzyme_autodiff2((void *)f_hypot, x, y);
    ZY_CHECK2("hypot dx", g.dx, x / hypot(x, y), ZY_DIFF(t, x, hypot(t, y)));
    ZY_CHECK2("hypot dy", g.dy, y / hypot(x, y), ZY_DIFF(t, y, hypot(x, t)));
  }
  return zy_report();
}
