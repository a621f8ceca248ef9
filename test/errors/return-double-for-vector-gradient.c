// errors/return-double-for-vector-gradient.c - an active vector argument (<2 x double>) with the entry point declared to return double must be a bad-return error (the double cannot hold the gradient), not a cast of the vector to double.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
//
// Fails for now: the vector gradient is "converted" with an fpext/fptrunc
// from <2 x double> to double (invalid IR); the backend crashes with
// "Cannot select: f64 = X86ISD::VFPEXT".

double __enzyme_autodiff(void *, ...);
typedef double V2 __attribute__((ext_vector_type(2)));

double f(V2 v) { return v.x * v.y; }

double g(V2 v) {
  // CHECK: return-double-for-vector-gradient.c:[[@LINE+3]]:10: error: [zymase:bad-return] cannot differentiate 'f':
  // CHECK: 1 error generated
  // NOG: error: [zymase:bad-return] cannot differentiate 'f':
  return __enzyme_autodiff((void *)f, v);
}
