// errors/split-unknown-marker.c - a marker these entry points do not support (Enzyme's enzyme_interleave) in __enzyme_augmentfwd and __enzyme_reverse is a bad-marker error at each call.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

void *__enzyme_augmentfwd(void *, ...);
double __enzyme_reverse(void *, ...);
extern int enzyme_interleave;

double f(double x) { return x * x; }

double g(double x) {
  // CHECK: split-unknown-marker.c:[[@LINE+3]]:16: error: [zymase:bad-marker] cannot differentiate 'f': marker 'enzyme_interleave' is not supported
  // CHECK-NEXT: instruction: {{.*}}call ptr (ptr, ...) @__enzyme_augmentfwd(ptr
  // NOG: error: [zymase:bad-marker] cannot differentiate 'f': marker 'enzyme_interleave' is not supported
  void *tape = __enzyme_augmentfwd((void *)f, enzyme_interleave, x);
  // CHECK: split-unknown-marker.c:[[@LINE+4]]:10: error: [zymase:bad-marker] cannot differentiate 'f': marker 'enzyme_interleave' is not supported
  // CHECK-NEXT: instruction: {{.*}}call double (ptr, ...) @__enzyme_reverse(ptr
  // CHECK: 2 errors generated
  // NOG: error: [zymase:bad-marker] cannot differentiate 'f': marker 'enzyme_interleave' is not supported
  return __enzyme_reverse((void *)f, enzyme_interleave, x, 1.0, tape);
}
