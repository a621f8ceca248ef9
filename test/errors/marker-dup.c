// errors/marker-dup.c - enzyme_dup and enzyme_dupnoneed (shadow pointers) are not supported yet: a bad-marker error with a hint.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_dupnoneed;

double f(double *x) { return x[0] * x[0]; }

double g(double *x, double *dx) {
  // Errors come in no particular order.
  // CHECK-DAG: marker-dup.c:[[@LINE+3]]:10: error: [zymase:bad-marker] cannot differentiate 'f': marker 'enzyme_dup' is not supported
  // CHECK-DAG: hint: {{.*}}enzyme_const
  // NOG-DAG: error: [zymase:bad-marker] cannot differentiate 'f': marker 'enzyme_dup' is not supported
  return __enzyme_autodiff((void *)f, enzyme_dup, x, dx) +
  // CHECK-DAG: marker-dup.c:[[@LINE+4]]:10: error: [zymase:bad-marker] cannot differentiate 'f': marker 'enzyme_dupnoneed' is not supported
  // CHECK: 2 errors generated
  // NOG-DAG: error: [zymase:bad-marker] cannot differentiate 'f': marker 'enzyme_dupnoneed' is not supported
  // NOG: 2 errors generated
         __enzyme_autodiff((void *)f, enzyme_dupnoneed, x, dx);
}
