// Callees that take pointers: a callee that only copies bytes learns their
// types from its caller (type facts per call site), and recursion through
// pointers (split mode, one augmented/reverse pair reused).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %valgrind %t2
#include "check.h"
#include <string.h>

void __enzyme_autodiff(void *, ...);

__attribute__((noinline)) void copy2(void *d, const void *s) { memcpy(d, s, 16); }

double via_copy(double *x) {
  double t[2];
  copy2(t, x);
  return t[0] * t[1] * x[0];
}

double rsum(double *x, int n) {
  if (n == 0)
    return 0;
  return x[0] * x[0] * x[0] + rsum(x + 1, n - 1);
}

int main(void) {
  double x[2] = {2, 3}, dx[2] = {0};
  __enzyme_autodiff((void *)via_copy, x, dx);
  zy_check_close("copy d/dx0", dx[0], 2 * x[0] * x[1], 1e-12);
  zy_check_close("copy d/dx1", dx[1], x[0] * x[0], 1e-12);
  double y[4] = {1, -2, 0.5, 3}, dy[4] = {0};
  __enzyme_autodiff((void *)rsum, y, dy, 4);
  for (int i = 0; i < 4; i++)
    zy_check_close("rsum", dy[i], 3 * y[i] * y[i], 1e-12);
  return zy_report();
}
