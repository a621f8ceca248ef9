// errors/variadic-function.c - differentiating a variadic function is a bad-call error at the __enzyme_autodiff call.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);

double f(double x, ...) { return x * x; }

double g(double x) {
  // CHECK: variadic-function.c:[[@LINE+4]]:10: error: [zymase:bad-call] cannot differentiate 'f': variadic functions cannot be differentiated
  // CHECK-NEXT: instruction: {{.*}}call double (ptr, ...) @__enzyme_autodiff(ptr {{.*}}@f, double
  // CHECK: 1 error generated
  // NOG: error: [zymase:bad-call] cannot differentiate 'f': variadic functions cannot be differentiated
  return __enzyme_autodiff((void *)f, x);
}
