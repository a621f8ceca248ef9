// memset of a single double (which the pre-AD pipeline turns into a store
// of the integer 0) was refused: "floating-point data is stored as an
// integer".  A constant integer stored to float memory is a constant float;
// its adjoint is cleared like memset's.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -o %t0 && %t0
// RUN: %clang -O2 %s -o %t2 && %t2
#include "check.h"

#include <string.h>

void __enzyme_autodiff(void *, ...);

double f(double *x) {
  double a = x[0] * x[0];
  memset(x, 0, sizeof(double));
  return a * x[1] + x[0];
}

int main(void) {
  double x[2] = {0.5, 2}, dx[2] = {3, 0};
  __enzyme_autodiff((void *)f, x, dx);
  zy_check_close("dx[0]", dx[0], 2 * 0.5 * 2, 0);
  zy_check_close("dx[1]", dx[1], 0.25, 0);
  zy_check_close("primal", x[0], 0, 0);
  return zy_report();
}
