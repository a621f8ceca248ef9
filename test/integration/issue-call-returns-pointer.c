// A call to a function that returns a pointer to memory with a shadow (into
// its argument, or a fresh malloc'd array the caller frees): loads through
// the returned pointer must reach the shadow returned by the augmented call
// (or the call must be refused); the derivatives were silently dropped and
// the callee's shadow array leaked.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Refused for now: returning pointers to memory with a shadow needs the
// shadow returned too.  A correct gradient will also pass.
// RUN: %clang -O0 %s -lm -o %t0 2>%t0.err && %valgrind %t0 || %FileCheck %s --check-prefix=REFUSED < %t0.err
// RUN: %clang -O2 %s -lm -o %t2 2>%t2.err && %valgrind %t2 || %FileCheck %s --check-prefix=REFUSED < %t2.err
// REFUSED: error: [zymase:unsupported] cannot differentiate '{{into_arg|fresh}}': calls returning pointers
#include "check.h"

void __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double *second(double *x) { return x + 1; }

double into_arg(double *x) { return second(x)[0] * x[0]; }

__attribute__((noinline)) double *make(const double *x) {
  double *t = malloc(2 * sizeof(double));
  t[0] = x[0] * x[0];
  t[1] = sin(x[1]);
  return t;
}

double fresh(const double *x) {
  double *t = make(x);
  double r = t[0] * t[1];
  free(t);
  return r;
}

int main(void) {
  double x[2] = {1.5, 0.5}, dx[2] = {0};
  __enzyme_autodiff((void *)into_arg, x, dx);
  zy_check_close("into_arg/dx[0]", dx[0], 0.5, 0);
  zy_check_close("into_arg/dx[1]", dx[1], 1.5, 0);
  dx[0] = dx[1] = 0;
  __enzyme_autodiff((void *)fresh, x, dx);
  zy_check_close("fresh/dx[0]", dx[0], 2 * x[0] * sin(x[1]), 1e-15);
  zy_check_close("fresh/dx[1]", dx[1], x[0] * x[0] * cos(x[1]), 1e-15);
  return zy_report();
}
