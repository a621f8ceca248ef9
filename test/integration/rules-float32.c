// Gradients of float code: arithmetic, the float (f-suffixed) libm
// functions and their float intrinsics, with float and {float, float}
// results, against double closed forms at float tolerance.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O0 -fno-math-errno %s -lm -o %t4 && %t4
// RUN: %clang -O2 -fno-math-errno %s -lm -o %t5 && %t5
// RUN: %clang -O2 -ffast-math %s -lm -o %tf && %tf
// RUN: %clang -O2 -fno-builtin %s -lm -o %tb && %tb
#define _GNU_SOURCE
#include "fd.h"

float __enzyme_autodiff(void *, ...);
double __enzyme_autodiff_d(void *, ...);
typedef struct { float dx, dy; } F2;
F2 __enzyme_autodiff2(void *, ...);
typedef struct { float dx, dy, dz; } F3;
F3 __enzyme_autodiff3(void *, ...);

#define TOLF 1e-6

#define W1(fn) float w_##fn(float x) { return fn(x); }
#define W2(fn) float w_##fn(float x, float y) { return fn(x, y); }
W1(sinf) W1(cosf) W1(tanf) W1(asinf) W1(acosf) W1(atanf)
W1(sinhf) W1(coshf) W1(tanhf) W1(asinhf) W1(acoshf) W1(atanhf)
W1(expf) W1(exp2f) W1(exp10f) W1(expm1f) W1(logf) W1(log1pf) W1(log2f)
W1(log10f) W1(sqrtf) W1(cbrtf) W1(erff) W1(erfcf) W1(tgammaf) W1(lgammaf)
W1(fabsf) W1(floorf) W1(ceilf) W1(truncf) W1(roundf) W1(rintf)
W2(atan2f) W2(powf) W2(hypotf) W2(fminf) W2(fmaxf) W2(fmodf) W2(copysignf)
float w_fmaf(float x, float y, float z) { return fmaf(x, y, z); }
float w_arith(float x, float y) { return (x * y - x / y) * -x + x * x * y; }
float powi(float x) { return __builtin_powif(x, 3); }
/* float code called with a double result requested */
float poly(float x) { return x * x * x; }

static double digamma(double x) {
  double acc = 0;
  while (x < 30)
    acc -= 1 / x, x += 1;
  double f = 1 / (x * x);
  return acc + log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f / 252));
}

#define C1(fn, at, want)                                                       \
  do {                                                                         \
    double x = (float)(at);                                                    \
    zy_check_close(#fn, __enzyme_autodiff((void *)w_##fn, (float)x), (want),   \
                   TOLF);                                                      \
  } while (0)
#define C2(fn, at, bt, wx, wy)                                                 \
  do {                                                                         \
    double x = (float)(at), y = (float)(bt);                                   \
    F2 g = __enzyme_autodiff2((void *)w_##fn, (float)x, (float)y);             \
    zy_check_close(#fn " dx", g.dx, (wx), TOLF);                               \
    zy_check_close(#fn " dy", g.dy, (wy), TOLF);                               \
  } while (0)

int main(void) {
  static const double pts[] = {0.7, -1.3, 2.1};
  for (int i = 0; i < 3; i++) {
    double p = pts[i], a = p / 2.5, c = 1 + fabs(p), q = fabs(p) + 0.2;
    C1(sinf, p, cos(x));
    C1(cosf, p, -sin(x));
    C1(tanf, p, 1 / (cos(x) * cos(x)));
    C1(asinf, a, 1 / sqrt(1 - x * x));
    C1(acosf, a, -1 / sqrt(1 - x * x));
    C1(atanf, p, 1 / (1 + x * x));
    C1(sinhf, p, cosh(x));
    C1(coshf, p, sinh(x));
    C1(tanhf, p, 1 / (cosh(x) * cosh(x)));
    C1(asinhf, p, 1 / sqrt(x * x + 1));
    C1(acoshf, c, 1 / sqrt(x * x - 1));
    C1(atanhf, a, 1 / (1 - x * x));
    C1(expf, p, exp(x));
    C1(exp2f, p, exp2(x) * M_LN2);
    C1(exp10f, p, exp10(x) * M_LN10);
    C1(expm1f, p, exp(x));
    C1(logf, q, 1 / x);
    C1(log1pf, a, 1 / (1 + x));
    C1(log2f, q, 1 / (x * M_LN2));
    C1(log10f, q, 1 / (x * M_LN10));
    C1(sqrtf, q, 0.5 / sqrt(x));
    C1(cbrtf, p, 1 / (3 * cbrt(x) * cbrt(x)));
    C1(erff, p, 2 / sqrt(M_PI) * exp(-x * x));
    C1(erfcf, p, -2 / sqrt(M_PI) * exp(-x * x));
    C1(tgammaf, p + 0.05, tgamma(x) * digamma(x));
    C1(lgammaf, p + 0.05, digamma(x));
    C1(fabsf, p, x < 0 ? -1 : 1);
    C1(floorf, p, 0);
    C1(ceilf, p, 0);
    C1(truncf, p, 0);
    C1(roundf, p, 0);
    C1(rintf, p, 0);
    double r = 0.9 - p, r2;
    r2 = (float)p * (float)p + (float)r * (float)r;
    C2(atan2f, p, r, y / r2, -x / r2);
    C2(powf, q, r, y * pow(x, y - 1), pow(x, y) * log(x));
    C2(hypotf, p, r, x / hypot(x, y), y / hypot(x, y));
    C2(fminf, p, r, x < y, x >= y);
    C2(fmaxf, p, r, x > y, x <= y);
    C2(fmodf, p * 3, 0.8, 1, -trunc(x / y));
    C2(copysignf, p, r, copysign(1, x) * copysign(1, y), 0);
    C2(arith, p, r, 2 * x * -y + 2 * x / y + 2 * x * y, -x * x - x * x / (y * y) + x * x);

    double x = (float)p, y = (float)r, z = (float)(p * 1.9);
    F3 g = __enzyme_autodiff3((void *)w_fmaf, (float)x, (float)y, (float)z);
    zy_check_close("fmaf dx", g.dx, y, TOLF);
    zy_check_close("fmaf dy", g.dy, x, TOLF);
    zy_check_close("fmaf dz", g.dz, 1, TOLF);
    zy_check_close("__builtin_powif", __enzyme_autodiff((void *)powi, (float)x),
                   3 * x * x, TOLF);
    zy_check_close("float fn, double result",
                   __enzyme_autodiff_d((void *)poly, (float)x), 3 * x * x, TOLF);
  }
  return zy_report();
}
