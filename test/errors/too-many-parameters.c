// errors/too-many-parameters.c - differentiating a function with more than 63 parameters is a bad-call error.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);

#define D8(a)                                                                  \
  double a##0, double a##1, double a##2, double a##3, double a##4,            \
      double a##5, double a##6, double a##7
#define X8 x, x, x, x, x, x, x, x

/* 64 parameters. */
double f(D8(a), D8(b), D8(c), D8(d), D8(e), D8(f), D8(g), D8(h)) {
  return a0 * h7;
}

double g(double x) {
  // CHECK: too-many-parameters.c:[[@LINE+4]]:10: error: [zymase:bad-call] cannot differentiate 'f': functions with more than 63 parameters are not supported
  // CHECK-NEXT: instruction: {{.*}}call double (ptr, ...) @__enzyme_autodiff(ptr {{.*}}@f, double
  // CHECK: 1 error generated
  // NOG: error: [zymase:bad-call] cannot differentiate 'f': functions with more than 63 parameters are not supported
  return __enzyme_autodiff((void *)f, X8, X8, X8, X8, X8, X8, X8, X8);
}
