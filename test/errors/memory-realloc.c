// errors/memory-realloc.c - realloc of memory with a shadow is an unsupported error at the call.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
#include <stdlib.h>

double __enzyme_autodiff(void *, ...);

double f(const double *x, int n) {
  double *t = malloc(2 * sizeof(double));
  t[0] = x[0];
  // CHECK: memory-realloc.c:[[@LINE+4]]:7: error: [zymase:unsupported] cannot differentiate 'f': realloc is not supported yet
  // CHECK-NEXT: instruction: {{.*}}call ptr @realloc(ptr
  // CHECK: 1 error generated
  // NOG: error: [zymase:unsupported] cannot differentiate 'f': realloc is not supported yet
  t = realloc(t, n * sizeof(double));
  t[1] = x[1] * t[0];
  double r = t[1];
  free(t);
  return r;
}

double g(double *x, double *dx, int n) {
  return __enzyme_autodiff((void *)f, x, dx, n);
}
