// errors/call-too-many-parameters.c - an active call to a function with more than 63 parameters (a pure one, recomputed; one writing memory with a shadow, split) is an unsupported error at the call.
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

/* 64 parameters each. */
__attribute__((noinline)) double big(D8(a), D8(b), D8(c), D8(d), D8(e), D8(f),
                                     D8(g), D8(h)) {
  return a0 * h7;
}
__attribute__((noinline)) void put(double *o, D8(a), D8(b), D8(c), D8(d),
                                   D8(e), D8(f), D8(g), double h0, double h1,
                                   double h2, double h3, double h4, double h5,
                                   double h6) {
  o[0] = a0 * h6;
}

double pure(double x) {
  // CHECK: call-too-many-parameters.c:[[@LINE+3]]:10: error: [zymase:unsupported] cannot differentiate 'pure': calls to functions with more than 63 parameters are not differentiated
  // CHECK-NEXT: instruction: {{.*}}call double @big(double
  // NOG: error: [zymase:unsupported] cannot differentiate 'pure': calls to functions with more than 63 parameters are not differentiated
  return big(X8, X8, X8, X8, X8, X8, X8, X8) * x;
}

double split(double *o, double x) {
  // CHECK: call-too-many-parameters.c:[[@LINE+4]]:3: error: [zymase:unsupported] cannot differentiate 'split': calls to functions with more than 63 parameters are not differentiated
  // CHECK-NEXT: instruction: {{.*}}call void @put(ptr
  // CHECK: 2 errors generated
  // NOG: error: [zymase:unsupported] cannot differentiate 'split': calls to functions with more than 63 parameters are not differentiated
  put(o, X8, X8, X8, X8, X8, X8, X8, x, x, x, x, x, x, x);
  return o[0] * x;
}

double g(double *o, double *d, double x) {
  return __enzyme_autodiff((void *)pure, x) +
         __enzyme_autodiff((void *)split, o, d, x);
}
