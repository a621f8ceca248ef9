// Gradients of sin, cos, tan, asin, acos, atan and atan2 (libm calls, and
// intrinsics with -fno-math-errno), against closed forms and finite
// differences.
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
typedef struct { double dx, dy; } G2;
G2 __enzyme_autodiff2(void *, ...);

double f_sin(double x) { return sin(x); }
double f_cos(double x) { return cos(x); }
double f_tan(double x) { return tan(x); }
double f_asin(double x) { return asin(x); }
double f_acos(double x) { return acos(x); }
double f_atan(double x) { return atan(x); }
double f_atan2(double y, double x) { return atan2(y, x); }
/* sin and cos of the same argument, and nested calls */
double f_sincos(double x) { return sin(x) * cos(x) + sin(cos(x)); }
double f_btrig(double x) { return __builtin_sin(x) * __builtin_tan(x / 2); }

int main(void) {
  static const double all[] = {0.7, -1.2, 2.9};
  for (int i = 0; i < 3; i++) {
    double x = all[i];
    ZY_CHECK2("sin", __enzyme_autodiff((void *)f_sin, x), cos(x),
              ZY_DIFF(t, x, sin(t)));
    ZY_CHECK2("cos", __enzyme_autodiff((void *)f_cos, x), -sin(x),
              ZY_DIFF(t, x, cos(t)));
    ZY_CHECK2("tan", __enzyme_autodiff((void *)f_tan, x),
              1 / (cos(x) * cos(x)), ZY_DIFF(t, x, tan(t)));
    ZY_CHECK2("atan", __enzyme_autodiff((void *)f_atan, x), 1 / (1 + x * x),
              ZY_DIFF(t, x, atan(t)));
    ZY_CHECK2("sin*cos + sin(cos)", __enzyme_autodiff((void *)f_sincos, x),
              cos(2 * x) - cos(cos(x)) * sin(x), ZY_DIFF(t, x, f_sincos(t)));
    ZY_CHECK2("builtins", __enzyme_autodiff((void *)f_btrig, x),
              cos(x) * tan(x / 2) + sin(x) / (2 * cos(x / 2) * cos(x / 2)),
              ZY_DIFF(t, x, f_btrig(t)));
    double s = x / 3.5; /* inside (-1, 1) */
    ZY_CHECK2("asin", __enzyme_autodiff((void *)f_asin, s), 1 / sqrt(1 - s * s),
              ZY_DIFF(t, s, asin(t)));
    ZY_CHECK2("acos", __enzyme_autodiff((void *)f_acos, s),
              -1 / sqrt(1 - s * s), ZY_DIFF(t, s, acos(t)));
  }
  /* atan2 in all four quadrants */
  static const double py[] = {0.8, 1.5, -0.4, -2.0};
  static const double px[] = {1.1, -0.6, -2.5, 0.3};
  for (int i = 0; i < 4; i++) {
    double y = py[i], x = px[i], r2 = x * x + y * y;
    G2 g = __enzyme_autodiff2((void *)f_atan2, y, x);
    ZY_CHECK2("atan2 dy", g.dx, x / r2, ZY_DIFF(t, y, atan2(t, x)));
    ZY_CHECK2("atan2 dx", g.dy, -y / r2, ZY_DIFF(t, x, atan2(y, t)));
  }
  return zy_report();
}
