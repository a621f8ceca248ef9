// errors/store-active-through-const-pointer.c - an active value stored to
// memory reached through an enzyme_const pointer (memory without a shadow)
// is an unsupported error at the store.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);
extern int enzyme_const;

double f(double x, double *log) {
  // CHECK: store-active-through-const-pointer.c:[[@LINE+4]]:10: error: [zymase:unsupported] cannot differentiate 'f': an active value is stored to memory that has no shadow
  // CHECK-NEXT: instruction: store double
  // CHECK: hint: pass the memory with enzyme_dup
  // NOG: error: [zymase:unsupported] cannot differentiate 'f': an active value is stored to memory that has no shadow
  log[0] = x * x;
  return x * x * x;
}

double g(double x, double *log) {
  return __enzyme_autodiff((void *)f, x, enzyme_const, log);
}
