// errors/enzyme-out-not-float.c - enzyme_out on an argument that is not a floating-point value (an int) is a bad-marker error.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);
extern int enzyme_out;

double f(double x, int n) { return x * n; }

double g(double x) {
  // CHECK: enzyme-out-not-float.c:[[@LINE+4]]:10: error: [zymase:bad-marker] cannot differentiate 'f': enzyme_out marks argument 2, which is not a floating-point value
  // CHECK-NEXT: instruction: {{.*}}call double (ptr, ...) @__enzyme_autodiff(ptr {{.*}}@f, double {{.*}}, i32 {{.*}}, i32 {{.*}}3)
  // CHECK: 1 error generated
  // NOG: error: [zymase:bad-marker] cannot differentiate 'f': enzyme_out marks argument 2, which is not a floating-point value
  return __enzyme_autodiff((void *)f, x, enzyme_out, 3);
}
