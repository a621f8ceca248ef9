// errors/shadow-not-pointer.c - the value after a dup pointer argument (its shadow) must be a pointer; a double there is a bad-marker error.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup;

double f(double *x, double y) { return x[0] * y; }

double g(double *x, double y) {
  // Without a marker a pointer is dup too: its shadow must follow.
  // CHECK: shadow-not-pointer.c:[[@LINE+5]]:10: error: [zymase:bad-marker] cannot differentiate 'f': the shadow of pointer argument 1 is not a pointer
  // CHECK-NEXT: instruction: {{.*}}call double (ptr, ...) @__enzyme_autodiff(ptr {{.*}}@f, ptr {{.*}}, double
  // CHECK: shadow-not-pointer.c:[[@LINE+4]]:10: error: [zymase:bad-marker] cannot differentiate 'f': the shadow of pointer argument 1 is not a pointer
  // CHECK: 2 errors generated
  // NOG-COUNT-2: error: [zymase:bad-marker] cannot differentiate 'f': the shadow of pointer argument 1 is not a pointer
  return __enzyme_autodiff((void *)f, x, y) +
         __enzyme_autodiff((void *)f, enzyme_dup, x, y, y);
}
