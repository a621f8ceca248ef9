// Pointers turned into integers, moved by adding or subtracting offsets,
// and turned back into pointers: the same arithmetic is applied to the
// shadow's bits, so derivatives reach the right shadow elements.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -o %t0 && %t0
// RUN: %clang -O2 %s -o %t2 && %t2
#include "check.h"
#include <stdint.h>

void __enzyme_autodiff(void *, ...);

double f(double *x) {
  uintptr_t a = (uintptr_t)x;
  double *second = (double *)(a + sizeof(double));
  double *first = (double *)((uintptr_t)second - sizeof(double));
  /* the distance between two pointers is a plain integer */
  long n = (long)((uintptr_t)second - (uintptr_t)first) / (long)sizeof(double);
  return first[0] * second[0] * second[0] * (double)n;
}

int main(void) {
  double x[2] = {2, 3}, dx[2] = {0};
  __enzyme_autodiff((void *)f, x, dx);
  zy_check_close("d/dx0", dx[0], x[1] * x[1], 1e-12);
  zy_check_close("d/dx1", dx[1], 2 * x[0] * x[1], 1e-12);
  return zy_report();
}
