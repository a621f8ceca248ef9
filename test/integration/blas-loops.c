// Gradients through BLAS calls in a loop (caches per iteration) and in a
// noinline helper (split mode: augmented forward and reverse joined by a
// tape), with x overwritten between calls; the caches are freed (valgrind).
// A memcpy into an array only BLAS reads: its element type comes from the
// routine (type analysis seeded by the BLAS table).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openblas
// RUN: %clang -O0 -g %s %openblas -lm -o %t0 && env OPENBLAS_NUM_THREADS=1 %valgrind %t0
// RUN: %clang -O2 %s %openblas -lm -o %t2 && env OPENBLAS_NUM_THREADS=1 %t2
#include "blas_fd.h"
#include <cblas.h>
double __enzyme_autodiff(void *, ...);
__attribute__((noinline)) static void step(double a, double *x, double *y) {
  cblas_dscal(3, a, y, 1);
  cblas_daxpy(3, a, x, 1, y, 1);
}
double f(double a, double *x, double *y) {
  for (int i = 0; i < 3; i++) {
    step(a, x, y);
    x[i] = cblas_ddot(3, x, 1, y, 1) * 0.1;
  }
  return cblas_dnrm2(3, y, 1);
}
static double e(const double *p) { double x[3], y[3]; memcpy(x, p+1, 24); memcpy(y, p+4, 24); return f(p[0], x, y); }
double copied(double *A, double *x) {
  double y[3], x2[3];
  memcpy(x2, x, sizeof x2);
  cblas_dgemv(CblasRowMajor, CblasNoTrans, 3, 3, 1.0, A, 3, x2, 1, 0.0, y, 1);
  return cblas_ddot(3, y, 1, y, 1);
}
static double e_copied(const double *p) {
  double A[9], x[3];
  memcpy(A, p, sizeof A), memcpy(x, p + 9, sizeof x);
  return copied(A, x);
}

int main(void) {
  double p[7], g[7] = {0};
  zy_fill(p, 7, 3);
  double x[3], y[3]; memcpy(x, p+1, 24); memcpy(y, p+4, 24);
  g[0] = __enzyme_autodiff((void *)f, p[0], x, g + 1, y, g + 4);
  zy_check_grad("loop", e, p, 7, g, 1e-3, 1e-7);
  double q[12], gq[12] = {0}, A[9], x2[3];
  zy_fill(q, 12, 5);
  memcpy(A, q, sizeof A), memcpy(x2, q + 9, sizeof x2);
  __enzyme_autodiff((void *)copied, A, gq, x2, gq + 9);
  zy_check_grad("memcpy then dgemv", e_copied, q, 12, gq, 1e-3, 1e-7);
  return zy_report();
}
