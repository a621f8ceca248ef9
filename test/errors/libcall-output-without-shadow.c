// errors/libcall-output-without-shadow.c - sincos writing its results (which carry derivatives) through pointers to memory without a shadow (enzyme_const) is an unsupported error at the call, like a store of an active value there.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
#define _GNU_SOURCE
#include <math.h>

double __enzyme_autodiff(void *, ...);
int enzyme_const;

void f(double x, double *out) {
  // CHECK: libcall-output-without-shadow.c:[[@LINE+4]]:3: error: [zymase:unsupported] cannot differentiate 'f': 'sincos' writes a result that carries a derivative through argument 2, which points to memory without a shadow
  // CHECK-NEXT: instruction: {{.*}}call void @sincos(double
  // CHECK-NEXT: hint: pass the memory with enzyme_dup
  // NOG: error: [zymase:unsupported] cannot differentiate 'f': 'sincos' writes a result that carries a derivative through argument 2
  sincos(x * x, &out[0], &out[1]);
}

double g(double x, double *out) {
  return __enzyme_autodiff((void *)f, x, enzyme_const, out);
}
