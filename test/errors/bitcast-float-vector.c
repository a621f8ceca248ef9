// errors/bitcast-float-vector.c - reinterpreting active floats as doubles (_mm_castps_pd: a bitcast between float vector types) is an unsupported error at the cast.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
#include <emmintrin.h>

double __enzyme_autodiff(void *, ...);

double f(double x) {
  __m128 v = _mm_set1_ps((float)x);
  // CHECK: bitcast-float-vector.c:[[@LINE+4]]:15: error: [zymase:unsupported] cannot differentiate 'f': no derivative rule for this instruction
  // CHECK-NEXT: instruction: {{.*}} = bitcast <4 x float> {{.*}} to <2 x double>
  // CHECK: 1 error generated
  // NOG: error: [zymase:unsupported] cannot differentiate 'f': no derivative rule for this instruction
  __m128d d = _mm_castps_pd(v);
  return _mm_cvtsd_f64(d) * x;
}

double g(double x) { return __enzyme_autodiff((void *)f, x); }
