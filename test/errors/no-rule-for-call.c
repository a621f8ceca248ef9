// errors/no-rule-for-call.c - an active value passed to an external function without a derivative rule is a no-rule error at that call.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);
double foo(double);

// CHECK: no-rule-for-call.c:[[@LINE+4]]:29: error: [zymase:no-rule] cannot differentiate 'f': no derivative rule for the external function 'foo'
// CHECK-NEXT: instruction: {{.*}}call double @foo(double
// CHECK-NEXT: hint:
// NOG: error: [zymase:no-rule] cannot differentiate 'f': no derivative rule for the external function 'foo'
double f(double x) { return foo(x) * x; }

// A constant argument to foo needs no rule.
double h(double x, double y) { return foo(y) * x; }

double g(double x, double y) {
  extern int enzyme_const;
  return __enzyme_autodiff((void *)f, x) +
         __enzyme_autodiff((void *)h, x, enzyme_const, y);
}
// CHECK: 1 error generated
