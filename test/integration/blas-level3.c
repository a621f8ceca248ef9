// Gradients through CBLAS dgemm: both layouts, the four transpose
// combinations, leading dimensions larger than the matrices, alpha and beta
// active, C overwritten in place (its padding kept); a Gram matrix A A^T
// (the same array as both operands); sgemm.  Every entry of every input
// against finite differences.
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
void __enzyme_autodiff(void *, ...);

/* C = alpha op(A) op(B) + beta C with m = 3, n = 2, k = 4; lda 6, ldb 5,
 * ldc 4 (A: 24 entries, B: 20, C: 12, padding included). */
#define GEMM(name, L, TA, TB)                                                  \
  double name(double alpha, double beta, double *A, double *B, double *C) {   \
    cblas_dgemm(L, TA, TB, 3, 2, 4, alpha, A, 6, B, 5, beta, C, 4);            \
    double s = 0;                                                              \
    for (int i = 0; i < 12; i++)                                               \
      s += (i % 4 + 1) * C[i] * C[i];                                          \
    return s;                                                                  \
  }                                                                            \
  static double e_##name(const double *p) {                                   \
    double A[24], B[20], C[12];                                                \
    memcpy(A, p + 2, sizeof A), memcpy(B, p + 26, sizeof B);                   \
    memcpy(C, p + 46, sizeof C);                                               \
    return name(p[0], p[1], A, B, C);                                          \
  }
GEMM(gemm_rnn, CblasRowMajor, CblasNoTrans, CblasNoTrans)
GEMM(gemm_rtn, CblasRowMajor, CblasTrans, CblasNoTrans)
GEMM(gemm_rnt, CblasRowMajor, CblasNoTrans, CblasTrans)
GEMM(gemm_rtt, CblasRowMajor, CblasTrans, CblasTrans)
GEMM(gemm_cnn, CblasColMajor, CblasNoTrans, CblasNoTrans)
GEMM(gemm_ctn, CblasColMajor, CblasTrans, CblasNoTrans)
GEMM(gemm_cnt, CblasColMajor, CblasNoTrans, CblasTrans)
GEMM(gemm_ctt, CblasColMajor, CblasTrans, CblasTrans)

/* G = A A^T (row-major 3 x 4), in a local matrix. */
double gram(double *A) {
  double G[9];
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, 3, 3, 4, 1.0, A, 4, A,
              4, 0.0, G, 3);
  return G[0] * G[4] + G[1] * G[2] + G[5] * G[8] + G[3];
}
static double e_gram(const double *p) {
  double A[12];
  memcpy(A, p, sizeof A);
  return gram(A);
}

float f_sgemm(float *A, float *B) {
  float C[4];
  cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, 2, 2, 3, 1.5f, A, 3, B,
              3, 0.0f, C, 2);
  return C[0] * C[3] - C[1] * C[2];
}
static double e_sgemm(const double *p) {
  float A[6], B[6];
  for (int i = 0; i < 6; i++)
    A[i] = (float)p[i], B[i] = (float)p[6 + i];
  return f_sgemm(A, B);
}

#define RUN_GEMM(name, what, seed)                                             \
  do {                                                                         \
    zy_fill(p, 58, seed);                                                      \
    memset(g, 0, sizeof g);                                                    \
    double A[24], B[20], C[12];                                                \
    memcpy(A, p + 2, sizeof A), memcpy(B, p + 26, sizeof B);                   \
    memcpy(C, p + 46, sizeof C);                                               \
    G2 r = __enzyme_autodiff2((void *)name, p[0], p[1], A, g + 2, B, g + 26,  \
                              C, g + 46);                                      \
    g[0] = r.a, g[1] = r.b;                                                    \
    zy_check_grad(what, e_##name, p, 58, g, 1e-3, 1e-7);                       \
  } while (0)

int main(void) {
  double p[64], g[64];
  RUN_GEMM(gemm_rnn, "dgemm row NN", 40);
  RUN_GEMM(gemm_rtn, "dgemm row TN", 41);
  RUN_GEMM(gemm_rnt, "dgemm row NT", 42);
  RUN_GEMM(gemm_rtt, "dgemm row TT", 43);
  RUN_GEMM(gemm_cnn, "dgemm col NN", 44);
  RUN_GEMM(gemm_ctn, "dgemm col TN", 45);
  RUN_GEMM(gemm_cnt, "dgemm col NT", 46);
  RUN_GEMM(gemm_ctt, "dgemm col TT", 47);
  zy_fill(p, 12, 50);
  {
    double A[12];
    memcpy(A, p, sizeof A);
    memset(g, 0, sizeof g);
    __enzyme_autodiff((void *)gram, A, g);
    zy_check_grad("gram A A^T", e_gram, p, 12, g, 1e-3, 1e-7);
  }
  zy_fill(p, 12, 51);
  {
    float A[6], B[6], dA[6] = {0}, dB[6] = {0};
    for (int i = 0; i < 6; i++)
      A[i] = (float)p[i], B[i] = (float)p[6 + i];
    __enzyme_autodiff((void *)f_sgemm, A, dA, B, dB);
    for (int i = 0; i < 6; i++)
      g[i] = dA[i], g[6 + i] = dB[i];
    zy_check_grad("sgemm", e_sgemm, p, 12, g, 1e-2, 2e-3);
  }
  return zy_report();
}
