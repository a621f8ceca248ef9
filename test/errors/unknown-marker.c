// errors/unknown-marker.c - a marker Zymase does not support (Enzyme's enzyme_interleave) is a bad-marker error, not an integer argument.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);
extern int enzyme_interleave;

double f(double x) { return x * x; }

double g(double x) {
  // CHECK: unknown-marker.c:[[@LINE+4]]:10: error: [zymase:bad-marker] cannot differentiate 'f': marker 'enzyme_interleave' is not supported
  // CHECK-NEXT: instruction: {{.*}}call double (ptr, ...) @__enzyme_autodiff(ptr {{.*}}@f, i32
  // CHECK: 1 error generated
  // NOG: error: [zymase:bad-marker] cannot differentiate 'f': marker 'enzyme_interleave' is not supported
  return __enzyme_autodiff((void *)f, enzyme_interleave, x);
}
