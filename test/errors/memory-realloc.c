// errors/memory-realloc.c - realloc of memory allocated elsewhere (whose
// shadow's size is unknown) is an unsupported error at the call.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
#include <stdlib.h>

double __enzyme_autodiff(void *, ...);

double f(double **buf, const double *x, int n) {
  // CHECK: memory-realloc.c:[[@LINE+5]]:{{[0-9]+}}: error: [zymase:unsupported] cannot differentiate 'f': realloc of memory allocated elsewhere is not supported yet
  // CHECK-NEXT: instruction: {{.*}}call ptr @realloc(ptr
  // CHECK: hint: allocate the memory in the same function
  // CHECK: 1 error generated
  // NOG: error: [zymase:unsupported] cannot differentiate 'f': realloc of memory allocated elsewhere is not supported yet
  double *t = realloc(*buf, n * sizeof(double));
  t[0] = x[0] * x[1];
  *buf = t;
  return t[0];
}

double g(double **b, double **db, double *x, double *dx, int n) {
  return __enzyme_autodiff((void *)f, b, db, x, dx, n);
}
