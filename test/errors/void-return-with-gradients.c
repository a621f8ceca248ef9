// errors/void-return-with-gradients.c - an entry point declared to return void cannot hand back a gradient: bad-return error.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

void __enzyme_autodiff(void *, ...);

double f(double x) { return x * x; }

void g(double x) {
  // CHECK: void-return-with-gradients.c:[[@LINE+4]]:3: error: [zymase:bad-return] cannot differentiate 'f': the call returns void but there {{is|are}} 1 gradient
  // CHECK-NEXT: instruction: {{.*}}call void (ptr, ...) @__enzyme_autodiff(ptr
  // CHECK: 1 error generated
  // NOG: error: [zymase:bad-return] cannot differentiate 'f': the call returns void
  __enzyme_autodiff((void *)f, x);
}
