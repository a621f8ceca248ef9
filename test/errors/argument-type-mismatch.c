// errors/argument-type-mismatch.c - a value whose type does not convert to the parameter type (double for int, int for double) is a bad-call error naming both types.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);

double f(double x, int n) { return x * n; }

double g(double x) {
  // Errors come in no particular order.
  // CHECK-DAG: argument-type-mismatch.c:[[@LINE+3]]:10: error: [zymase:bad-call] cannot differentiate 'f': argument 2 has type double but parameter 2 of 'f' has type i32
  // NOG-DAG: error: [zymase:bad-call] cannot differentiate 'f': argument 2 has type double but parameter 2 of 'f' has type i32
  // NOG-DAG: error: [zymase:bad-call] cannot differentiate 'f': argument 1 has type i32 but parameter 1 of 'f' has type double
  return __enzyme_autodiff((void *)f, x, 2.0) +
  // CHECK-DAG: argument-type-mismatch.c:[[@LINE+2]]:10: error: [zymase:bad-call] cannot differentiate 'f': argument 1 has type i32 but parameter 1 of 'f' has type double
  // CHECK: 2 errors generated
         __enzyme_autodiff((void *)f, 1, 2);
}
