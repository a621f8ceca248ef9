/* nvvm_math.c - the nvvm arithmetic intrinsics that libdevice's bodies
 * use (a CUDA program compiled with libdevice, `zymase-clang --gpu-on-cpu
 * --libdevice`), on the host: rounding modes through <fenv.h> (this file
 * is compiled with -frounding-math), `ftz` flushing subnormal floats to
 * zero, `approx` computed exactly.  One row of lib/gpu/intrinsics.def
 * each, with the intrinsic's signature.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "zymase_gpu.h"

#include <fenv.h>
#include <math.h>
#include <string.h>

static float ftz(float x) {
  return fpclassify(x) == FP_SUBNORMAL ? copysignf(0.0f, x) : x;
}

/* An operation under rounding mode `mode`. */
#define ZG_ROUNDED(mode, expr)                                                 \
  do {                                                                         \
    int old_ = fegetround();                                                   \
    fesetround(mode);                                                          \
    volatile __typeof__(expr) r_ = (expr);                                     \
    fesetround(old_);                                                          \
    return r_;                                                                 \
  } while (0)

/* add/mul/div .rn/.rz/.rm/.rp of doubles, floats and flushed floats. */
#define ZG_BINARY(op, name, sym)                                               \
  double __zy_nvvm_##name##_d(double a, double b) { ZG_ROUNDED(op, a sym b); } \
  float __zy_nvvm_##name##_f(float a, float b) { ZG_ROUNDED(op, a sym b); }    \
  float __zy_nvvm_##name##_ftz_f(float a, float b) {                           \
    float r = __zy_nvvm_##name##_f(ftz(a), ftz(b));                            \
    return ftz(r);                                                             \
  }
#define ZG_MODES(name, sym)                                                    \
  ZG_BINARY(FE_TONEAREST, name##_rn, sym)                                      \
  ZG_BINARY(FE_TOWARDZERO, name##_rz, sym)                                     \
  ZG_BINARY(FE_DOWNWARD, name##_rm, sym)                                       \
  ZG_BINARY(FE_UPWARD, name##_rp, sym)
ZG_MODES(add, +)
ZG_MODES(mul, *)
ZG_MODES(div, /)
#undef ZG_MODES
#undef ZG_BINARY

#define ZG_FMA(op, name)                                                       \
  double __zy_nvvm_fma_##name##_d(double a, double b, double c) {              \
    ZG_ROUNDED(op, fma(a, b, c));                                              \
  }                                                                            \
  float __zy_nvvm_fma_##name##_f(float a, float b, float c) {                  \
    ZG_ROUNDED(op, fmaf(a, b, c));                                             \
  }                                                                            \
  float __zy_nvvm_fma_##name##_ftz_f(float a, float b, float c) {              \
    return ftz(__zy_nvvm_fma_##name##_f(ftz(a), ftz(b), ftz(c)));              \
  }
ZG_FMA(FE_TONEAREST, rn)
ZG_FMA(FE_TOWARDZERO, rz)
ZG_FMA(FE_DOWNWARD, rm)
ZG_FMA(FE_UPWARD, rp)
#undef ZG_FMA

/* Unary functions of doubles, floats and flushed floats. */
#define ZG_UNARY(name, dexpr, fexpr)                                           \
  double __zy_nvvm_##name##_d(double x) { return dexpr; }                      \
  float __zy_nvvm_##name##_f(float x) { return fexpr; }                        \
  float __zy_nvvm_##name##_ftz_f(float x) {                                    \
    float y = ftz(x);                                                          \
    (void)y;                                                                   \
    return ftz(__zy_nvvm_##name##_f(y));                                       \
  }
ZG_UNARY(sqrt_rn, sqrt(x), sqrtf(x))
ZG_UNARY(sqrt_approx, sqrt(x), sqrtf(x))
ZG_UNARY(rsqrt_approx, 1 / sqrt(x), 1 / sqrtf(x))
ZG_UNARY(rcp_approx, 1 / x, 1 / x)
ZG_UNARY(ex2_approx, exp2(x), exp2f(x))
ZG_UNARY(lg2_approx, log2(x), log2f(x))
ZG_UNARY(sin_approx, sin(x), sinf(x))
ZG_UNARY(cos_approx, cos(x), cosf(x))
ZG_UNARY(fabs, fabs(x), fabsf(x))
ZG_UNARY(floor, floor(x), floorf(x))
ZG_UNARY(ceil, ceil(x), ceilf(x))
ZG_UNARY(trunc, trunc(x), truncf(x))
ZG_UNARY(round, nearbyint(x), nearbyintf(x)) /* cvt.rni: ties to even */
ZG_UNARY(saturate, x > 0 ? (x < 1 ? x : 1) : 0, x > 0 ? (x < 1 ? x : 1) : 0)
#undef ZG_UNARY

#define ZG_MINMAX(name, fn)                                                    \
  double __zy_nvvm_##name##_d(double a, double b) { return fn(a, b); }         \
  float __zy_nvvm_##name##_f(float a, float b) { return fn##f(a, b); }         \
  float __zy_nvvm_##name##_ftz_f(float a, float b) {                           \
    return ftz(fn##f(ftz(a), ftz(b)));                                         \
  }
ZG_MINMAX(fmin, fmin)
ZG_MINMAX(fmax, fmax)
#undef ZG_MINMAX

/* Bits of a double. */
int __zy_nvvm_d2i_hi(double x) {
  uint64_t b;
  memcpy(&b, &x, 8);
  return (int)(uint32_t)(b >> 32);
}
int __zy_nvvm_d2i_lo(double x) {
  uint64_t b;
  memcpy(&b, &x, 8);
  return (int)(uint32_t)b;
}
double __zy_nvvm_lohi_i2d(int lo, int hi) {
  uint64_t b = (uint64_t)(uint32_t)hi << 32 | (uint32_t)lo;
  double x;
  memcpy(&x, &b, 8);
  return x;
}

/* Conversions to int: saturating, NaN to 0 (cvt.rni/.rzi.s32). */
static int to_int(double r) {
  if (r != r)
    return 0;
  if (r >= 2147483647.0)
    return 2147483647;
  if (r <= -2147483648.0)
    return (int)-2147483647 - 1;
  return (int)r;
}
int __zy_nvvm_d2i_rn(double x) { return to_int(nearbyint(x)); }
int __zy_nvvm_d2i_rz(double x) { return to_int(trunc(x)); }
int __zy_nvvm_f2i_rn(float x) { return to_int(nearbyintf(x)); }
int __zy_nvvm_f2i_rz(float x) { return to_int(truncf(x)); }
int __zy_nvvm_f2i_rn_ftz(float x) { return to_int(nearbyintf(ftz(x))); }
int __zy_nvvm_f2i_rz_ftz(float x) { return to_int(truncf(ftz(x))); }
