// errors/inline-asm-active.c - an active value passed to inline assembly without memory effects (x86 "=x" constraint) is an unsupported error at the asm statement.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);

double f(double x) {
  double y;
  // The asm is reported as an indirect call (its callee is not a function).
  // CHECK: inline-asm-active.c:[[@LINE+4]]:3: error: [zymase:unsupported] cannot differentiate 'f': indirect calls are not differentiated yet
  // CHECK-NEXT: instruction: {{.*}}call double asm "", "=x,0
  // CHECK: 1 error generated
  // NOG: error: [zymase:unsupported] cannot differentiate 'f': indirect calls are not differentiated yet
  __asm__("" : "=x"(y) : "0"(x));
  return y * x;
}

double g(double x) { return __enzyme_autodiff((void *)f, x); }
