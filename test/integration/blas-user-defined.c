// A function of the user's named like a BLAS routine (ddot_, with a body
// that doubles the result) is differentiated through its body, not as BLAS.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
#include "blas_fd.h"
double __enzyme_autodiff(void *, ...);
double ddot_(const int *n, const double *x, const int *incx, const double *y, const int *incy) {
  double s = 0;
  for (int i = 0; i < *n; i++) s += x[i * *incx] * y[i * *incy] * 2;
  return s;
}
double f(double *x) { int n = 3, one = 1; return ddot_(&n, x, &one, x, &one); }
int main(void) {
  double x[3] = {1, 2, 3}, dx[3] = {0};
  __enzyme_autodiff((void *)f, x, dx);
  zy_check_close("own ddot_", dx[1], 8, 1e-12);
  return zy_report();
}
