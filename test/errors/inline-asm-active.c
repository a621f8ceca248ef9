// errors/inline-asm-active.c - an active value passed to inline assembly
// (without memory effects, and with a memory clobber) is an unsupported
// error at the asm statement.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);

double f(double x) {
  double y;
  // CHECK: inline-asm-active.c:[[@LINE+3]]:3: error: [zymase:unsupported] cannot differentiate 'f': inline assembly receives an active value; it cannot be differentiated
  // CHECK-NEXT: instruction: {{.*}}call double asm "", "=x,0
  // NOG: error: [zymase:unsupported] cannot differentiate 'f': inline assembly receives an active value; it cannot be differentiated
  __asm__("" : "=x"(y) : "0"(x));
  return y * x;
}

double h(double x) {
  double y;
  // CHECK: inline-asm-active.c:[[@LINE+3]]:3: error: [zymase:unsupported] cannot differentiate 'h': inline assembly receives an active value; it cannot be differentiated
  // CHECK: 2 errors generated
  // NOG: error: [zymase:unsupported] cannot differentiate 'h': inline assembly receives an active value; it cannot be differentiated
  __asm__("" : "=x"(y) : "0"(x) : "memory");
  return y * x;
}

double g(double x) { return __enzyme_autodiff((void *)f, x); }
double k(double x) { return __enzyme_autodiff((void *)h, x); }
