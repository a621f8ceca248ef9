// Gradients through extractvalue/insertvalue: small structs of doubles and
// _Complex double values returned from and passed to helpers (inlined, and
// kept as calls with noinline), against closed forms and finite differences.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O0 -fno-math-errno %s -lm -o %t4 && %t4
// RUN: %clang -O2 -fno-math-errno %s -lm -o %t5 && %t5
#include "fd.h"

#include <complex.h>

double __enzyme_autodiff(void *, ...);
typedef struct { double dx, dy; } G2;
G2 __enzyme_autodiff2(void *, ...);

#define NOINLINE __attribute__((noinline))

typedef struct { double re, im; } Cx;
static Cx cmul(Cx a, Cx b) {
  return (Cx){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
static NOINLINE Cx cmul_call(Cx a, Cx b) {
  return (Cx){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
/* Re(z^3) + 2 Im(z^3) with z = x + iy */
double cube_pair(double x, double y) {
  Cx z = {x, y}, w = cmul(cmul(z, z), z);
  return w.re + 2 * w.im;
}
double cube_pair_call(double x, double y) {
  Cx z = {x, y}, w = cmul_call(cmul_call(z, z), z);
  return w.re + 2 * w.im;
}

/* A struct with an integer field, returned from a helper as
 * { double, i32 } (a larger one would go through sret memory). */
typedef struct { double v; int n; } Mixed;
static NOINLINE Mixed make(double a, int n) { return (Mixed){a * a * a + 2 * a, n}; }
double use_mixed(double x) {
  Mixed m = make(x, 3);
  return m.v * m.n;
}

#pragma STDC CX_LIMITED_RANGE ON
static NOINLINE _Complex double csq(_Complex double z) { return z * z; }
static _Complex double cfun(_Complex double z) { return z * z * z + 2 * z; }
double complex_call(double x, double y) {
  _Complex double z = x + y * I;
  _Complex double s = csq(z);
  return creal(s) * cimag(s);
}
double complex_inline(double x, double y) {
  _Complex double w = cfun(x + y * I);
  return creal(w) - 3 * cimag(w);
}

int main(void) {
  static const double px[] = {0.9, -1.3, 0.4};
  static const double py[] = {0.5, 0.8, -1.7};
  for (int i = 0; i < 3; i++) {
    double x = px[i], y = py[i];
    /* z^3 = (x^3 - 3xy^2) + i(3x^2y - y^3) */
    double dre_dx = 3 * x * x - 3 * y * y, dre_dy = -6 * x * y;
    double dim_dx = 6 * x * y, dim_dy = 3 * x * x - 3 * y * y;
    G2 g = __enzyme_autodiff2((void *)cube_pair, x, y);
    ZY_CHECK2("struct pair dx", g.dx, dre_dx + 2 * dim_dx,
              ZY_DIFF(t, x, cube_pair(t, y)));
    ZY_CHECK2("struct pair dy", g.dy, dre_dy + 2 * dim_dy,
              ZY_DIFF(t, y, cube_pair(x, t)));
    g = __enzyme_autodiff2((void *)cube_pair_call, x, y);
    ZY_CHECK2("struct pair call dx", g.dx, dre_dx + 2 * dim_dx,
              ZY_DIFF(t, x, cube_pair_call(t, y)));
    ZY_CHECK2("struct pair call dy", g.dy, dre_dy + 2 * dim_dy,
              ZY_DIFF(t, y, cube_pair_call(x, t)));
    ZY_CHECK2("mixed struct", __enzyme_autodiff((void *)use_mixed, x),
              9 * x * x + 6, ZY_DIFF(t, x, use_mixed(t)));
    /* z^2 = (x^2 - y^2) + i 2xy; f = (x^2 - y^2) 2xy */
    g = __enzyme_autodiff2((void *)complex_call, x, y);
    ZY_CHECK2("complex call dx", g.dx, 2 * x * 2 * x * y + (x * x - y * y) * 2 * y,
              ZY_DIFF(t, x, complex_call(t, y)));
    ZY_CHECK2("complex call dy", g.dy, -2 * y * 2 * x * y + (x * x - y * y) * 2 * x,
              ZY_DIFF(t, y, complex_call(x, t)));
    /* z^3 + 2z: re = x^3 - 3xy^2 + 2x, im = 3x^2y - y^3 + 2y */
    g = __enzyme_autodiff2((void *)complex_inline, x, y);
    ZY_CHECK2("complex dx", g.dx, dre_dx + 2 - 3 * dim_dx,
              ZY_DIFF(t, x, complex_inline(t, y)));
    ZY_CHECK2("complex dy", g.dy, dre_dy - 3 * (dim_dy + 2),
              ZY_DIFF(t, y, complex_inline(x, t)));
  }
  return zy_report();
}
