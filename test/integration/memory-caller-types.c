// The types at the __enzyme_autodiff call seed the type analysis: a
// function that only copies untyped bytes learns from its caller that they
// are doubles.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -o %t0 && %t0
// RUN: %clang -O2 %s -o %t2 && %t2
#include "check.h"
#include <string.h>

void __enzyme_autodiff(void *, ...);

void move16(void *d, const void *s) { memcpy(d, s, 16); }

int main(void) {
  double a[2] = {1, 2}, b[2], da[2] = {0}, db[2] = {5, 7};
  __enzyme_autodiff((void *)move16, b, db, a, da);
  zy_check_close("da[0]", da[0], 5, 0);
  zy_check_close("da[1]", da[1], 7, 0);
  zy_check_close("db consumed", db[0] + db[1], 0, 0);
  return zy_report();
}
