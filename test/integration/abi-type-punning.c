// Type punning: floating-point values moved unchanged through integer
// memory or registers (memcpy into a uint64_t, a union, an integer buffer,
// a select of bits, helpers returning the bits, bytes of unknown type
// copied over a double) keep their derivatives; bits only inspected (a
// sign test) drop none; bits changed by integer arithmetic and read back as a
// float (the fast inverse square root) make that float a constant, with
// a warning.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 2>%t0.err && %t0 && %FileCheck %s < %t0.err
// RUN: %clang -O2 %s -lm -o %t2 2>%t2.err && %t2 && %FileCheck %s < %t2.err
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %valgrind %t2
// CHECK: warning: [zymase:unsupported] 'q_rsqrt': the bits of a floating-point value are changed by integer operations and read back as a float: no derivative flows through them (the result is a constant)
#include "check.h"

#include <stdint.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_const;
typedef struct { double dx, dy; } G2;

double through_u64(double x) {
  uint64_t b;
  double y;
  memcpy(&b, &x, sizeof b);
  memcpy(&y, &b, sizeof y);
  return y * y * x;
}

double through_union(double x) {
  union { double d; uint64_t u; } a, b;
  a.d = x * x;
  b.u = a.u;
  return sin(b.d);
}

/* An array of doubles copied through an integer buffer. */
double through_buffer(const double *xs, int n) {
  uint64_t tmp[4];
  double ys[4];
  memcpy(tmp, xs, n * sizeof *xs);
  memcpy(ys, tmp, n * sizeof *ys);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += ys[i] * ys[i] * (i + 1);
  return s;
}

/* Only the sign bit is looked at. */
double sign_test(double x) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  return b >> 63 ? -x * x : x * x * x;
}

/* Bytes of unknown type (an enzyme_const char *) copied over a double
 * with a shadow: the double read before gets its derivative, the one
 * overwritten none. */
double bytes_over(double *x, double *y, const char *bytes) {
  double r = y[0] * x[0];
  memcpy(y, bytes, 8);
  return r + y[0] * x[0];
}

/* Bits chosen by a select, then read back as a float. */
static uint32_t bits_of(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static float float_of(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
double pick_bits(double x, double y) {
  uint32_t a = bits_of((float)x), b = bits_of((float)(y * y));
  uint32_t c = x > y ? a : b;
  return float_of(c) * 3;
}

/* The fast inverse square root: the magic line gives a constant first
 * guess y0; the Newton step's derivative with y0 fixed remains. */
float q_rsqrt(float number) {
  float x2 = number * 0.5F, y = number;
  uint32_t i;
  memcpy(&i, &y, 4);
  i = 0x5f3759df - (i >> 1);
  memcpy(&y, &i, 4);
  return y * (1.5F - (x2 * y * y));
}

int main(void) {
  double x = 0.8, y = -1.3;
  zy_check_close("through a uint64_t", __enzyme_autodiff((void *)through_u64, x),
                 3 * x * x, 1e-14);
  zy_check_close("through a union", __enzyme_autodiff((void *)through_union, x),
                 cos(x * x) * 2 * x, 1e-14);
  double xs[4] = {0.5, -1.5, 2.0, 0.25}, dxs[4] = {0};
  __enzyme_autodiff((void *)through_buffer, xs, dxs, 4);
  for (int i = 0; i < 4; i++)
    zy_check_close("through an integer buffer", dxs[i], 2 * xs[i] * (i + 1),
                   1e-14);
  zy_check_close("sign test, positive", __enzyme_autodiff((void *)sign_test, x),
                 3 * x * x, 1e-14);
  zy_check_close("sign test, negative", __enzyme_autodiff((void *)sign_test, y),
                 -2 * y, 1e-14);
  double bx = 1.25, dbx = 0, by = -0.5, dby = 0, other = 4.0;
  __enzyme_autodiff((void *)bytes_over, &bx, &dbx, &by, &dby, enzyme_const,
                    (const char *)&other);
  zy_check_close("bytes over a double: dx", dbx, -0.5 + 4.0, 1e-14);
  zy_check_close("bytes over a double: dy", dby, 1.25, 1e-14);
  G2 g = ((G2(*)(void *, ...))__enzyme_autodiff)((void *)pick_bits, x, y);
  zy_check_close("select of bits: dx", g.dx, 3, 1e-6);
  zy_check_close("select of bits: dy", g.dy, 0, 1e-6);
  g = ((G2(*)(void *, ...))__enzyme_autodiff)((void *)pick_bits, y, x);
  zy_check_close("select of bits, other side: dx", g.dx, 0, 1e-6);
  zy_check_close("select of bits, other side: dy", g.dy, 3 * 2 * x, 1e-6);
  float n = 2.0f;
  uint32_t i;
  memcpy(&i, &n, 4);
  i = 0x5f3759df - (i >> 1);
  float y0;
  memcpy(&y0, &i, 4);
  zy_check_close("fast inverse square root: y0 constant",
                 __enzyme_autodiff((void *)q_rsqrt, n), -0.5 * y0 * y0 * y0,
                 1e-6);
  return zy_report();
}
