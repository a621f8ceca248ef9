// Functions that return pointers: into their argument, a fresh allocation
// the caller frees (its shadow is returned with it and freed by the
// caller's gradient), and constant memory (no shadow needed).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %valgrind %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %valgrind %t2
#include "check.h"

double __enzyme_autodiff(void *, ...);

static const double table[3] = {0.5, 2.0, 4.0};

__attribute__((noinline)) double *second(double *x) { return x + 1; }
__attribute__((noinline)) double *make(int n) {
  return malloc(n * sizeof(double));
}
__attribute__((noinline)) const double *weights(void) { return table; }

double f(double *x) {
  double *p = make(2);
  p[0] = x[0] * x[0];
  p[1] = second(x)[0] * weights()[2];
  double r = p[0] * p[1];
  free(p);
  return r;
}

int main(void) {
  double x[2] = {1.5, -0.5}, dx[2] = {0};
  __enzyme_autodiff((void *)f, x, dx);
  /* r = x0^2 * 4 x1 */
  zy_check_close("d/dx0", dx[0], 2 * x[0] * 4 * x[1], 1e-12);
  zy_check_close("d/dx1", dx[1], x[0] * x[0] * 4, 1e-12);
  return zy_report();
}
