// Regression: the bits of a double passed as an integer to a function that
// is not inlined into the differentiated copy (a recursive one, which
// passes them on to itself; one too large to inline; one taking two sets
// of bits; one storing the double into memory with a shadow) keep their
// derivative: the call goes to a twin of the function taking the double
// (`<f>.zymase.float.<mask>`), into which the bits are followed.  Before,
// the integer argument carried no derivative and nothing said so: the
// gradient of through_rec was 0 instead of 127.575 at -O0 and -O2, that of
// through_big 0 instead of 3 at -O0.  Closed forms, -O0 and -O2; the
// program's own functions are unchanged (their values are checked too).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 2>&1 | %FileCheck %s --allow-empty
// RUN: %t0
// RUN: %clang -O2 %s -lm -o %t2 2>&1 | %FileCheck %s --allow-empty
// RUN: %t2
// RUN: %valgrind %t0
// CHECK-NOT: warning:
#include "check.h"

#include <stdint.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

static double from_bits(uint64_t b) {
  double d;
  memcpy(&d, &b, sizeof d);
  return d;
}
static uint64_t to_bits(double d) {
  uint64_t b;
  memcpy(&b, &d, sizeof b);
  return b;
}

/* Scales the double 1.5 times per level and squares it at the bottom,
 * doubling the result on the way back: 2^n (1.5^n d)^2. */
double rec(uint64_t bits, int n) {
  if (n == 0) {
    double d = from_bits(bits);
    return d * d;
  }
  return 2 * rec(to_bits(from_bits(bits) * 1.5), n - 1);
}
double through_rec(double x) { return rec(to_bits(x), 3); }

/* More than the inliner of the copy takes (400 instructions): a checksum
 * of the bits, then the double times y. */
#define S(k) acc = acc * 1.0000001 + (double)((b >> ((k) % 61)) & 1);
#define S10(k)                                                                 \
  S(k * 10)                                                                    \
  S(k * 10 + 1) S(k * 10 + 2) S(k * 10 + 3) S(k * 10 + 4) S(k * 10 + 5)        \
      S(k * 10 + 6) S(k * 10 + 7) S(k * 10 + 8) S(k * 10 + 9)
static double checksum;
__attribute__((noinline)) double big(uint64_t b, double y) {
  double acc = 0;
  S10(1)
  S10(2) S10(3) S10(4) S10(5) S10(6) S10(7) S10(8) S10(9) S10(10) S10(11)
      S10(12) S10(13) S10(14) S10(15);
  checksum = acc;
  return from_bits(b) * y;
}
double through_big(double x) { return big(to_bits(x), 3.0) * x; }

/* Two sets of bits and an integer: sin(u) v^2 k. */
__attribute__((noinline)) double two(uint64_t u, int k, uint64_t v) {
  uint64_t b = u ^ v;
  double acc = 0;
  S10(1)
  S10(2) S10(3) S10(4) S10(5) S10(6) S10(7) S10(8) S10(9) S10(10) S10(11)
      S10(12) S10(13) S10(14) S10(15);
  checksum += acc;
  return sin(from_bits(u)) * from_bits(v) * from_bits(v) * k;
}
double through_two(double x, double y) {
  return two(to_bits(x), 3, to_bits(y * x));
}

/* Stores the double whose bits it gets into memory with a shadow, on
 * every level of a recursion. */
void put(uint64_t bits, double *out, int n) {
  if (n == 0)
    return;
  out[n - 1] = from_bits(bits) * n;
  put(to_bits(from_bits(bits) + 1.0), out, n - 1);
}
double through_put(double x, double *out) {
  put(to_bits(x * x), out, 3);
  return out[0] * out[1] + out[2];
}

typedef struct {
  double dx, dy;
} G2;
G2 __enzyme_autodiff2(void *, ...);

int main(void) {
  for (int i = -2; i <= 2; i++) {
    double x = i / 2.0 + 0.3, y = 0.7 - i / 4.0;
    char what[80];
    /* 8 (1.5^3 x)^2 */
    snprintf(what, sizeof what, "through_rec at %g", x);
    zy_check_close(what, __enzyme_autodiff((void *)through_rec, x),
                   16 * pow(1.5, 6) * x, 1e-13);
    zy_check_close("rec primal", through_rec(x), 8 * pow(1.5, 6) * x * x,
                   1e-13);
    /* 3 x^2 */
    snprintf(what, sizeof what, "through_big at %g", x);
    zy_check_close(what, __enzyme_autodiff((void *)through_big, x), 6 * x,
                   1e-13);
    /* 3 sin(x) (x y)^2 */
    G2 g = __enzyme_autodiff2((void *)through_two, x, y);
    double want_dx = 3 * cos(x) * x * x * y * y + 6 * sin(x) * x * y * y;
    snprintf(what, sizeof what, "through_two dx at %g, %g", x, y);
    zy_check_close(what, g.dx, want_dx, 1e-13);
    snprintf(what, sizeof what, "through_two dy at %g, %g", x, y);
    zy_check_close(what, g.dy, 6 * sin(x) * x * x * y, 1e-13);
    /* out = {(x^2+2), 2 (x^2+1), 3 x^2}: (x^2+2) 2 (x^2+1) + 3 x^2 */
    double out[3], dout[3] = {0};
    double d = __enzyme_autodiff((void *)through_put, x, enzyme_dup, out, dout);
    double s = x * x;
    snprintf(what, sizeof what, "through_put at %g", x);
    zy_check_close(what, d, 2 * x * 2 * (s + 1) + (s + 2) * 2 * 2 * x + 6 * x,
                   1e-13);
    zy_check_close("put primal", out[0] * out[1] + out[2],
                   (s + 2) * 2 * (s + 1) + 3 * s, 1e-13);
  }
  return zy_report();
}
