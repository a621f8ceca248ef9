// errors/float-stored-as-integer.c - bytes of unknown type copied over a double with a shadow (an 8-byte memcpy from an enzyme_const char*, an i64 store) are an unsupported error at the store.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
#include <string.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_const;

double f(double *x, double *y, const char *bytes) {
  double r = y[0] * x[0];
  // CHECK: float-stored-as-integer.c:[[@LINE+4]]:3: error: [zymase:unsupported] cannot differentiate 'f': floating-point data is stored as an integer; copying floats through integers is not supported yet
  // CHECK-NEXT: instruction: store i64 {{.*}}, ptr
  // CHECK: 1 error generated
  // NOG: error: [zymase:unsupported] cannot differentiate 'f': floating-point data is stored as an integer
  memcpy(y, bytes, 8);
  return r;
}

double g(double *x, double *dx, double *y, double *dy, const char *bytes) {
  return __enzyme_autodiff((void *)f, x, dx, y, dy, enzyme_const, bytes);
}
