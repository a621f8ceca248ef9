// errors/memory-realloc.c - realloc of memory allocated elsewhere inside a loop (the growing-buffer pattern, whose old shadows the reverse sweep would need per iteration) is an unsupported error at the call, whose hint gives the way out: realloc once, to the final size, before the loop (integration/memory-realloc-argument.c checks that this works, as does realloc outside loops).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
#include <stdlib.h>

double __enzyme_autodiff(void *, ...);

double f(double **buf, const double *x, int n) {
  double s = 0;
  for (int k = 1; k < n; k++) {
    // CHECK: memory-realloc.c:[[@LINE+5]]:{{[0-9]+}}: error: [zymase:unsupported] cannot differentiate 'f': realloc of memory allocated elsewhere is supported only outside loops (the reverse sweep would need the old shadow of every iteration)
    // CHECK-NEXT: instruction: {{.*}}call ptr @realloc(ptr
    // CHECK: hint: realloc the caller's memory once, to its final size, before the loop, and fill it in the loop
    // CHECK: 1 error generated
    // NOG: error: [zymase:unsupported] cannot differentiate 'f': realloc of memory allocated elsewhere is supported only outside loops
    double *t = realloc(*buf, (k + 1) * sizeof(double));
    t[k] = x[0] * t[k - 1];
    *buf = t;
    s += t[k];
  }
  return s;
}

double g(double **b, double **db, double *x, double *dx, int n) {
  return __enzyme_autodiff((void *)f, b, db, x, dx, n);
}
