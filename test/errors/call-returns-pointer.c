// errors/call-returns-pointer.c - a pointer returned by a call (to a function with a body that does not receive memory with a shadow) may reach memory with derivatives: an unsupported error at the call.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
//
// Fails for now: the error names the function's `ret` (the last instruction
// the memory checks visited) instead of the call, at the return's line.
#include <stdlib.h>

double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double *make(int n) {
  return malloc(n * sizeof(double));
}

double f(double x) {
  // CHECK: call-returns-pointer.c:[[@LINE+5]]:{{[0-9]+}}: error: [zymase:unsupported] cannot differentiate 'f': calls returning pointers that may reach memory with derivatives are not supported yet
  // CHECK-NEXT: instruction: {{.*}}call ptr @make(i32
  // CHECK-NEXT: hint: return the data through a pointer argument instead
  // CHECK: 1 error generated
  // NOG: error: [zymase:unsupported] cannot differentiate 'f': calls returning pointers that may reach memory with derivatives are not supported yet
  double *p = make(2);
  p[0] = x * x;
  double r = p[0] * x;
  free(p);
  return r;
}

double g(double x) { return __enzyme_autodiff((void *)f, x); }
