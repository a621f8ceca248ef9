// An active value atomically added to memory without a shadow (an
// enzyme_const pointer) and read back must be refused like a plain store
// ("stored to memory that has no shadow"), or differentiated; the
// atomicrmw passed every check and the derivative was silently 0.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -o %t0 2>%t0.err && %t0 || %FileCheck %s --check-prefix=REFUSED < %t0.err
// RUN: %clang -O2 %s -o %t2 2>%t2.err && %t2 || %FileCheck %s --check-prefix=REFUSED < %t2.err
// REFUSED: error: [zymase:unsupported] cannot differentiate 'f': atomic operations on active values are not supported yet
#include "check.h"

double __enzyme_autodiff(void *, ...);
extern int enzyme_const;

/* f = 2 * (acc0 + x): df/dx = 2. */
double f(double x, double *acc) {
  __atomic_fetch_add(acc, x, __ATOMIC_RELAXED);
  return *acc * 2;
}

int main(void) {
  double acc = 1;
  zy_check_close("df/dx", __enzyme_autodiff((void *)f, 3.0, enzyme_const, &acc),
                 2, 0);
  return zy_report();
}
