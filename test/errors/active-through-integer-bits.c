// errors/active-through-integer-bits.c - an active double whose bits are changed by integer arithmetic and turned back into a double (the next double up) is a warning, located at the conversion back: the result carries no derivative (Enzyme's behaviour too; a custom gradient gives it one).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error' --implicit-check-not='error:'
// RUN: %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error' --implicit-check-not='error:'
#include <stdint.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);

double f(double x) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  b += 1; /* the next double up */
  // CHECK: active-through-integer-bits.c:[[@LINE+3]]:3: warning: [zymase:unsupported] 'f': the bits of a floating-point value are changed by integer operations and read back as a float: no derivative flows through them (the result is a constant)
  // CHECK-NEXT: instruction: {{.*}} = bitcast i64 {{.*}} to double
  // CHECK: 1 warning generated
  memcpy(&x, &b, sizeof b);
  return x * x;
}

double g(double x) { return __enzyme_autodiff((void *)f, x); }
