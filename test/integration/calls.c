// Gradients through calls to functions with a body: a static helper called
// from two sites (inlined, and kept as calls with noinline), a chain
// f -> g -> h, calls with constant arguments, direct recursion and mutual
// recursion, against closed forms and finite differences.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O0 -fno-math-errno %s -lm -o %t4 && %t4
// RUN: %clang -O2 -fno-math-errno %s -lm -o %t5 && %t5
#include "fd.h"

double __enzyme_autodiff(void *, ...);
typedef struct { double dx, dy; } G2;
G2 __enzyme_autodiff2(void *, ...);

#define NOINLINE __attribute__((noinline))

static double sq(double a) { return a * a * sin(a); }
static NOINLINE double sq_call(double a) { return a * a * sin(a); }
static double sq_d(double a) { return 2 * a * sin(a) + a * a * cos(a); }
double two_sites(double x, double y) { return sq(x) + sq(x * y); }
double two_sites_call(double x, double y) { return sq_call(x) + sq_call(x * y); }

static NOINLINE double h(double a) { return exp(a) / (1 + a * a); }
static NOINLINE double g(double a, double b) { return h(a * b) + b * h(a); }
double chain(double x, double y) { return g(x, y) * x; }

/* A helper whose second argument is always a constant or an integer. */
static NOINLINE double scaled(double a, double c, int n) {
  return c * pow(a, n) + n;
}
double const_args(double x) { return scaled(x, 2.5, 3) + scaled(x * x, x, 2); }

/* A call whose result is used only in a comparison. */
static NOINLINE double pick(double a) { return a * a - 2; }
double cmp_only(double x) { return pick(x) > 0 ? 3 * x : x * x; }

/* Helpers on other precisions, called from double code. */
static NOINLINE float fhelp(float a) { return a * a * 0.5f; }
static NOINLINE long double lhelp(long double a, double b) { return a * b; }
static NOINLINE _Float16 hhelp(_Float16 a) { return a * a; }
double precisions(double x) {
  return fhelp((float)x) * x + (double)lhelp(x, x) + hhelp((_Float16)x);
}

/* Direct recursion: r(x, n) = sin(r(x, n - 1)), r(x, 0) = x. */
NOINLINE double rec(double x, int n) { return n == 0 ? x : sin(rec(x, n - 1)); }
static double rec_d(double x, int n) {
  double d = 1, v = x;
  for (int i = 0; i < n; i++)
    d *= cos(v), v = sin(v);
  return d;
}
/* Direct recursion on two active arguments */
NOINLINE double rec2(double x, double y, int n) {
  if (n <= 0)
    return x * y;
  return rec2(y, x, n - 1) * x + y;
}

/* Mutual recursion */
double mb(double x, int n);
NOINLINE double ma(double x, int n) { return n <= 0 ? x : cos(mb(x, n - 1)); }
NOINLINE double mb(double x, int n) {
  return n <= 0 ? x * x : ma(x, n - 1) * x;
}

int main(void) {
  static const double px[] = {0.8, -1.4, 2.3};
  static const double py[] = {1.2, 0.6, -0.7};
  for (int i = 0; i < 3; i++) {
    double x = px[i], y = py[i];
    G2 r = __enzyme_autodiff2((void *)two_sites, x, y);
    ZY_CHECK2("two sites dx", r.dx, sq_d(x) + y * sq_d(x * y),
              ZY_DIFF(t, x, two_sites(t, y)));
    ZY_CHECK2("two sites dy", r.dy, x * sq_d(x * y),
              ZY_DIFF(t, y, two_sites(x, t)));
    r = __enzyme_autodiff2((void *)two_sites_call, x, y);
    ZY_CHECK2("two call sites dx", r.dx, sq_d(x) + y * sq_d(x * y),
              ZY_DIFF(t, x, two_sites_call(t, y)));
    ZY_CHECK2("two call sites dy", r.dy, x * sq_d(x * y),
              ZY_DIFF(t, y, two_sites_call(x, t)));
    r = __enzyme_autodiff2((void *)chain, x, y);
    zy_check_close("chain dx", r.dx, ZY_DIFF(t, x, chain(t, y)), ZY_FD_TOL);
    zy_check_close("chain dy", r.dy, ZY_DIFF(t, y, chain(x, t)), ZY_FD_TOL);
    ZY_CHECK2("constant args", __enzyme_autodiff((void *)const_args, x),
              7.5 * x * x + 5 * x * x * x * x, ZY_DIFF(t, x, const_args(t)));
    zy_check_close("result only compared",
                   __enzyme_autodiff((void *)cmp_only, x),
                   x * x - 2 > 0 ? 3 : 2 * x, ZY_TOL);
    zy_check_close("float, long double, half helpers",
                   __enzyme_autodiff((void *)precisions, x),
                   1.5 * (float)x * (float)x + 2 * x + 2 * (_Float16)x, 1e-6);
    for (int n = 0; n < 5; n++) {
      ZY_CHECK2("recursion", __enzyme_autodiff((void *)rec, x, n), rec_d(x, n),
                ZY_DIFF(t, x, rec(t, n)));
      r = __enzyme_autodiff2((void *)rec2, x, y, n);
      zy_check_close("recursion, two args dx", r.dx,
                     ZY_DIFF(t, x, rec2(t, y, n)), ZY_FD_TOL);
      zy_check_close("recursion, two args dy", r.dy,
                     ZY_DIFF(t, y, rec2(x, t, n)), ZY_FD_TOL);
      zy_check_close("mutual recursion a", __enzyme_autodiff((void *)ma, x, n),
                     ZY_DIFF(t, x, ma(t, n)), ZY_FD_TOL);
      zy_check_close("mutual recursion b", __enzyme_autodiff((void *)mb, x, n),
                     ZY_DIFF(t, x, mb(t, n)), ZY_FD_TOL);
    }
  }
  return zy_report();
}
