// realloc of memory allocated in the same function: the new shadow keeps
// the old shadow's contents (zero beyond), and the adjoints of the kept
// elements flow back to the old memory; no shadow leaks.  Also a buffer
// grown by realloc in a loop.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %valgrind %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %valgrind %t2
#include "fd.h"
#include <stdlib.h>

void __enzyme_autodiff(void *, ...);

/* Grows a buffer from 2 to 4 doubles, then shrinks it to 3. */
double grow(const double *x) {
  double *b = malloc(2 * sizeof(double));
  b[0] = x[0] * x[0];
  b[1] = sin(x[1]);
  b = realloc(b, 4 * sizeof(double));
  b[2] = b[0] * b[1];
  b[3] = x[2];
  b = realloc(b, 3 * sizeof(double));
  double r = b[0] + b[1] * b[2];
  free(b);
  return r;
}

/* realloc(NULL, n) allocates. */
double from_null(const double *x) {
  double *b = realloc(NULL, 2 * sizeof(double));
  b[0] = x[0] * x[1];
  b[1] = b[0] * x[0];
  double r = b[1];
  free(b);
  return r;
}

/* A buffer grown in a loop: realloc of a pointer that comes through phis
 * (its size through phis beside them). */
double grown_in_loop(const double *x, int n) {
  double *b = NULL;
  size_t cap = 0;
  for (int i = 0; i < n; i++) {
    if ((size_t)i >= cap) {
      cap = cap * 2 + 1;
      b = realloc(b, cap * sizeof *b);
    }
    b[i] = sin(x[0] * (i + 1));
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += b[i] * b[i];
  free(b);
  return s;
}

int main(void) {
  double x[3] = {1.2, -0.4, 2.0}, dx[3] = {0};
  __enzyme_autodiff((void *)grow, x, dx);
  /* r = a + s * a s = a + a s^2 with a = x0^2, s = sin x1 */
  double a = x[0] * x[0], s = sin(x[1]);
  zy_check_close("grow d/dx0", dx[0], 2 * x[0] * (1 + s * s), 1e-12);
  zy_check_close("grow d/dx1", dx[1], a * 2 * s * cos(x[1]), 1e-12);
  zy_check_close("grow d/dx2", dx[2], 0, 0);
  double y[2] = {1.5, 3}, dy[2] = {0};
  __enzyme_autodiff((void *)from_null, y, dy);
  zy_check_close("null d/dy0", dy[0], 2 * y[0] * y[1], 1e-12);
  zy_check_close("null d/dy1", dy[1], y[0] * y[0], 1e-12);
  for (int n = 0; n <= 10; n += 5) {
    double z[1] = {0.7}, dz[1] = {0}, want = 0;
    __enzyme_autodiff((void *)grown_in_loop, z, dz, n);
    for (int i = 1; i <= n; i++) /* d/dz sin(i z)^2 */
      want += 2 * i * sin(i * z[0]) * cos(i * z[0]);
    zy_check_close("grown in a loop d/dz", dz[0], want, 1e-12);
  }
  return zy_report();
}
