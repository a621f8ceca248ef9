// Gradients of _Float16 code: arithmetic (computed in float by clang, or in
// half with -ffloat16-excess-precision=none), half intrinsics (fabs, fma,
// floor, maxnum, copysign; sqrt, sin, exp, log, pow with -fno-math-errno)
// and float libm calls on converted halves, against closed forms.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O0 -fno-math-errno %s -lm -o %t4 && %t4
// RUN: %clang -O2 -fno-math-errno %s -lm -o %t5 && %t5
// RUN: %clang -O2 -Xclang -ffloat16-excess-precision=none %s -lm -o %t6 && %t6
// RUN: %clang -O2 -ffast-math %s -lm -o %tf && %tf
// RUN: %clang -O2 -fno-builtin %s -lm -o %tb && %tb
#include "fd.h"

typedef _Float16 h16;
h16 __enzyme_autodiff(void *, ...);
double __enzyme_autodiff_d(void *, ...);
typedef struct { h16 dx, dy; } H2;
H2 __enzyme_autodiff2(void *, ...);
typedef struct { h16 dx, dy, dz; } H3;
H3 __enzyme_autodiff3(void *, ...);

/* half has an 11-bit significand */
#define TOLH 4e-3

h16 arith(h16 x, h16 y) { return x * y + x / y - y; }
h16 square(h16 x) { return x * x; }
h16 intrin(h16 x) {
  return __builtin_fabsf16(x) * __builtin_floorf16(x) +
         __builtin_copysignf16(x, (h16)-1.0);
}
h16 fma16(h16 x, h16 y, h16 z) { return __builtin_fmaf16(x, y, z); }
h16 max16(h16 x, h16 y) { return __builtin_fmaxf16(x, y); }
h16 via_float(h16 x) { return (h16)sinf((float)x); }
#ifdef __NO_MATH_ERRNO__
h16 math16(h16 x) {
  return __builtin_sqrtf16(x) + __builtin_sinf16(x) + __builtin_expf16(x) +
         __builtin_logf16(x) + __builtin_powf16(x, (h16)1.5);
}
#endif

int main(void) {
  static const double pts[] = {0.75, -1.25, 1.5};
  for (int i = 0; i < 3; i++) {
    double x = pts[i], y = 0.5 - x, z = 2.0;
    H2 g = __enzyme_autodiff2((void *)arith, (h16)x, (h16)y);
    zy_check_close("arith dx", g.dx, y + 1 / y, TOLH);
    zy_check_close("arith dy", g.dy, x - x / (y * y) - 1, TOLH);
    zy_check_close("x*x", __enzyme_autodiff((void *)square, (h16)x), 2 * x,
                   TOLH);
    zy_check_close("x*x, double result",
                   __enzyme_autodiff_d((void *)square, (h16)x), 2 * x, TOLH);
    zy_check_close("fabs*floor + copysign",
                   __enzyme_autodiff((void *)intrin, (h16)x),
                   copysign(1, x) * floor(x) - copysign(1, x), TOLH);
    H3 g3 = __enzyme_autodiff3((void *)fma16, (h16)x, (h16)y, (h16)z);
    zy_check_close("fma dx", g3.dx, y, TOLH);
    zy_check_close("fma dy", g3.dy, x, TOLH);
    zy_check_close("fma dz", g3.dz, 1, TOLH);
    g = __enzyme_autodiff2((void *)max16, (h16)x, (h16)y);
    zy_check_close("fmax dx", g.dx, x > y, TOLH);
    zy_check_close("fmax dy", g.dy, x <= y, TOLH);
    zy_check_close("sinf on half", __enzyme_autodiff((void *)via_float, (h16)x),
                   cos(x), TOLH);
#ifdef __NO_MATH_ERRNO__
    double p = fabs(x);
    zy_check_close("half math", __enzyme_autodiff((void *)math16, (h16)p),
                   0.5 / sqrt(p) + cos(p) + exp(p) + 1 / p + 1.5 * sqrt(p),
                   TOLH);
#endif
  }
  return zy_report();
}
