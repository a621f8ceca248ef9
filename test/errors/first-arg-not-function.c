// errors/first-arg-not-function.c - the first argument of __enzyme_autodiff must name a function; a function pointer variable is a bad-call error.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);

double g(double (*p)(double), double x) {
  // CHECK: first-arg-not-function.c:[[@LINE+4]]:10: error: [zymase:bad-call] cannot differentiate 'g': the first argument of __enzyme_autodiff is not a function
  // CHECK-NEXT: instruction: {{.*}}call double (ptr, ...) @__enzyme_autodiff(ptr
  // CHECK: 1 error generated
  // NOG: error: [zymase:bad-call] cannot differentiate 'g': the first argument of __enzyme_autodiff is not a function
  return __enzyme_autodiff((void *)p, x);
}
