// errors/too-few-arguments.c - fewer values than the function has parameters is a bad-call error.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);

double f(double x, double y) { return x * y; }

double g(double x) {
  // CHECK: too-few-arguments.c:[[@LINE+4]]:10: error: [zymase:bad-call] cannot differentiate 'f': too few arguments: 'f' takes 2, the call passes 1
  // CHECK-NEXT: instruction: {{.*}}call double (ptr, ...) @__enzyme_autodiff(ptr
  // CHECK: 1 error generated
  // NOG: error: [zymase:bad-call] cannot differentiate 'f': too few arguments: 'f' takes 2, the call passes 1
  return __enzyme_autodiff((void *)f, x);
}
