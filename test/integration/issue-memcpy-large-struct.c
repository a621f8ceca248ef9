// A copy of a struct larger than 256 bytes whose first field is an int:
// the copy of the doubles after it must move their adjoints (or the copy
// must be refused); the type at offset 0 (int) made the whole copy a no-op
// in the reverse sweep at -O1 and above.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -o %t0 2>%t0.err && %t0 || %FileCheck %s --check-prefix=REFUSED < %t0.err
// RUN: %clang -O2 %s -o %t2 2>%t2.err && %t2 || %FileCheck %s --check-prefix=REFUSED < %t2.err
// REFUSED: error: [zymase:unsupported] cannot differentiate 'copy': cannot deduce the type of the memory this copy moves
#include "check.h"

void __enzyme_autodiff(void *, ...);

struct Big {
  int tag;
  double v[40];
};

double copy(struct Big *dst, const struct Big *src) {
  *dst = *src;
  return dst->v[3] * dst->v[7];
}

int main(void) {
  static struct Big src, dst, ds, dd;
  for (int k = 0; k < 40; k++)
    src.v[k] = k + 1;
  dd.v[5] = 0.5;
  __enzyme_autodiff((void *)copy, &dst, &dd, &src, &ds);
  zy_check_close("d src.v[3]", ds.v[3], 8, 0);
  zy_check_close("d src.v[7]", ds.v[7], 4, 0);
  zy_check_close("d src.v[5]", ds.v[5], 0.5, 0);
  zy_check_close("d dst.v[5]", dd.v[5], 0, 0);
  return zy_report();
}
