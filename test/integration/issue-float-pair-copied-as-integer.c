// A copy of a struct of two floats becomes one i64 load and store, and the
// fields are read back through trunc/lshr/bitcast: the gradient must flow
// through them (or the copy must be refused); it was silently zero.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -o %t0 2>%t0.err && %t0 || %FileCheck %s --check-prefix=REFUSED < %t0.err
// RUN: %clang -O2 %s -o %t2 2>%t2.err && %t2 || %FileCheck %s --check-prefix=REFUSED < %t2.err
// REFUSED: error: [zymase:unsupported] cannot differentiate 'f': floating-point data {{.*}}integer
#include "check.h"

void __enzyme_autodiff(void *, ...);

struct F2 {
  float x, y;
};

float f(struct F2 *dst, const struct F2 *src) {
  *dst = *src;
  return dst->x * dst->y;
}

int main(void) {
  struct F2 src = {2, 5}, dst = {0}, ds = {0}, dd = {0.5f, 0.25f};
  __enzyme_autodiff((void *)f, &dst, &dd, &src, &ds);
  zy_check_close("d src.x", ds.x, 5 + 0.5, 0);
  zy_check_close("d src.y", ds.y, 2 + 0.25, 0);
  zy_check_close("d dst.x", dd.x, 0, 0);
  zy_check_close("d dst.y", dd.y, 0, 0);
  return zy_report();
}
