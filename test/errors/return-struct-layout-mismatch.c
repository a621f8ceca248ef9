// errors/return-struct-layout-mismatch.c - a declared return struct large enough for the gradients but with other field types at their offsets (fields swapped; an int where a double goes, returned through sret) is a bad-return error naming the gradient and the byte.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

typedef struct { double dy; float dx; } Swapped;
typedef struct { double da; int n; double dc; } WithInt; /* 24 bytes: sret */
Swapped __enzyme_autodiff_swapped(void *, ...);
WithInt __enzyme_autodiff_int(void *, ...);

float f(float x, double y) { return x * y; }
double h(double a, double b, double c) { return a * b * c; }

double g(float x, double y) {
  // CHECK: return-struct-layout-mismatch.c:[[@LINE+9]]:10: error: [zymase:bad-return] cannot differentiate 'f': gradient 1 (float) does not match the declared return type { double, float } at byte 0
  // CHECK-NEXT: instruction: {{.*}}call { double, float } (ptr, ...) @__enzyme_autodiff_swapped(ptr
  // CHECK-NEXT: hint: declare a struct with one field per active argument, of the argument's type, in argument order
  // CHECK: return-struct-layout-mismatch.c:[[@LINE+7]]:10: error: [zymase:bad-return] cannot differentiate 'h': gradient 2 (double) does not match the declared return type %struct.WithInt at byte 8
  // CHECK-NEXT: instruction: {{.*}}call void (ptr, ptr, ...) @__enzyme_autodiff_int(ptr {{.*}}sret(%struct.WithInt)
  // CHECK-NEXT: hint: declare a struct
  // CHECK: 2 errors generated
  // NOG: error: [zymase:bad-return] cannot differentiate 'f': gradient 1 (float) does not match the declared return type { double, float } at byte 0
  // NOG: error: [zymase:bad-return] cannot differentiate 'h': gradient 2 (double) does not match the declared return type
  return __enzyme_autodiff_swapped((void *)f, x, y).dy +
         __enzyme_autodiff_int((void *)h, y, y, y).dc;
}
