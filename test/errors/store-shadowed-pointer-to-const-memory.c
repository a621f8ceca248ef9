// errors/store-shadowed-pointer-to-const-memory.c - a pointer to memory with a shadow (a dup argument) stored into memory without one (an enzyme_const pointer) is an unsupported error at the store.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);
extern int enzyme_const;

double f(double *x, double **slot) {
  // CHECK: store-shadowed-pointer-to-const-memory.c:[[@LINE+4]]:9: error: [zymase:unsupported] cannot differentiate 'f': a pointer to memory that has a shadow is stored to memory that has none
  // CHECK-NEXT: instruction: store ptr {{.*}}, ptr
  // CHECK: 1 error generated
  // NOG: error: [zymase:unsupported] cannot differentiate 'f': a pointer to memory that has a shadow is stored to memory that has none
  *slot = x;
  return x[0] * x[0];
}

double g(double *x, double *dx, double **slot) {
  return __enzyme_autodiff((void *)f, x, dx, enzyme_const, slot);
}
