// errors/return-struct-field-types.c - a declared struct of doubles for float gradients must be rejected (bad-return) or filled with converted values; the floats must not be packed into the first double.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -o %t0 2>%t0.err && %t0 || %FileCheck %s --input-file=%t0.err
// RUN: %clang -O2 %s -o %t2 2>%t2.err && %t2 || %FileCheck %s --input-file=%t2.err
//
// Regression: both float gradients landed at offsets 0 and 4, inside dx:
// the program saw dx = 32 (garbage), dy = 0.
// CHECK: error: [zymase:bad-return] cannot differentiate 'f'

#include <stdio.h>

typedef struct { double dx, dy; } G2;
G2 __enzyme_autodiff(void *, ...);

float f(float x, float y) { return x * y; }

int main(void) {
  G2 g = __enzyme_autodiff((void *)f, 3.0f, 2.0f);
  printf("%g %g (want 2 3)\n", g.dx, g.dy);
  return !(g.dx == 2 && g.dy == 3);
}
