// C++ programs written for Enzyme often declare the entry points without
// extern "C", so their names are mangled (_Z17__enzyme_autodiffPvd...).
// They were not recognized and the program failed to link; they are
// lowered as the C names, and a mangled name of Enzyme's interface that
// Zymase lacks is a located error (test/errors/cxx-mangled-unknown.cpp).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lstdc++ -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lstdc++ -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O1 %s -lstdc++ -lm -o %t1 && %t1 %}
#include <cmath>
#include <cstdio>

#include "check.h"

extern int enzyme_const, enzyme_dup;
// Typed and variadic declarations, with and without a suffix.
double __enzyme_autodiff(void *, double);
double __enzyme_autodiff2(void *, ...);
struct G2 {
  double dx, dy;
};
G2 __enzyme_autodiff_pair(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

static double f(double x) { return x * std::sin(x); }
static double g(double x, double y, double k) { return std::exp(x * y) * k; }
static void h(double *x) { x[0] = x[0] * x[0] * x[1]; }

int main() {
  double x = 0.7, y = -0.4, k = 1.5;
  zy_check_close("f'", __enzyme_autodiff((void *)f, x),
                 std::sin(x) + x * std::cos(x), 1e-14);
  zy_check_close("dg/dx (const y)",
                 __enzyme_autodiff2((void *)g, x, enzyme_const, y, enzyme_const, k),
                 y * std::exp(x * y) * k, 1e-14);
  G2 d = __enzyme_autodiff_pair((void *)g, x, y, enzyme_const, k);
  zy_check_close("dg/dx", d.dx, y * std::exp(x * y) * k, 1e-14);
  zy_check_close("dg/dy", d.dy, x * std::exp(x * y) * k, 1e-14);
  double v[2] = {x, y}, dv[2] = {1, 0};
  void *tape = __enzyme_augmentfwd((void *)h, enzyme_dup, v, dv);
  __enzyme_reverse((void *)h, enzyme_dup, v, dv, tape);
  zy_check_close("h primal", v[0], x * x * y, 1e-15);
  zy_check_close("dh/dx0", dv[0], 2 * x * y, 1e-14);
  zy_check_close("dh/dx1", dv[1], x * x, 1e-14);
  return zy_report();
}
int enzyme_const, enzyme_dup;
