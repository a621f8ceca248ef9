// posix_memalign temporaries: the shadow gets its own aligned, zeroed
// allocation, reached through the shadow of the out-parameter, and is freed
// by the gradient when the function frees the memory (valgrind).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %valgrind %t0
// RUN: %clang -O2 %s -lm -o %t2 && %valgrind %t2
#define _POSIX_C_SOURCE 200112L
#include "check.h"

void __enzyme_autodiff(void *, ...);

double f(const double *x) {
  double *t;
  if (posix_memalign((void **)&t, 64, 4 * sizeof(double)))
    return 0;
  t[0] = x[0] * x[1];
  t[3] = sin(t[0]) + x[1];
  double r = t[3] * t[0];
  free(t);
  return r;
}

int main(void) {
  double x[2] = {0.6, 1.7}, dx[2] = {0};
  __enzyme_autodiff((void *)f, x, dx);
  /* r = (sin u + x1) u with u = x0 x1 */
  double u = x[0] * x[1], s = sin(u) + x[1];
  double dr_du = cos(u) * u + s;
  zy_check_close("d/dx0", dx[0], dr_du * x[1], 1e-12);
  zy_check_close("d/dx1", dx[1], dr_du * x[0] + u, 1e-12);
  return zy_report();
}
