// memmove within one array, shifting elements down by one (overlapping
// source and destination): the reverse must move all the destination's
// adjoints before adding them to the source; moving them one element at a
// time in ascending order sent an adjoint twice (dx = {0, 0, 61}).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -o %t0 && %t0
// RUN: %clang -O2 %s -o %t2 && %t2
#include "fd-memory.h"

#include <string.h>

void __enzyme_autodiff(void *, ...);

/* x0' = x1, x1' = x2; returns x2 */
double shift_down(double *x) {
  memmove(x, x + 1, 2 * sizeof(double));
  return x[2];
}

/* the same with a length known only at run time */
double shift_down_n(double *x, int n) {
  memmove(x, x + 1, n * sizeof(double));
  return x[2];
}

int main(void) {
  /* objective: seed . x_after + x2 = 10 x1 + 20 x2 + 30 x2 + x2 */
  double want[3] = {0, 10, 51};
  double x[3] = {1, 2, 3}, dx[3] = {10, 20, 30};
  __enzyme_autodiff((void *)shift_down, x, dx);
  zy_check_array("shift_down/dx", dx, want, 3, 0);
  double y[3] = {1, 2, 3}, dy[3] = {10, 20, 30};
  __enzyme_autodiff((void *)shift_down_n, y, dy, 2);
  zy_check_array("shift_down_n/dx", dy, want, 3, 0);
  return zy_report();
}
