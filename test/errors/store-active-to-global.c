// errors/store-active-to-global.c - an active value stored to a global (derivative through memory) is an unsupported error at the store.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);
double last;

double f(double x) {
  // CHECK: store-active-to-global.c:[[@LINE+4]]:8: error: [zymase:unsupported] cannot differentiate 'f': an active value is stored to memory
  // CHECK-NEXT: instruction: store double {{.*}}, ptr @last
  // CHECK: 1 error generated
  // NOG: error: [zymase:unsupported] cannot differentiate 'f': an active value is stored to memory
  last = x * x;
  return x * x * x;
}

double g(double x) { return __enzyme_autodiff((void *)f, x); }
