// Regression: the bits of a double passed to a function as an integer
// parameter, which stores them back as a double (in heap memory it
// returns), keep their derivative.  The call's integer argument carried
// none: the callee's store of integer bits over its double memory was
// refused.  Calls receiving the bits of a float are inlined into the
// differentiated copy before AD, so the bits are followed there.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %valgrind %t0
#include "check.h"

#include <stdint.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);

/* Stores the double whose bits are `flt` and an integer in a new block. */
__attribute__((noinline)) uint64_t *store_bits(uint64_t flt, uint64_t n) {
  uint64_t *data = malloc(2 * sizeof *data);
  double d;
  memcpy(&d, &flt, sizeof d);
  memcpy(data, &d, sizeof d);
  data[1] = n;
  return data;
}

double through_parameter(double x) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  uint64_t *data = store_bits(bits, 3);
  double y;
  memcpy(&y, data, sizeof y);
  double r = y * y * (double)data[1];
  free(data);
  return r; /* 3 x^2 */
}

int main(void) {
  for (int i = -3; i <= 3; i++) {
    double x = i / 2.0 + 0.1;
    char what[64];
    snprintf(what, sizeof what, "d/dx at %g", x);
    zy_check_close(what, __enzyme_autodiff((void *)through_parameter, x),
                   6 * x, 1e-14);
  }
  return zy_report();
}
