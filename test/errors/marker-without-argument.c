// errors/marker-without-argument.c - a marker as the last argument, with no value after it, is a bad-marker error.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);
extern int enzyme_const;

double f(double x, double y) { return x * y; }

double g(double x) {
  // CHECK: marker-without-argument.c:[[@LINE+4]]:10: error: [zymase:bad-marker] cannot differentiate 'f': marker 'enzyme_const' is not followed by an argument
  // CHECK-NEXT: instruction: {{.*}}call double (ptr, ...) @__enzyme_autodiff(ptr {{.*}}@f, double {{.*}}, i32
  // CHECK: 1 error generated
  // NOG: error: [zymase:bad-marker] cannot differentiate 'f': marker 'enzyme_const' is not followed by an argument
  return __enzyme_autodiff((void *)f, x, enzyme_const);
}
