// errors/phi-pointer-without-shadow.c - a phi of a pointer with a shadow (dup) and one without (enzyme_const) is an unsupported error at the phi.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);
extern int enzyme_const;
void left(void);
void right(void);

// The phi has no line of its own: the error is at the function.
// CHECK: phi-pointer-without-shadow.c:[[@LINE+4]]:{{[0-9]+}}: error: [zymase:unsupported] cannot differentiate 'f': a phi of a pointer with a shadow and one without
// CHECK-NEXT: instruction: {{.*}} = phi ptr [
// CHECK: 1 error generated
// NOG: error: [zymase:unsupported] cannot differentiate 'f': a phi of a pointer with a shadow and one without
double f(double *x, double *c, int k) {
  double *p;
  if (k) { /* different calls on each side keep the branch (and the phi) */
    left();
    p = x;
  } else {
    right();
    p = c;
  }
  return p[0] * p[0];
}

double g(double *x, double *dx, double *c, int k) {
  return __enzyme_autodiff((void *)f, x, dx, enzyme_const, c, k);
}
