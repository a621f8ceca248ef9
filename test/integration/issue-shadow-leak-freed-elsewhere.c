// Heap memory freed other than by a free() of the malloc'd value itself:
// by a callee, or (with -zymase-no-preopt) through a pointer reloaded from
// a local variable.  The gradient must free the shadow too (it leaked it
// when only a free() of the allocation's own value counted).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -o %t0 && %valgrind %t0
// RUN: %clang -O2 %s -o %t2 && %valgrind %t2
// RUN: %clang -O0 -Xclang -load -Xclang %plugin -mllvm -zymase-no-preopt %s -o %tn && %valgrind %tn
#include "check.h"

void __enzyme_autodiff(void *, ...);

__attribute__((noinline)) void release(double *p) { free(p); }

double by_callee(const double *x) {
  double *t = malloc(2 * sizeof(double));
  t[0] = x[0] * x[0];
  t[1] = t[0] * x[1];
  double r = t[1];
  release(t);
  return r;
}

double local(const double *x) {
  double *t = malloc(2 * sizeof(double));
  t[0] = x[0] * x[1];
  double r = t[0] * x[0];
  free(t);
  return r;
}

int main(void) {
  double x[2] = {3, 2}, dx[2] = {0};
#ifndef __OPTIMIZE__
  __enzyme_autodiff((void *)local, x, dx);
  zy_check_close("local/dx[0]", dx[0], 12, 0);
  zy_check_close("local/dx[1]", dx[1], 9, 0);
  dx[0] = dx[1] = 0;
#endif
  __enzyme_autodiff((void *)by_callee, x, dx);
  zy_check_close("by_callee/dx[0]", dx[0], 12, 0);
  zy_check_close("by_callee/dx[1]", dx[1], 9, 0);
  return zy_report();
}
