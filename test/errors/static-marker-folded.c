// errors/static-marker-folded.c - a marker declared static is folded to 0 by the optimizer (-O1 and up) and arrives as an int: the bad-call error's hint says to declare the markers without 'static'.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O1 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// At -O0 the marker is still a load of the global, and works.
// RUN: %clang -c -O0 %s -o %t.o

double __enzyme_autodiff(void *, ...);
static int enzyme_const;

double f(double x, double y) { return x * y; }

double g(double x, double y) {
  // CHECK: static-marker-folded.c:[[@LINE+5]]:10: error: [zymase:bad-call] cannot differentiate 'f': argument 2 has type i32 but parameter 2 of 'f' has type double
  // CHECK-NEXT: instruction: {{.*}}call double (ptr, ...) @__enzyme_autodiff(ptr {{.*}}@f, double {{.*}}, i32 {{.*}}0, double
  // CHECK-NEXT: hint: if this argument was meant to be a marker, declare the markers without 'static' (the optimizer folds static markers to 0)
  // CHECK: 1 error generated
  // NOG: error: [zymase:bad-call] cannot differentiate 'f': argument 2 has type i32 but parameter 2 of 'f' has type double
  return __enzyme_autodiff((void *)f, x, enzyme_const, y);
}
