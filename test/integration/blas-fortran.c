// Gradients through BLAS calls by the Fortran ABI (ddot_ daxpy_ dscal_
// dcopy_ dnrm2_ dasum_ dgemv_ dger_ dgemm_ sdot_ sgemm_: every argument
// by pointer, transposes as strings or char variables, alpha and beta in
// local variables, active): the adjoint calls the Fortran routines too.
// Every entry of every input against finite differences.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openblas
// RUN: %clang -O0 %s %openblas -lm -o %t0 && env OPENBLAS_NUM_THREADS=1 %t0
// RUN: %if !quick %{ %clang -O1 %s %openblas -lm -o %t1 && env OPENBLAS_NUM_THREADS=1 %t1 %}
// RUN: %clang -O2 %s %openblas -lm -o %t2 && env OPENBLAS_NUM_THREADS=1 %t2
// RUN: %if refblas %{ %clang -O0 %s %refblas -lm -o %t3 && %t3 %}
#include "blas_fd.h"

typedef struct {
  double a, b;
} G2;
G2 __enzyme_autodiff2(void *, ...);
double __enzyme_autodiff(void *, ...);

double ddot_(const int *n, const double *x, const int *incx, const double *y,
             const int *incy);
void daxpy_(const int *n, const double *a, const double *x, const int *incx,
            double *y, const int *incy);
void dscal_(const int *n, const double *a, double *x, const int *incx);
void dcopy_(const int *n, const double *x, const int *incx, double *y,
            const int *incy);
double dnrm2_(const int *n, const double *x, const int *incx);
double dasum_(const int *n, const double *x, const int *incx);
void dgemv_(const char *t, const int *m, const int *n, const double *alpha,
            const double *A, const int *lda, const double *x, const int *incx,
            const double *beta, double *y, const int *incy);
void dger_(const int *m, const int *n, const double *alpha, const double *x,
           const int *incx, const double *y, const int *incy, double *A,
           const int *lda);
void dgemm_(const char *ta, const char *tb, const int *m, const int *n,
            const int *k, const double *alpha, const double *A,
            const int *lda, const double *B, const int *ldb,
            const double *beta, double *C, const int *ldc);
float sdot_(const int *n, const float *x, const int *incx, const float *y,
            const int *incy);
void sgemm_(const char *ta, const char *tb, const int *m, const int *n,
            const int *k, const float *alpha, const float *A, const int *lda,
            const float *B, const int *ldb, const float *beta, float *C,
            const int *ldc);

/* x: 4, y: 7 (stride 2). */
double level1(double a, double *x, double *y) {
  int n = 4, one = 1, two = 2, three = 3;
  double z[4];
  daxpy_(&n, &a, x, &one, y, &two);
  dcopy_(&n, y, &two, z, &one);
  dscal_(&n, &a, z, &one);
  return ddot_(&n, z, &one, x, &one) * dnrm2_(&n, y, &two) +
         dasum_(&three, z, &one) * x[0];
}
static double e_level1(const double *p) {
  double x[4], y[7];
  memcpy(x, p + 1, sizeof x), memcpy(y, p + 5, sizeof y);
  return level1(p[0], x, y);
}

/* A: 3 x 4 column-major, lda 5; y = alpha A^T x + 0.5 y, then dger. */
double level2(double alpha, double *A, double *x, double *y) {
  int m = 3, n = 4, lda = 5, one = 1;
  double beta = 0.5;
  char t = 'T';
  dgemv_(&t, &m, &n, &alpha, A, &lda, x, &one, &beta, y, &one);
  dger_(&m, &n, &alpha, x, &one, y, &one, A, &lda);
  double s = 0;
  for (int i = 0; i < 20; i++)
    s += (i % 3 + 1) * A[i] * A[i];
  return s + y[0] * y[3];
}
static double e_level2(const double *p) {
  double A[20], x[3], y[4];
  memcpy(A, p + 1, sizeof A), memcpy(x, p + 21, sizeof x);
  memcpy(y, p + 24, sizeof y);
  return level2(p[0], A, x, y);
}

/* C = alpha A B^T + beta C, m = 3, n = 2, k = 4, lda 4, ldb 3, ldc 3. */
double level3(double alpha, double beta, double *A, double *B, double *C) {
  int m = 3, n = 2, k = 4, lda = 4, ldb = 3, ldc = 3;
  dgemm_("n", "T", &m, &n, &k, &alpha, A, &lda, B, &ldb, &beta, C, &ldc);
  double s = 0;
  for (int i = 0; i < 6; i++)
    s += (i % 4 + 1) * C[i] * C[i];
  return s;
}
static double e_level3(const double *p) {
  double A[16], B[12], C[6];
  memcpy(A, p + 2, sizeof A), memcpy(B, p + 18, sizeof B);
  memcpy(C, p + 30, sizeof C);
  return level3(p[0], p[1], A, B, C);
}

float single(float *x, float *A) {
  int n = 2, k = 3, one = 1;
  float C[4], alpha = 1.0f, beta = 0.0f;
  sgemm_("T", "N", &n, &n, &k, &alpha, A, &k, A, &k, &beta, C, &n);
  return C[0] * C[3] + sdot_(&k, x, &one, A, &one);
}
static double e_single(const double *p) {
  float x[3], A[6];
  for (int i = 0; i < 3; i++)
    x[i] = (float)p[i];
  for (int i = 0; i < 6; i++)
    A[i] = (float)p[3 + i];
  return single(x, A);
}

int main(void) {
  double p[40], g[40];
  zy_fill(p, 12, 60);
  memset(g, 0, sizeof g);
  {
    double x[4], y[7];
    memcpy(x, p + 1, sizeof x), memcpy(y, p + 5, sizeof y);
    g[0] = __enzyme_autodiff((void *)level1, p[0], x, g + 1, y, g + 5);
    zy_check_grad("fortran level 1", e_level1, p, 12, g, 1e-3, 1e-7);
  }
  zy_fill(p, 28, 61);
  memset(g, 0, sizeof g);
  {
    double A[20], x[3], y[4];
    memcpy(A, p + 1, sizeof A), memcpy(x, p + 21, sizeof x);
    memcpy(y, p + 24, sizeof y);
    g[0] = __enzyme_autodiff((void *)level2, p[0], A, g + 1, x, g + 21, y,
                             g + 24);
    zy_check_grad("fortran dgemv dger", e_level2, p, 28, g, 1e-3, 1e-7);
  }
  zy_fill(p, 36, 62);
  memset(g, 0, sizeof g);
  {
    double A[16], B[12], C[6];
    memcpy(A, p + 2, sizeof A), memcpy(B, p + 18, sizeof B);
    memcpy(C, p + 30, sizeof C);
    G2 r = __enzyme_autodiff2((void *)level3, p[0], p[1], A, g + 2, B, g + 18,
                              C, g + 30);
    g[0] = r.a, g[1] = r.b;
    zy_check_grad("fortran dgemm", e_level3, p, 36, g, 1e-3, 1e-7);
  }
  zy_fill(p, 9, 63);
  {
    float x[3], A[6], dx[3] = {0}, dA[6] = {0};
    for (int i = 0; i < 3; i++)
      x[i] = (float)p[i];
    for (int i = 0; i < 6; i++)
      A[i] = (float)p[3 + i];
    __enzyme_autodiff((void *)single, x, dx, A, dA);
    for (int i = 0; i < 3; i++)
      g[i] = dx[i];
    for (int i = 0; i < 6; i++)
      g[3 + i] = dA[i];
    zy_check_grad("fortran sgemm sdot", e_single, p, 9, g, 1e-2, 2e-3);
  }
  return zy_report();
}
