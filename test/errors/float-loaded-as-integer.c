// errors/float-loaded-as-integer.c - a double with a shadow read as a 64-bit integer (an 8-byte memcpy into a uint64_t) is an unsupported error at the load.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
#include <stdint.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);

double f(double *x) {
  uint64_t b;
  // CHECK: float-loaded-as-integer.c:[[@LINE+4]]:3: error: [zymase:unsupported] cannot differentiate 'f': floating-point data is loaded as an integer; copying floats through integers is not supported yet
  // CHECK-NEXT: instruction: {{.*}} = load i64, ptr
  // CHECK: 1 error generated
  // NOG: error: [zymase:unsupported] cannot differentiate 'f': floating-point data is loaded as an integer
  memcpy(&b, x, sizeof b);
  if (b & 1)
    return x[0] * x[0];
  return x[0];
}

double g(double *x, double *dx) { return __enzyme_autodiff((void *)f, x, dx); }
