// Struct copies where a float field is followed by padding (at the end of
// the struct, or before a double): the padding bytes have no type and must
// not make the copy's types "unknown".  These copies were right before, and
// are refused ("cannot deduce the type of the memory this copy moves") at
// every -O level since every byte of a copy must be typed.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -o %t0 && %t0
// RUN: %clang -O2 %s -o %t2 && %t2
#include "check.h"

void __enzyme_autodiff(void *, ...);

struct S {
  double a;
  float b; /* 4 bytes of padding follow */
  double c;
};

double f(struct S *dst, const struct S *src) {
  *dst = *src;
  return dst->a * dst->b + dst->c;
}

struct FD {
  float x; /* 4 bytes of padding follow */
  double y;
};

double g(struct FD *dst, const struct FD *src) {
  *dst = *src;
  return dst->x * dst->y;
}

int main(void) {
  struct S src = {2, 3, 1}, dst = {0}, ds = {0}, dd = {0.5, 0.25f, 0};
  __enzyme_autodiff((void *)f, &dst, &dd, &src, &ds);
  zy_check_close("f/d src.a", ds.a, 3 + 0.5, 0);
  zy_check_close("f/d src.b", ds.b, 2 + 0.25, 0);
  zy_check_close("f/d src.c", ds.c, 1, 0);
  zy_check_close("f/d dst.a", dd.a, 0, 0);

  struct FD s2 = {2, 5}, d2 = {0}, ds2 = {0}, dd2 = {0.25f, -0.5};
  __enzyme_autodiff((void *)g, &d2, &dd2, &s2, &ds2);
  zy_check_close("g/d src.x", ds2.x, 5 + 0.25, 0);
  zy_check_close("g/d src.y", ds2.y, 2 - 0.5, 0);
  zy_check_close("g/d dst.x", dd2.x, 0, 0);
  zy_check_close("g/d dst.y", dd2.y, 0, 0);
  return zy_report();
}
