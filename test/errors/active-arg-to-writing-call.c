// errors/active-arg-to-writing-call.c - an active value passed to an external function that may write memory is an unsupported error at that call.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);
void record(double);

double f(double x) {
  // CHECK: active-arg-to-writing-call.c:[[@LINE+4]]:3: error: [zymase:unsupported] cannot differentiate 'f': an active value is passed to a call that may write memory
  // CHECK-NEXT: instruction: {{.*}}call void @record(double
  // CHECK: 1 error generated
  // NOG: error: [zymase:unsupported] cannot differentiate 'f': an active value is passed to a call that may write memory
  record(x);
  return x * x;
}

double g(double x) { return __enzyme_autodiff((void *)f, x); }
