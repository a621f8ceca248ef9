// errors/indirect-call-unknown-target.c - an active value passed to a call
// through a function pointer read from a table (targets unknown to the
// pass) is an unsupported error at the call, with a hint.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
#include <math.h>

double __enzyme_autodiff(void *, ...);

double (*const ops[2])(double) = {sin, cos};

double f(double x, int k) {
  // CHECK: indirect-call-unknown-target.c:[[@LINE+5]]:{{[0-9]+}}: error: [zymase:unsupported] cannot differentiate 'f': an indirect call whose possible targets are unknown receives an active value
  // CHECK-NEXT: instruction:
  // CHECK-NEXT: hint: call the function directly, or choose it with a select or a branch between known functions
  // CHECK: 1 error generated
  // NOG: error: [zymase:unsupported] cannot differentiate 'f': an indirect call whose possible targets are unknown receives an active value
  return ops[k](x) * x;
}

double g(double x, int k) { return __enzyme_autodiff((void *)f, x, k); }
