// A callee with a path that never returns (an error report that calls
// exit(), as reference BLAS's xerbla_) crashed clang: the reverse function
// of a function with no `ret` had an entry block without a terminator.
// Such a reverse is never entered; it is now `unreachable`.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
#include "check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void __enzyme_autodiff(void *, ...);

/* Never returns; reads memory, so it is not assumed inactive. */
__attribute__((noinline)) void report(const char *who, const int *info) {
  fprintf(stderr, "%s: bad argument %d\n", who, *info);
  exit(3);
}

__attribute__((noinline)) void square_sin(double *x, int n) {
  if (n < 0) {
    int bad = 2;
    report("square_sin", &bad);
  }
  for (int i = 0; i < n; i++)
    x[i] = x[i] * sin(x[i]);
}

double f(double *x, int n) {
  square_sin(x, n);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

static double f_at(const double *x0, int k, double t) {
  double x[3] = {x0[0], x0[1], x0[2]};
  x[k] = t;
  return f(x, 3);
}

int main(void) {
  const double x0[3] = {0.3, -1.1, 2.0};
  double x[3] = {0.3, -1.1, 2.0}, dx[3] = {0};
  extern int enzyme_const;
  __enzyme_autodiff((void *)f, x, dx, enzyme_const, 3);
  for (int k = 0; k < 3; k++) {
    double v = x0[k], y = v * sin(v);
    /* d/dv (v sin v)^2 */
    double want = 2 * y * (sin(v) + v * cos(v));
    double h = 1e-6;
    double fd = (f_at(x0, k, v + h) - f_at(x0, k, v - h)) / (2 * h);
    char what[16];
    snprintf(what, sizeof what, "dx[%d]", k);
    zy_check_close(what, dx[k], want, 1e-12);
    zy_check_close(what, dx[k], fd, 1e-6);
  }
  return zy_report();
}
int enzyme_const;
