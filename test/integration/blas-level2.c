// Gradients through CBLAS level 2 calls: dgemv in both layouts, with and
// without transpose, leading dimensions larger than the matrix, strides 2
// and -1, alpha and beta active, y overwritten in place; dger in both
// layouts; sgemv.  Every entry of every input against finite differences.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openblas
// RUN: %clang -O0 %s %openblas -lm -o %t0 && env OPENBLAS_NUM_THREADS=1 %t0
// RUN: %if !quick %{ %clang -O1 %s %openblas -lm -o %t1 && env OPENBLAS_NUM_THREADS=1 %t1 %}
// RUN: %clang -O2 %s %openblas -lm -o %t2 && env OPENBLAS_NUM_THREADS=1 %t2
// RUN: %if refblas %{ %clang -O2 %s %refblas -lm -o %t3 && %t3 %}
#include "blas_fd.h"

#include <cblas.h>

typedef struct {
  double a, b;
} G2;
G2 __enzyme_autodiff2(void *, ...);
double __enzyme_autodiff(void *, ...);

#define OBJ(y) (y[0] * y[0] + 2 * y[1] * y[1] + 3 * y[2] * y[2] + y[3] * y[0])

/* A is 3 x 4 with lda 6 (row-major) or 5 (column-major); x has stride 2,
 * y stride -1. */
#define GEMV(name, L, T)                                                       \
  double name(double alpha, double beta, double *A, double *x, double *y) {   \
    cblas_dgemv(L, T, 3, 4, alpha, A, L == CblasRowMajor ? 6 : 5, x, 2, beta,  \
                y, -1);                                                        \
    return OBJ(y) + A[1] * y[1];                                               \
  }                                                                            \
  static double e_##name(const double *p) {                                   \
    double A[20], x[7], y[4];                                                  \
    memcpy(A, p + 2, sizeof A), memcpy(x, p + 22, sizeof x);                   \
    memcpy(y, p + 29, sizeof y);                                               \
    return name(p[0], p[1], A, x, y);                                          \
  }
GEMV(gemv_rn, CblasRowMajor, CblasNoTrans)
GEMV(gemv_rt, CblasRowMajor, CblasTrans)
GEMV(gemv_cn, CblasColMajor, CblasNoTrans)
GEMV(gemv_ct, CblasColMajor, CblasTrans)

/* A += alpha x y^T, A 3 x 4, lda 6 / 5, strides 2 and -1. */
#define GER(name, L)                                                           \
  double name(double alpha, double *x, double *y, double *A) {                 \
    cblas_dger(L, 3, 4, alpha, x, 2, y, -1, A, L == CblasRowMajor ? 6 : 5);    \
    double s = 0;                                                              \
    for (int i = 0; i < 20; i++)                                               \
      s += (i % 3 + 1) * A[i] * A[i];                                          \
    return s;                                                                  \
  }                                                                            \
  static double e_##name(const double *p) {                                   \
    double x[5], y[4], A[20];                                                  \
    memcpy(x, p + 1, sizeof x), memcpy(y, p + 6, sizeof y);                    \
    memcpy(A, p + 10, sizeof A);                                               \
    return name(p[0], x, y, A);                                                \
  }
GER(ger_r, CblasRowMajor)
GER(ger_c, CblasColMajor)

/* Single precision, row-major, transposed, constant alpha and beta. */
float f_sgemv(float *A, float *x, float *y) {
  cblas_sgemv(CblasRowMajor, CblasTrans, 3, 4, 0.5f, A, 4, x, 1, 2.0f, y, 1);
  return OBJ(y);
}
static double e_sgemv(const double *p) {
  float A[12], x[3], y[4];
  for (int i = 0; i < 12; i++)
    A[i] = (float)p[i];
  for (int i = 0; i < 3; i++)
    x[i] = (float)p[12 + i];
  for (int i = 0; i < 4; i++)
    y[i] = (float)p[15 + i];
  return f_sgemv(A, x, y);
}

#define RUN_GEMV(name, what, seed)                                             \
  do {                                                                         \
    zy_fill(p, 33, seed);                                                      \
    memset(g, 0, sizeof g);                                                    \
    double A[20], x[7], y[4];                                                  \
    memcpy(A, p + 2, sizeof A), memcpy(x, p + 22, sizeof x);                   \
    memcpy(y, p + 29, sizeof y);                                               \
    G2 r = __enzyme_autodiff2((void *)name, p[0], p[1], A, g + 2, x, g + 22,  \
                              y, g + 29);                                      \
    g[0] = r.a, g[1] = r.b;                                                    \
    zy_check_grad(what, e_##name, p, 33, g, 1e-3, 1e-7);                       \
  } while (0)

#define RUN_GER(name, what, seed)                                              \
  do {                                                                         \
    zy_fill(p, 30, seed);                                                      \
    memset(g, 0, sizeof g);                                                    \
    double x[5], y[4], A[20];                                                  \
    memcpy(x, p + 1, sizeof x), memcpy(y, p + 6, sizeof y);                    \
    memcpy(A, p + 10, sizeof A);                                               \
    g[0] = __enzyme_autodiff((void *)name, p[0], x, g + 1, y, g + 6, A,        \
                             g + 10);                                          \
    zy_check_grad(what, e_##name, p, 30, g, 1e-3, 1e-7);                       \
  } while (0)

int main(void) {
  double p[40], g[40];
  RUN_GEMV(gemv_rn, "dgemv row N", 10);
  RUN_GEMV(gemv_rt, "dgemv row T", 11);
  RUN_GEMV(gemv_cn, "dgemv col N", 12);
  RUN_GEMV(gemv_ct, "dgemv col T", 13);
  RUN_GER(ger_r, "dger row", 20);
  RUN_GER(ger_c, "dger col", 21);
  zy_fill(p, 19, 30);
  {
    float A[12], x[3], y[4], dA[12] = {0}, dx[3] = {0}, dy[4] = {0};
    for (int i = 0; i < 12; i++)
      A[i] = (float)p[i];
    for (int i = 0; i < 3; i++)
      x[i] = (float)p[12 + i];
    for (int i = 0; i < 4; i++)
      y[i] = (float)p[15 + i];
    __enzyme_autodiff((void *)f_sgemv, A, dA, x, dx, y, dy);
    for (int i = 0; i < 12; i++)
      g[i] = dA[i];
    for (int i = 0; i < 3; i++)
      g[12 + i] = dx[i];
    for (int i = 0; i < 4; i++)
      g[15 + i] = dy[i];
    zy_check_grad("sgemv", e_sgemv, p, 19, g, 1e-2, 2e-3);
  }
  return zy_report();
}
