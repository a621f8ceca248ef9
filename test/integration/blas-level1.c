// Gradients through CBLAS level 1 calls (ddot daxpy dscal dcopy dnrm2
// dasum, and sdot saxpy snrm2 sasum), differentiated by BLAS calls in the
// adjoint: strides (2, -1, -2), a vector dotted with itself, a scalar
// alpha that is active, arrays overwritten in place; every entry of every
// input against finite differences.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openblas
// RUN: %clang -O0 %s %openblas -lm -o %t0 && env OPENBLAS_NUM_THREADS=1 %t0
// RUN: %if !quick %{ %clang -O1 %s %openblas -lm -o %t1 && env OPENBLAS_NUM_THREADS=1 %t1 %}
// RUN: %clang -O2 %s %openblas -lm -o %t2 && env OPENBLAS_NUM_THREADS=1 %t2
// RUN: %if refblas %{ %clang -O2 %s %refblas -lm -o %t3 && %t3 %}
#include "blas_fd.h"

#include <cblas.h>

double __enzyme_autodiff(void *, ...);
float __enzyme_autodiff_f(void *, ...);

/* x: 9 entries read with stride 2, y: 5 read backwards; x . x too. */
double f_dot(double *x, double *y) {
  return cblas_ddot(5, x, 2, y, -1) * cblas_ddot(5, x, 2, x, 2) +
         cblas_ddot(3, y, 1, y, 1);
}
static double e_dot(const double *p) {
  double x[9], y[5];
  memcpy(x, p, sizeof x);
  memcpy(y, p + 9, sizeof y);
  return f_dot(x, y);
}

/* y (stride 2) += a x, then y . y */
double f_axpy(double a, double *x, double *y) {
  cblas_daxpy(5, a, x, 1, y, 2);
  return cblas_ddot(9, y, 1, y, 1) + y[0] * x[4];
}
static double e_axpy(const double *p) {
  double x[5], y[9];
  memcpy(x, p + 1, sizeof x);
  memcpy(y, p + 6, sizeof y);
  return f_axpy(p[0], x, y);
}

/* x (stride 2) *= a */
double f_scal(double a, double *x) {
  cblas_dscal(4, a, x, 2);
  return cblas_ddot(8, x, 1, x, 1) * x[1] + x[0];
}
static double e_scal(const double *p) {
  double x[8];
  memcpy(x, p + 1, sizeof x);
  return f_scal(p[0], x);
}

/* y (stride -2) = x: the odd entries of y keep their values */
double f_copy(double *x, double *y) {
  cblas_dcopy(4, x, 1, y, -2);
  y[1] *= x[0];
  return cblas_ddot(7, y, 1, y, 1);
}
static double e_copy(const double *p) {
  double x[4], y[7];
  memcpy(x, p, sizeof x);
  memcpy(y, p + 4, sizeof y);
  return f_copy(x, y);
}

double f_nrm2(double *x) {
  return cblas_dnrm2(5, x, 1) * x[0] + cblas_dnrm2(3, x, 2);
}
static double e_nrm2(const double *p) {
  double x[5];
  memcpy(x, p, sizeof x);
  return f_nrm2(x);
}

double f_asum(double *x) { return cblas_dasum(5, x, 1) * x[2]; }
static double e_asum(const double *p) {
  double x[5];
  memcpy(x, p, sizeof x);
  return f_asum(x);
}

/* Single precision: saxpy, sdot, snrm2, sasum, sscal. */
float f_single(float a, float *x, float *y) {
  cblas_saxpy(4, a, x, 1, y, 1);
  cblas_sscal(2, a, x, 2);
  return cblas_sdot(4, y, 1, y, 1) + cblas_snrm2(4, x, 1) * y[0] +
         cblas_sasum(4, y, 1);
}
static double e_single(const double *p) {
  float x[4], y[4];
  for (int i = 0; i < 4; i++)
    x[i] = (float)p[1 + i], y[i] = (float)p[5 + i];
  return f_single((float)p[0], x, y);
}

int main(void) {
  double p[16], g[16];
  zy_fill(p, 14, 1);
  memset(g, 0, sizeof g);
  {
    double x[9], y[5];
    memcpy(x, p, sizeof x), memcpy(y, p + 9, sizeof y);
    __enzyme_autodiff((void *)f_dot, x, g, y, g + 9);
    zy_check_grad("ddot", e_dot, p, 14, g, 1e-3, 1e-7);
  }
  zy_fill(p, 15, 2);
  memset(g, 0, sizeof g);
  {
    double x[5], y[9];
    memcpy(x, p + 1, sizeof x), memcpy(y, p + 6, sizeof y);
    g[0] = __enzyme_autodiff((void *)f_axpy, p[0], x, g + 1, y, g + 6);
    zy_check_grad("daxpy", e_axpy, p, 15, g, 1e-3, 1e-7);
  }
  zy_fill(p, 9, 3);
  memset(g, 0, sizeof g);
  {
    double x[8];
    memcpy(x, p + 1, sizeof x);
    g[0] = __enzyme_autodiff((void *)f_scal, p[0], x, g + 1);
    zy_check_grad("dscal", e_scal, p, 9, g, 1e-3, 1e-7);
  }
  zy_fill(p, 11, 4);
  memset(g, 0, sizeof g);
  {
    double x[4], y[7];
    memcpy(x, p, sizeof x), memcpy(y, p + 4, sizeof y);
    __enzyme_autodiff((void *)f_copy, x, g, y, g + 4);
    zy_check_grad("dcopy", e_copy, p, 11, g, 1e-3, 1e-7);
  }
  zy_fill(p, 5, 5);
  memset(g, 0, sizeof g);
  {
    double x[5];
    memcpy(x, p, sizeof x);
    __enzyme_autodiff((void *)f_nrm2, x, g);
    zy_check_grad("dnrm2", e_nrm2, p, 5, g, 1e-3, 1e-7);
  }
  zy_fill(p, 5, 6);
  memset(g, 0, sizeof g);
  {
    double x[5];
    memcpy(x, p, sizeof x);
    __enzyme_autodiff((void *)f_asum, x, g);
    zy_check_grad("dasum", e_asum, p, 5, g, 1e-3, 1e-7);
  }
  zy_fill(p, 9, 7);
  {
    float x[4], y[4], dx[4] = {0}, dy[4] = {0};
    for (int i = 0; i < 4; i++)
      x[i] = (float)p[1 + i], y[i] = (float)p[5 + i];
    g[0] = __enzyme_autodiff_f((void *)f_single, (float)p[0], x, dx, y, dy);
    for (int i = 0; i < 4; i++)
      g[1 + i] = dx[i], g[5 + i] = dy[i];
    zy_check_grad("single", e_single, p, 9, g, 1e-2, 2e-3);
  }
  return zy_report();
}
