// errors/select-pointer-without-shadow.c - a select between a pointer with a shadow (dup) and one without (enzyme_const) is an unsupported error at the select.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
//
// Fails for now: the error names the function's `ret` (the last instruction
// the memory checks visited) instead of the select, at the return's line.

double __enzyme_autodiff(void *, ...);
extern int enzyme_const;

double f(double *x, double *c, int k) {
  // CHECK: select-pointer-without-shadow.c:[[@LINE+4]]:{{[0-9]+}}: error: [zymase:unsupported] cannot differentiate 'f': a select between a pointer with a shadow and one without
  // CHECK-NEXT: instruction: {{.*}} = select i1 {{.*}}, ptr {{.*}}, ptr
  // CHECK: 1 error generated
  // NOG: error: [zymase:unsupported] cannot differentiate 'f': a select between a pointer with a shadow and one without
  double *p = k ? x : c;
  return p[0] * p[0];
}

double g(double *x, double *dx, double *c, int k) {
  return __enzyme_autodiff((void *)f, x, dx, enzyme_const, c, k);
}
