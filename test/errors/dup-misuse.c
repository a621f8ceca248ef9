// errors/dup-misuse.c - enzyme_dup on a value that is not a pointer, and a
// pointer whose shadow is missing, are bad-marker errors.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_dupnoneed;

double f(double *x) { return x[0] * x[0]; }
double h(double x) { return x * x; }

double g(double *x, double y) {
  // CHECK: dup-misuse.c:[[@LINE+3]]:10: error: [zymase:bad-marker] cannot differentiate 'h': 'enzyme_dup' marks argument 1, which is not a pointer
  // CHECK: dup-misuse.c:[[@LINE+3]]:10: error: [zymase:bad-marker] cannot differentiate 'f': the shadow of pointer argument 1 is missing
  // CHECK: 2 errors generated
  return __enzyme_autodiff((void *)h, enzyme_dup, y, y) +
         __enzyme_autodiff((void *)f, enzyme_dupnoneed, x);
}
// NOG: error: [zymase:bad-marker] cannot differentiate 'h': 'enzyme_dup' marks argument 1, which is not a pointer
// NOG: error: [zymase:bad-marker] cannot differentiate 'f': the shadow of pointer argument 1 is missing
