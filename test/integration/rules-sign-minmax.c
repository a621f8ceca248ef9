// Gradients of fabs, copysign, fmin, fmax (libm and builtins, minnum and
// maxnum), llvm.minimum/maximum where clang has the builtins, and the select
// forms the optimizer turns into them, against closed forms.
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

double f_fabs(double x) { return fabs(x) * x; }
double f_abs_sel(double x) { return x < 0 ? -x : x; }
double f_copysign(double x, double y) { return copysign(x * x + x, y); }
double f_fmin(double x, double y) { return fmin(x, y); }
double f_fmax(double x, double y) { return fmax(x, y); }
double f_bfmin(double x, double y) { return __builtin_fmin(x * 2, y) * y; }
double f_bfmax(double x, double y) { return __builtin_fmax(x, y * y); }
double f_relu(double x) { return fmax(x, 0.0) * 3; }
double f_tie(double x) { return fmin(x, x) + fmax(x, x); }
double f_min_sel(double x, double y) { return x < y ? x : y; }
double f_max_sel(double x, double y) { return x > y ? x : y; }
#if __has_builtin(__builtin_elementwise_minimum)
#define HAVE_MINIMUM 1
double f_minimum(double x, double y) { return __builtin_elementwise_minimum(x, y); }
double f_maximum(double x, double y) { return __builtin_elementwise_maximum(x, y); }
#endif

static void check_minmax(const char *what, G2 g, int first) {
  char name[64];
  snprintf(name, sizeof name, "%s dx", what);
  zy_check_close(name, g.dx, first ? 1 : 0, ZY_TOL);
  snprintf(name, sizeof name, "%s dy", what);
  zy_check_close(name, g.dy, first ? 0 : 1, ZY_TOL);
}

int main(void) {
  static const double px[] = {1.5, -2.25, 0.375, -0.5};
  static const double py[] = {0.75, 3.5, -1.25, -0.125};
  for (int i = 0; i < 4; i++) {
    double x = px[i], y = py[i];
    zy_check_close("fabs(x)*x", __enzyme_autodiff((void *)f_fabs, x),
                   2 * fabs(x), ZY_TOL);
    zy_check_close("x<0?-x:x", __enzyme_autodiff((void *)f_abs_sel, x),
                   x < 0 ? -1 : 1, ZY_TOL);
    G2 g = __enzyme_autodiff2((void *)f_copysign, x, y);
    double s = copysign(1, x * x + x) * copysign(1, y);
    ZY_CHECK2("copysign dx", g.dx, s * (2 * x + 1),
              ZY_DIFF(t, x, f_copysign(t, y)));
    zy_check_close("copysign dy", g.dy, 0, ZY_TOL);

    check_minmax("fmin", __enzyme_autodiff2((void *)f_fmin, x, y), x < y);
    check_minmax("fmax", __enzyme_autodiff2((void *)f_fmax, x, y), x > y);
    check_minmax("x<y?x:y", __enzyme_autodiff2((void *)f_min_sel, x, y), x < y);
    check_minmax("x>y?x:y", __enzyme_autodiff2((void *)f_max_sel, x, y), x > y);
#ifdef HAVE_MINIMUM
    check_minmax("minimum", __enzyme_autodiff2((void *)f_minimum, x, y), x < y);
    check_minmax("maximum", __enzyme_autodiff2((void *)f_maximum, x, y), x > y);
#endif
    g = __enzyme_autodiff2((void *)f_bfmin, x, y);
    zy_check_close("__builtin_fmin dx", g.dx, 2 * x < y ? 2 * y : 0, ZY_TOL);
    zy_check_close("__builtin_fmin dy", g.dy,
                   2 * x < y ? 2 * x : 2 * y, ZY_TOL);
    g = __enzyme_autodiff2((void *)f_bfmax, x, y);
    zy_check_close("__builtin_fmax dx", g.dx, x > y * y ? 1 : 0, ZY_TOL);
    zy_check_close("__builtin_fmax dy", g.dy, x > y * y ? 0 : 2 * y, ZY_TOL);
    zy_check_close("relu", __enzyme_autodiff((void *)f_relu, x), x > 0 ? 3 : 0,
                   ZY_TOL);
    zy_check_close("fmin(x,x)+fmax(x,x)", __enzyme_autodiff((void *)f_tie, x),
                   2, ZY_TOL);
  }
  return zy_report();
}
