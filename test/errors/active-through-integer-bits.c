// errors/active-through-integer-bits.c - an active double whose bits are used as an integer (and turned back into a double) is an unsupported error at the conversion to integer.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
#include <stdint.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);

double f(double x) {
  uint64_t b;
  // CHECK: active-through-integer-bits.c:[[@LINE+4]]:3: error: [zymase:unsupported] cannot differentiate 'f': an active value flows through an instruction that Zymase cannot differentiate
  // CHECK-NEXT: instruction: {{.*}} = bitcast double {{.*}} to i64
  // CHECK: 1 error generated
  // NOG: error: [zymase:unsupported] cannot differentiate 'f': an active value flows through an instruction that Zymase cannot differentiate
  memcpy(&b, &x, sizeof b);
  b += 1; /* the next double up */
  memcpy(&x, &b, sizeof b);
  return x * x;
}

double g(double x) { return __enzyme_autodiff((void *)f, x); }
