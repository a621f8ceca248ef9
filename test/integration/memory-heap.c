// Heap temporaries in differentiated code: malloc, calloc and aligned_alloc
// (constant and variable sizes), memcpy and memset into them, pointers
// stored in heap memory, and free.  Against closed forms and finite
// differences; under valgrind, the gradients must not leak their shadow
// memory nor touch memory out of bounds.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O0 -Xclang -load -Xclang %plugin -mllvm -zymase-verify -mllvm -zymase-no-preopt %s -lm -o %tn && %tn
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-verify %s -lm -o %tv && %tv
// RUN: %valgrind %t0 > /dev/null
// RUN: %valgrind %t2 > /dev/null
#include "fd-memory.h"

#include <string.h>

void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

/* a fixed-size malloc'd temporary */
double tmp3(const double *x) {
  double *t = malloc(3 * sizeof(double));
  t[0] = x[0] * x[1];
  t[1] = sin(x[2]);
  t[2] = t[0] + t[1];
  double r = t[2] * t[0];
  free(t);
  return r;
}

/* a variable-size copy of x, updated in place */
double copy_n(const double *x, int n) {
  double *t = malloc(n * sizeof(double));
  memcpy(t, x, n * sizeof(double));
  t[0] *= t[1];
  t[n - 1] += t[0] * t[0];
  double r = t[0] + t[n - 1] * t[1];
  free(t);
  return r;
}

/* calloc'd accumulators at variable indices */
double acc(const double *x, int i, int j) {
  double *t = calloc(3, sizeof(double));
  t[i] += x[0] * x[1];
  t[j] += exp(x[2]);
  double r = t[0] * t[1] + t[2];
  free(t);
  return r;
}

/* memset over memory holding earlier values, then partial writes */
double reset(const double *x, int n) {
  double *t = aligned_alloc(32, 64);
  t[0] = x[0] * 5;
  t[1] = x[1];
  t[2] = x[2] * x[0];
  memset(t, 0, n * sizeof(double));
  t[1] = x[1] * x[2];
  double r = t[0] + t[1] * x[0] + t[2];
  free(t);
  return r;
}

/* heap memory holding pointers to x and y */
double ptrs(double *x, double *y) {
  double **p = malloc(2 * sizeof(double *));
  p[0] = x;
  p[1] = y;
  double r = p[0][0] * p[1][0] + p[1][1] * p[1][1];
  free(p);
  return r;
}

int main(void) {
  double x[3] = {0.8, -1.3, 0.6}, dx[3], fd[3], want[3];

  memset(dx, 0, sizeof dx);
  __enzyme_autodiff((void *)tmp3, x, dx);
  {
    double t0 = x[0] * x[1], t2 = t0 + sin(x[2]);
    /* r = t2 * t0, d r = t0 d t2 + t2 d t0 */
    want[0] = (t0 + t2) * x[1];
    want[1] = (t0 + t2) * x[0];
    want[2] = t0 * cos(x[2]);
  }
  zy_check_array("tmp3/dx", dx, want, 3, ZY_TOL);
  for (int k = 0; k < 3; k++)
    fd[k] = ZY_DIFF_AT(x, k, tmp3(x));
  zy_check_array("tmp3/dx (finite diff)", dx, fd, 3, ZY_FD_TOL);

  for (int n = 2; n <= 3; n++) {
    memset(dx, 0, sizeof dx);
    __enzyme_autodiff((void *)copy_n, x, dx, n);
    for (int k = 0; k < 3; k++)
      fd[k] = ZY_DIFF_AT(x, k, copy_n(x, n));
    zy_check_array(n == 2 ? "copy_n(2)/dx (finite diff)"
                          : "copy_n(3)/dx (finite diff)",
                   dx, fd, 3, ZY_FD_TOL);
  }
  {
    /* n = 3: t0 = x0 x1, t2 = x2 + t0^2, r = t0 + t2 x1 */
    double t0 = x[0] * x[1], t2 = x[2] + t0 * t0;
    memset(dx, 0, sizeof dx);
    __enzyme_autodiff((void *)copy_n, x, dx, 3);
    double dt0 = 1 + x[1] * 2 * t0;
    want[0] = dt0 * x[1];
    want[1] = dt0 * x[0] + t2;
    want[2] = x[1];
    zy_check_array("copy_n(3)/dx", dx, want, 3, ZY_TOL);
  }

  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      memset(dx, 0, sizeof dx);
      __enzyme_autodiff((void *)acc, x, dx, i, j);
      for (int k = 0; k < 3; k++)
        fd[k] = ZY_DIFF_AT(x, k, acc(x, i, j));
      char what[64];
      snprintf(what, sizeof what, "acc(%d, %d)/dx (finite diff)", i, j);
      zy_check_array(what, dx, fd, 3, ZY_FD_TOL);
    }

  for (int n = 1; n <= 3; n++) {
    memset(dx, 0, sizeof dx);
    __enzyme_autodiff((void *)reset, x, dx, n);
    for (int k = 0; k < 3; k++)
      fd[k] = ZY_DIFF_AT(x, k, reset(x, n));
    char what[64];
    snprintf(what, sizeof what, "reset(%d)/dx (finite diff)", n);
    zy_check_array(what, dx, fd, 3, ZY_FD_TOL);
  }
  {
    /* n = 3 clears all of t[0..2]: r = x1 x2 x0 */
    memset(dx, 0, sizeof dx);
    __enzyme_autodiff((void *)reset, x, dx, 3);
    want[0] = x[1] * x[2];
    want[1] = x[2] * x[0];
    want[2] = x[1] * x[0];
    zy_check_array("reset(3)/dx", dx, want, 3, ZY_TOL);
  }

  {
    double y[2] = {2.5, -0.5}, dy[2] = {0};
    memset(dx, 0, sizeof dx);
    __enzyme_autodiff((void *)ptrs, x, dx, y, dy);
    zy_check_close("ptrs/dx[0]", dx[0], y[0], ZY_TOL);
    zy_check_close("ptrs/dy[0]", dy[0], x[0], ZY_TOL);
    zy_check_close("ptrs/dy[1]", dy[1], 2 * y[1], ZY_TOL);
  }
  return zy_report();
}
