// Gradients through acyclic control flow: if/else chains, early returns,
// nested branches, ternaries (select), switch on a constant and on a value
// derived from the input, and branches where one side is constant.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O0 -fno-math-errno %s -lm -o %t4 && %t4
// RUN: %clang -O2 -fno-math-errno %s -lm -o %t5 && %t5
// RUN: %clang -O2 -ffast-math %s -lm -o %tf && %tf
#include "fd.h"

double __enzyme_autodiff(void *, ...);
typedef struct { double dx, dy; } G2;
G2 __enzyme_autodiff2(void *, ...);

double piecewise(double x) {
  double r;
  if (x < 0)
    r = x * x;
  else if (x < 1)
    r = sin(x);
  else
    r = exp(x);
  return r * x;
}
static double piecewise_d(double x) {
  if (x < 0)
    return 3 * x * x;
  if (x < 1)
    return cos(x) * x + sin(x);
  return exp(x) * (x + 1);
}

double early(double x, double y) {
  if (x > y)
    return x * y;
  if (x * y > 1)
    return x / y;
  double t = x + y;
  return t * t * t;
}

double nested(double x, double y) {
  double a = x * y, b;
  if (x > 0) {
    if (y > 0)
      b = a * a;
    else
      b = a + x;
  } else {
    b = y > 0 ? sin(a) : cos(x);
  }
  return b + a;
}

double sel(double x, double y) {
  double m = x > y ? x * y : x + y;
  double n = (x > 0 && y > 0) ? log(x * y) : m * x;
  return m + n;
}

double sw_const(double x, int k) {
  switch (k) {
  case 0:
    return x;
  case 1:
    return x * x;
  case 2:
    return sin(x);
  case 7:
    return exp(2 * x);
  case 3:
  case 4:
  case 5:
    return x * 3;
  default:
    return 1 / x;
  }
}
static double sw_const_d(double x, int k) {
  switch (k) {
  case 0: return 1;
  case 1: return 2 * x;
  case 2: return cos(x);
  case 7: return 2 * exp(2 * x);
  case 3: case 4: case 5: return 3;
  default: return -1 / (x * x);
  }
}

/* The switch value depends on x, but only through fptosi. */
double sw_value(double x) {
  double r = x;
  switch ((int)floor(x)) {
  case -3: r = x * x; break;
  case -2: r = 4 * x; /* fall through */
  case -1: r += x * x * x; break;
  case 0: r = sqrt(x + 1); break;
  case 2: break;
  default: r = tanh(x);
  }
  return r * 2;
}
static double sw_value_d(double x) {
  switch ((int)floor(x)) {
  case -3: return 4 * x;
  case -2: return 2 * (4 + 3 * x * x);
  case -1: return 2 * (1 + 3 * x * x);
  case 0: return 1 / sqrt(x + 1);
  case 2: return 2;
  default: return 2 * (1 - tanh(x) * tanh(x));
  }
}

double one_side_const(double x) {
  if (x > 2)
    return 5.0;
  return x * x;
}

/* A value computed before the branch and used after the merge. */
double diamond(double x, double y) {
  double a = x * x, b = y;
  if (a > y)
    a = a * 3, b = b * x;
  else
    b = sin(b);
  return a * b + x;
}

int main(void) {
  static const double px[] = {-1.5, 0.4, 1.7, 2.6, -2.2, -0.3};
  static const double py[] = {0.75, -0.5, 1.9, 0.3, -1.1, 2.4};
  for (int i = 0; i < 6; i++) {
    double x = px[i], y = py[i];
    ZY_CHECK2("piecewise", __enzyme_autodiff((void *)piecewise, x),
              piecewise_d(x), ZY_DIFF(t, x, piecewise(t)));
    G2 g = __enzyme_autodiff2((void *)early, x, y);
    zy_check_close("early dx", g.dx, ZY_DIFF(t, x, early(t, y)), ZY_FD_TOL);
    zy_check_close("early dy", g.dy, ZY_DIFF(t, y, early(x, t)), ZY_FD_TOL);
    g = __enzyme_autodiff2((void *)nested, x, y);
    zy_check_close("nested dx", g.dx, ZY_DIFF(t, x, nested(t, y)), ZY_FD_TOL);
    zy_check_close("nested dy", g.dy, ZY_DIFF(t, y, nested(x, t)), ZY_FD_TOL);
    g = __enzyme_autodiff2((void *)sel, x, y);
    zy_check_close("select dx", g.dx, ZY_DIFF(t, x, sel(t, y)), ZY_FD_TOL);
    zy_check_close("select dy", g.dy, ZY_DIFF(t, y, sel(x, t)), ZY_FD_TOL);
    for (int k = 0; k < 9; k++)
      zy_check_close("switch on constant",
                     __enzyme_autodiff((void *)sw_const, x, k), sw_const_d(x, k),
                     ZY_TOL);
    double w = x * 1.3 + 0.1; /* not near an integer */
    ZY_CHECK2("switch on value", __enzyme_autodiff((void *)sw_value, w),
              sw_value_d(w), ZY_DIFF(t, w, sw_value(t)));
    zy_check_close("constant branch", __enzyme_autodiff((void *)one_side_const, x),
                   x > 2 ? 0 : 2 * x, ZY_TOL);
    g = __enzyme_autodiff2((void *)diamond, x, y);
    zy_check_close("diamond dx", g.dx, ZY_DIFF(t, x, diamond(t, y)), ZY_FD_TOL);
    zy_check_close("diamond dy", g.dy, ZY_DIFF(t, y, diamond(x, t)), ZY_FD_TOL);
  }
  return zy_report();
}
