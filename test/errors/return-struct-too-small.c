// errors/return-struct-too-small.c - a declared return type smaller than the gradients (one double for two active arguments; a two-double struct for three) is a bad-return error.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

typedef struct { double dx; } G1;
typedef struct { double dx, dy; } G2;
G1 __enzyme_autodiff1(void *, ...);
G2 __enzyme_autodiff2(void *, ...);

double f(double x, double y, double z) { return x * y * z; }

double g(double x, double y) {
  // Errors come in no particular order.
  // CHECK-DAG: return-struct-too-small.c:[[@LINE+3]]:10: error: [zymase:bad-return] cannot differentiate 'f': the declared return type (double, 8 bytes) cannot hold the 2 gradients (16 bytes)
  // NOG-DAG: error: [zymase:bad-return] cannot differentiate 'f': the declared return type (double, 8 bytes) cannot hold the 2 gradients (16 bytes)
  extern int enzyme_const;
  return __enzyme_autodiff1((void *)f, x, y, enzyme_const, 1.0).dx +
  // CHECK-DAG: return-struct-too-small.c:[[@LINE+3]]:10: error: [zymase:bad-return] cannot differentiate 'f': the declared return type ({ double, double }, 16 bytes) cannot hold the 3 gradients (24 bytes)
  // CHECK: 2 errors generated
  // NOG-DAG: error: [zymase:bad-return] cannot differentiate 'f': the declared return type ({ double, double }, 16 bytes) cannot hold the 3 gradients (24 bytes)
         __enzyme_autodiff2((void *)f, x, y, 1.0).dx;
}
