// errors/cxx-invoke-active.cpp - a call that may throw (invoke, C++ code with cleanups) and carries a derivative or needs shadows is refused with a located error, not differentiated as if it were no call.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=O2 --implicit-check-not=PLEASE --implicit-check-not='internal error'

extern "C" double __enzyme_autodiff(void *, ...);

struct Guard {
  int *n;
  ~Guard() { ++*n; }
};

__attribute__((noinline)) void scale(double *x) {
  if (x[0] > 1e300)
    throw 1;
  x[0] = x[0] * x[0];
}

__attribute__((noinline)) double sq(double x) {
  if (x > 1e300)
    throw 1;
  return x * x;
}

void f(double *x) {
  int n = 0;
  Guard g{&n};
  // CHECK: cxx-invoke-active.cpp:[[@LINE+2]]:3: error: [zymase:unsupported] cannot differentiate '_Z1fPd': a call that may throw an exception (invoke of '_Z5scalePd') needs derivatives or shadows
  // CHECK-NEXT: instruction: invoke void @_Z5scalePd(
  scale(x);
}

double h(double x) {
  try {
    // CHECK: cxx-invoke-active.cpp:[[@LINE+3]]:12: error: [zymase:unsupported] cannot differentiate '_Z1hd': a call that may throw an exception (invoke of '_Z2sqd') has a derivative
    // CHECK-NEXT: instruction: {{.*}} = invoke noundef double @_Z2sqd(
    // O2: cxx-invoke-active.cpp:[[@LINE+1]]:12: error: [zymase:unsupported] cannot differentiate '_Z1hd': a call that may throw an exception (invoke of '_Z2sqd') has a derivative
    return sq(x) * 3;
  } catch (int) {
    return 0;
  }
}

void df(double *x, double *dx) { __enzyme_autodiff((void *)f, x, dx); }
double dh(double x) { return __enzyme_autodiff((void *)h, x); }
