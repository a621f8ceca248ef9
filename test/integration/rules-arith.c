// Gradients of fadd, fsub, fmul, fdiv, fneg, frem (fmod), fcmp, float/double
// and int/float conversions, against closed forms and finite differences.
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

double add(double x, double y) { return x + y; }
double sub(double x, double y) { return x - y; }
double mul(double x, double y) { return x * y; }
double dvd(double x, double y) { return x / y; }
double neg(double x) { return -x; }
double negmul(double x, double y) { return -(x * y) + -x; }
/* The same operand several times: adjoints must accumulate. */
double poly(double x) { return x * x * x - 3 * x * x + x / (x * x + 1); }
double mixed(double x, double y) { return (x - y) * (x + y) / (x * y - 7); }
/* fmod: the libm call, or frem with -fno-math-errno. */
double rem(double x, double y) { return fmod(x, y); }
double brem(double x, double y) { return __builtin_fmod(x * x, y) * y; }
/* fptrunc / fpext */
double trunc_ext(double x) {
  float f = (float)x;
  return (double)(f * f) + x;
}
double ext_mix(double x, double y) {
  float a = (float)(x * y);
  double b = a;
  return b * y + (float)y;
}
/* sitofp / uitofp of constant integers, fptosi / fptoui cutting the flow */
double int_scale(double x, int n, unsigned u) {
  return x * (double)n + (double)u * x * x;
}
double cut_si(double x) { return x * (double)(int)(x * 3); }
double cut_ui(double x) { return x * x + (double)(unsigned)(x * x); }
/* fcmp results as values */
double cmp_val(double x, double y) { return (x < y) * x * y + (x >= y) * y; }

int main(void) {
  static const double px[] = {1.5, -2.25, 0.375};
  static const double py[] = {0.75, 3.5, -1.25};
  for (int i = 0; i < 3; i++) {
    double x = px[i], y = py[i];
    G2 g = __enzyme_autodiff2((void *)add, x, y);
    zy_check_close("add dx", g.dx, 1, ZY_TOL);
    zy_check_close("add dy", g.dy, 1, ZY_TOL);
    g = __enzyme_autodiff2((void *)sub, x, y);
    zy_check_close("sub dx", g.dx, 1, ZY_TOL);
    zy_check_close("sub dy", g.dy, -1, ZY_TOL);
    g = __enzyme_autodiff2((void *)mul, x, y);
    zy_check_close("mul dx", g.dx, y, ZY_TOL);
    zy_check_close("mul dy", g.dy, x, ZY_TOL);
    g = __enzyme_autodiff2((void *)dvd, x, y);
    zy_check_close("div dx", g.dx, 1 / y, ZY_TOL);
    zy_check_close("div dy", g.dy, -x / (y * y), ZY_TOL);
    zy_check_close("neg", __enzyme_autodiff((void *)neg, x), -1, ZY_TOL);
    g = __enzyme_autodiff2((void *)negmul, x, y);
    zy_check_close("negmul dx", g.dx, -y - 1, ZY_TOL);
    zy_check_close("negmul dy", g.dy, -x, ZY_TOL);

    double d = 1 + x * x;
    ZY_CHECK2("poly", __enzyme_autodiff((void *)poly, x),
              3 * x * x - 6 * x + (1 - x * x) / (d * d), ZY_DIFF(t, x, poly(t)));
    g = __enzyme_autodiff2((void *)mixed, x, y);
    double q = x * y - 7;
    ZY_CHECK2("mixed dx", g.dx, 2 * x / q - (x * x - y * y) * y / (q * q),
              ZY_DIFF(t, x, mixed(t, y)));
    ZY_CHECK2("mixed dy", g.dy, -2 * y / q - (x * x - y * y) * x / (q * q),
              ZY_DIFF(t, y, mixed(x, t)));

    /* no integer quotient nearby; a negative divisor on the last point */
    double u = x * 0.6875 + 0.1, v = i == 2 ? -0.875 : 0.875;
    g = __enzyme_autodiff2((void *)rem, u * 4, v);
    zy_check_close("fmod dx", g.dx, 1, ZY_TOL);
    ZY_CHECK2("fmod dy", g.dy, -trunc(u * 4 / v), ZY_DIFF(t, v, rem(u * 4, t)));
    g = __enzyme_autodiff2((void *)brem, u, v / 3);
    double w = v / 3;
    ZY_CHECK2("builtin fmod dx", g.dx, 2 * u * w, ZY_DIFF(t, u, brem(t, w)));
    ZY_CHECK2("builtin fmod dy", g.dy,
              fmod(u * u, w) - w * trunc(u * u / w), ZY_DIFF(t, w, brem(u, t)));

    float f = (float)x;
    zy_check_close("fptrunc/fpext", __enzyme_autodiff((void *)trunc_ext, x),
                   2.0 * f + 1, 1e-6);
    g = __enzyme_autodiff2((void *)ext_mix, x, y);
    zy_check_close("fpext mix dx", g.dx, y * y, 1e-6);
    zy_check_close("fpext mix dy", g.dy, 2 * x * y + 1, 1e-6);

    zy_check_close("sitofp/uitofp",
                   __enzyme_autodiff((void *)int_scale, x, -3, 5u),
                   -3 + 10 * x, ZY_TOL);
    zy_check_close("fptosi cuts", __enzyme_autodiff((void *)cut_si, x),
                   (double)(int)(x * 3), ZY_TOL);
    zy_check_close("fptoui cuts", __enzyme_autodiff((void *)cut_ui, x), 2 * x,
                   ZY_TOL);
    g = __enzyme_autodiff2((void *)cmp_val, x, y);
    zy_check_close("fcmp dx", g.dx, x < y ? y : 0, ZY_TOL);
    zy_check_close("fcmp dy", g.dy, x < y ? x : 1, ZY_TOL);
  }
  return zy_report();
}
