// A malloc'd array that the function hands to its caller through a dup
// pointer: its shadow is stored into the caller's shadow, so the gradient
// must not free it (Enzyme leaves it to the caller, like the primal); it
// was freed in the reverse sweep, leaving the caller a dangling pointer.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -o %t0 && %valgrind %t0
// RUN: %clang -O2 %s -o %t2 && %valgrind %t2
#include "check.h"

void __enzyme_autodiff(void *, ...);

void make(double **out, const double *x) {
  double *t = malloc(2 * sizeof(double));
  t[0] = x[0] * x[0];
  t[1] = x[1];
  *out = t;
}

int main(void) {
  double x[2] = {3, 4}, dx[2] = {0};
  double *out = NULL, *dout = NULL;
  __enzyme_autodiff((void *)make, &out, &dout, x, dx);
  zy_check_close("primal", out[0], 9, 0);
  zy_check_close("shadow returned", dout != NULL, 1, 0);
  if (dout) {
    /* the shadow of the new array: zero, and owned by the caller */
    zy_check_close("shadow[0]", dout[0], 0, 0);
    zy_check_close("shadow[1]", dout[1], 0, 0);
    free(dout);
  }
  zy_check_close("dx[0]", dx[0], 0, 0);
  free(out);
  return zy_report();
}
