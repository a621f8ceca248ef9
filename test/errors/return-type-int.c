// errors/return-type-int.c - an entry point declared to return int for a float gradient must be rejected (bad-return) or convert the value; it must not return the float's bits.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -o %t0 2>%t0.err && %t0 || %FileCheck %s --input-file=%t0.err
// RUN: %clang -O2 %s -o %t2 2>%t2.err && %t2 || %FileCheck %s --input-file=%t2.err
//
// Regression: the float gradient 6.0f was stored into an int slot and read
// back as 1086324736.
// CHECK: error: [zymase:bad-return] cannot differentiate 'f'

#include <stdio.h>

int __enzyme_autodiff(void *, ...);

float f(float x) { return x * x; }

int main(void) {
  int d = __enzyme_autodiff((void *)f, 3.0f);
  printf("%d (want 6)\n", d);
  return d != 6;
}
