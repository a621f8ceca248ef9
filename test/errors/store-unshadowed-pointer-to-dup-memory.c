// errors/store-unshadowed-pointer-to-dup-memory.c - a pointer without a shadow (an enzyme_const argument) stored into memory with one (a dup double**) is an unsupported error at the store.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);
extern int enzyme_const;

double f(double *x, double **pp, double *c) {
  // CHECK: store-unshadowed-pointer-to-dup-memory.c:[[@LINE+4]]:7: error: [zymase:unsupported] cannot differentiate 'f': a pointer without a shadow is stored to memory that has one
  // CHECK-NEXT: instruction: store ptr {{.*}}, ptr
  // CHECK: 1 error generated
  // NOG: error: [zymase:unsupported] cannot differentiate 'f': a pointer without a shadow is stored to memory that has one
  *pp = c;
  return x[0] * c[0];
}

double g(double *x, double *dx, double **pp, double **dpp, double *c) {
  return __enzyme_autodiff((void *)f, x, dx, pp, dpp, enzyme_const, c);
}
