// Zero gradients of floor, ceil, trunc, round, rint, nearbyint and
// roundeven, and gradients of fma and fmuladd (x*y+z under the default
// -ffp-contract=on), against closed forms.
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
typedef struct { double dx, dy, dz; } G3;
G3 __enzyme_autodiff3(void *, ...);

/* Each rounding function times a smooth factor, so the product rule
 * checks that the rounding contributes exactly zero. */
double f_floor(double x) { return floor(x) * x + floor(3 * x); }
double f_ceil(double x) { return ceil(x) * x + ceil(3 * x); }
double f_trunc(double x) { return trunc(x) * x + trunc(3 * x); }
double f_round(double x) { return round(x) * x + round(3 * x); }
double f_rint(double x) { return rint(x) * x + rint(3 * x); }
double f_nearbyint(double x) { return nearbyint(x) * x + nearbyint(3 * x); }
double f_roundeven(double x) {
  return __builtin_roundeven(x) * x + __builtin_roundeven(3 * x);
}
double f_fma(double x, double y, double z) { return fma(x, y, z); }
double f_bfma(double x, double y, double z) { return __builtin_fma(x, x, y * z); }
double f_fmuladd(double x, double y, double z) { return x * y + z; }
double f_fmuladd2(double x, double y, double z) { return x * x + y * z * x; }

int main(void) {
  static const double px[] = {1.3, -2.6, 0.45};
  for (int i = 0; i < 3; i++) {
    double x = px[i];
    zy_check_close("floor", __enzyme_autodiff((void *)f_floor, x), floor(x),
                   ZY_TOL);
    zy_check_close("ceil", __enzyme_autodiff((void *)f_ceil, x), ceil(x), ZY_TOL);
    zy_check_close("trunc", __enzyme_autodiff((void *)f_trunc, x), trunc(x),
                   ZY_TOL);
    zy_check_close("round", __enzyme_autodiff((void *)f_round, x), round(x),
                   ZY_TOL);
    zy_check_close("rint", __enzyme_autodiff((void *)f_rint, x), rint(x), ZY_TOL);
    zy_check_close("nearbyint", __enzyme_autodiff((void *)f_nearbyint, x),
                   nearbyint(x), ZY_TOL);
    zy_check_close("roundeven", __enzyme_autodiff((void *)f_roundeven, x),
                   __builtin_roundeven(x), ZY_TOL);

    double y = 0.7 - x, z = x * 1.9;
    G3 g = __enzyme_autodiff3((void *)f_fma, x, y, z);
    zy_check_close("fma dx", g.dx, y, ZY_TOL);
    zy_check_close("fma dy", g.dy, x, ZY_TOL);
    zy_check_close("fma dz", g.dz, 1, ZY_TOL);
    g = __enzyme_autodiff3((void *)f_bfma, x, y, z);
    zy_check_close("__builtin_fma dx", g.dx, 2 * x, ZY_TOL);
    zy_check_close("__builtin_fma dy", g.dy, z, ZY_TOL);
    zy_check_close("__builtin_fma dz", g.dz, y, ZY_TOL);
    g = __enzyme_autodiff3((void *)f_fmuladd, x, y, z);
    zy_check_close("fmuladd dx", g.dx, y, ZY_TOL);
    zy_check_close("fmuladd dy", g.dy, x, ZY_TOL);
    zy_check_close("fmuladd dz", g.dz, 1, ZY_TOL);
    g = __enzyme_autodiff3((void *)f_fmuladd2, x, y, z);
    zy_check_close("fmuladd2 dx", g.dx, 2 * x + y * z, ZY_TOL);
    zy_check_close("fmuladd2 dy", g.dy, z * x, ZY_TOL);
    zy_check_close("fmuladd2 dz", g.dz, y * x, ZY_TOL);
  }
  return zy_report();
}
