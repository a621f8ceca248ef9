// Gradients of the less common rules: ldexp, fdim, remainder,
// llvm.canonicalize, llvm.arithmetic.fence and (clang 22) minimumnum /
// maximumnum, against closed forms and finite differences.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %clang -O0 -fno-math-errno %s -lm -o %t4 && %t4
// RUN: %clang -O2 -fno-math-errno %s -lm -o %t5 && %t5
// RUN: %clang -O2 -ffast-math %s -lm -o %tf && %tf
#include "fd.h"

double __enzyme_autodiff(void *, ...);
typedef struct { double dx, dy; } G2;
G2 __enzyme_autodiff2(void *, ...);

double f_ldexp(double x, int n) { return ldexp(x * x, n); }
double f_fdim(double x, double y) { return fdim(x * x, y); }
double f_remainder(double x, double y) { return remainder(x, y); }
#if __clang_major__ >= 22 /* clang 19's x86 backend cannot select it */
double f_canon(double x) { return __builtin_canonicalize(x * x); }
#endif
double f_fence(double x) { return __arithmetic_fence(x * 3.0) * x; }
#if __clang_major__ >= 22
double f_minnum(double x, double y) { return __builtin_fminimum_num(x, y); }
double f_maxnum(double x, double y) { return __builtin_fmaximum_num(x, y); }
#endif

int main(void) {
  static const double xs[] = {1.3, -0.7, 2.2};
  for (int i = 0; i < 3; i++) {
    double x = xs[i];
    ZY_CHECK2("ldexp", __enzyme_autodiff((void *)f_ldexp, x, 3),
              16 * x, ZY_DIFF(t, x, f_ldexp(t, 3)));
    G2 g = __enzyme_autodiff2((void *)f_fdim, x, 0.5);
    double want_x = x * x > 0.5 ? 2 * x : 0, want_y = x * x > 0.5 ? -1 : 0;
    ZY_CHECK2("fdim/dx", g.dx, want_x, ZY_DIFF(t, x, f_fdim(t, 0.5)));
    ZY_CHECK2("fdim/dy", g.dy, want_y, ZY_DIFF(t, 0.5, f_fdim(x, t)));
    g = __enzyme_autodiff2((void *)f_remainder, x * 5, 1.7);
    ZY_CHECK2("remainder/dx", g.dx, 1, ZY_DIFF(t, x * 5, f_remainder(t, 1.7)));
    ZY_CHECK2("remainder/dy", g.dy, -rint(x * 5 / 1.7),
              ZY_DIFF(t, 1.7, f_remainder(x * 5, t)));
#if __clang_major__ >= 22
    ZY_CHECK2("canonicalize", __enzyme_autodiff((void *)f_canon, x), 2 * x,
              ZY_DIFF(t, x, f_canon(t)));
#endif
    ZY_CHECK2("arithmetic_fence", __enzyme_autodiff((void *)f_fence, x), 6 * x,
              ZY_DIFF(t, x, f_fence(t)));
#if __clang_major__ >= 22
    g = __enzyme_autodiff2((void *)f_minnum, x, 0.25);
    zy_check_close("minimumnum/dx", g.dx, x < 0.25 ? 1 : 0, ZY_TOL);
    zy_check_close("minimumnum/dy", g.dy, x < 0.25 ? 0 : 1, ZY_TOL);
    g = __enzyme_autodiff2((void *)f_maxnum, x, 0.25);
    zy_check_close("maximumnum/dx", g.dx, x > 0.25 ? 1 : 0, ZY_TOL);
    zy_check_close("maximumnum/dy", g.dy, x > 0.25 ? 0 : 1, ZY_TOL);
#endif
  }
  return zy_report();
}
