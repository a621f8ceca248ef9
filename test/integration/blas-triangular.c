// Gradients through dtrsv and dtrsm (triangular solves: both layouts, both
// triangles, transposes, unit diagonals, both sides, alpha active, the
// right-hand side overwritten by the solution) and dsyrk (one triangle of
// C updated, alpha and beta active), by CBLAS and by the Fortran ABI.
// Entries of the unreferenced triangles get no derivative.  Every entry of
// every input against finite differences.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openblas
// RUN: %clang -O0 %s %openblas -lm -o %t0 && env OPENBLAS_NUM_THREADS=1 %t0
// RUN: %clang -O2 %s %openblas -lm -o %t2 && env OPENBLAS_NUM_THREADS=1 %t2
// RUN: %if refblas %{ %clang -O2 %s %refblas -lm -o %t3 && %t3 %}
#include "blas_fd.h"

#include <cblas.h>

typedef struct {
  double a, b;
} G2;
G2 __enzyme_autodiff2(void *, ...);
double __enzyme_autodiff(void *, ...);
void __enzyme_autodiff0(void *, ...);

void dtrsm_(const char *side, const char *uplo, const char *t, const char *d,
            const int *m, const int *n, const double *alpha, const double *A,
            const int *lda, double *B, const int *ldb);
void dsyrk_(const char *uplo, const char *t, const int *n, const int *k,
            const double *alpha, const double *A, const int *lda,
            const double *beta, double *C, const int *ldc);
void dtrsv_(const char *uplo, const char *t, const char *d, const int *n,
            const double *A, const int *lda, double *x, const int *incx);

static double wsq(const double *v, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (i % 4 + 1) * v[i] * v[i];
  return s;
}

/* A 3 x 3 in a 3 x 4 (lda 4) array, x stride 2. */
#define TRSV(name, L, U, T, D)                                                 \
  double name(double *A, double *x) {                                          \
    cblas_dtrsv(L, U, T, D, 3, A, 4, x, 2);                                    \
    return wsq(x, 5) + x[0] * x[4];                                            \
  }                                                                            \
  static double e_##name(const double *p) {                                    \
    double A[12], x[5];                                                        \
    memcpy(A, p, sizeof A), memcpy(x, p + 12, sizeof x);                       \
    return name(A, x);                                                         \
  }
TRSV(trsv_run, CblasRowMajor, CblasUpper, CblasNoTrans, CblasNonUnit)
TRSV(trsv_rlt, CblasRowMajor, CblasLower, CblasTrans, CblasNonUnit)
TRSV(trsv_cut, CblasColMajor, CblasUpper, CblasTrans, CblasNonUnit)
TRSV(trsv_cln, CblasColMajor, CblasLower, CblasNoTrans, CblasNonUnit)
TRSV(trsv_cun1, CblasColMajor, CblasUpper, CblasNoTrans, CblasUnit)

/* B m x n = 3 x 2 (ldb 4), A of order 3 (side left) or 2 (right), lda 4 */
#define TRSM(name, L, S, U, T, D)                                              \
  double name(double alpha, double *A, double *B) {                            \
    cblas_dtrsm(L, S, U, T, D, 3, 2, alpha, A, 4, B, 4);                       \
    return wsq(B, 12);                                                         \
  }                                                                            \
  static double e_##name(const double *p) {                                    \
    double A[16], B[12];                                                       \
    memcpy(A, p + 1, sizeof A), memcpy(B, p + 17, sizeof B);                   \
    return name(p[0], A, B);                                                   \
  }
TRSM(trsm_lrun, CblasRowMajor, CblasLeft, CblasUpper, CblasNoTrans,
     CblasNonUnit)
TRSM(trsm_lclt, CblasColMajor, CblasLeft, CblasLower, CblasTrans, CblasNonUnit)
TRSM(trsm_rrlt, CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit)
TRSM(trsm_rcun, CblasColMajor, CblasRight, CblasUpper, CblasNoTrans,
     CblasNonUnit)
TRSM(trsm_lcun1, CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasUnit)
TRSM(trsm_rrut, CblasRowMajor, CblasRight, CblasUpper, CblasTrans, CblasNonUnit)

/* C 3 x 3 (ldc 4) += alpha op(A) op(A)^T, k = 2, lda 4 */
#define SYRK(name, L, U, T)                                                    \
  double name(double alpha, double beta, double *A, double *C) {               \
    cblas_dsyrk(L, U, T, 3, 2, alpha, A, 4, beta, C, 4);                       \
    return wsq(C, 12);                                                         \
  }                                                                            \
  static double e_##name(const double *p) {                                    \
    double A[12], C[12];                                                       \
    memcpy(A, p + 2, sizeof A), memcpy(C, p + 14, sizeof C);                   \
    return name(p[0], p[1], A, C);                                             \
  }
SYRK(syrk_run, CblasRowMajor, CblasUpper, CblasNoTrans)
SYRK(syrk_clt, CblasColMajor, CblasLower, CblasTrans)
SYRK(syrk_rlt, CblasRowMajor, CblasLower, CblasTrans)
SYRK(syrk_cun, CblasColMajor, CblasUpper, CblasNoTrans)

/* Fortran: a solve with a 2 x 2 lower triangle from the right, then a rank
 * update of its result, then a vector solve. */
double fortran(double alpha, double *A, double *B) {
  int m = 3, n = 2, lda = 4, ldb = 4, k = 2, ldc = 3, one = 1, three = 3;
  double C[9] = {0}, zero = 0, b1 = 1;
  dtrsm_("R", "L", "N", "N", &m, &n, &alpha, A, &lda, B, &ldb);
  dsyrk_("L", "N", &m, &k, &b1, B, &ldb, &zero, C, &ldc);
  C[0] += 4, C[4] += 4, C[8] += 4;
  double x[3] = {1, 2, 3};
  dtrsv_("L", "T", "N", &three, C, &ldc, x, &one);
  return wsq(C, 9) + x[0] * x[1] + x[2];
}
static double e_fortran(const double *p) {
  double A[16], B[12];
  memcpy(A, p + 1, sizeof A), memcpy(B, p + 17, sizeof B);
  return fortran(p[0], A, B);
}

/* Triangular matrices with a dominant diagonal (order n, lda 4). */
static void boost(double *A, int n) {
  for (int i = 0; i < n; i++)
    A[i * 4 + i] += 3 * (A[i * 4 + i] > 0 ? 1 : -1);
}

#define RUN_TRSV(name, what, seed)                                             \
  static __attribute__((noinline)) void run_##name(void) {                     \
    double p[40], g[40];                                                       \
    zy_fill(p, 17, seed);                                                      \
    boost(p, 3);                                                               \
    memset(g, 0, sizeof g);                                                    \
    double A[12], x[5];                                                        \
    memcpy(A, p, sizeof A), memcpy(x, p + 12, sizeof x);                       \
    __enzyme_autodiff0((void *)name, A, g, x, g + 12);                         \
    zy_check_grad(what, e_##name, p, 17, g, 1e-3, 1e-7);                       \
  }

#define RUN_TRSM(name, what, seed)                                             \
  static __attribute__((noinline)) void run_##name(void) {                     \
    double p[40], g[40];                                                       \
    zy_fill(p, 29, seed);                                                      \
    boost(p + 1, 3);                                                           \
    memset(g, 0, sizeof g);                                                    \
    double A[16], B[12];                                                       \
    memcpy(A, p + 1, sizeof A), memcpy(B, p + 17, sizeof B);                   \
    g[0] = __enzyme_autodiff((void *)name, p[0], A, g + 1, B, g + 17);         \
    zy_check_grad(what, e_##name, p, 29, g, 1e-3, 1e-7);                       \
  }

#define RUN_SYRK(name, what, seed)                                             \
  static __attribute__((noinline)) void run_##name(void) {                     \
    double p[40], g[40];                                                       \
    zy_fill(p, 26, seed);                                                      \
    memset(g, 0, sizeof g);                                                    \
    double A[12], C[12];                                                       \
    memcpy(A, p + 2, sizeof A), memcpy(C, p + 14, sizeof C);                   \
    G2 r = __enzyme_autodiff2((void *)name, p[0], p[1], A, g + 2, C, g + 14);  \
    g[0] = r.a, g[1] = r.b;                                                    \
    zy_check_grad(what, e_##name, p, 26, g, 1e-3, 1e-7);                       \
  }

RUN_TRSV(trsv_run, "dtrsv row U N", 70)
RUN_TRSV(trsv_rlt, "dtrsv row L T", 71)
RUN_TRSV(trsv_cut, "dtrsv col U T", 72)
RUN_TRSV(trsv_cln, "dtrsv col L N", 73)
RUN_TRSV(trsv_cun1, "dtrsv col U N unit", 74)
RUN_TRSM(trsm_lrun, "dtrsm left row U N", 80)
RUN_TRSM(trsm_lclt, "dtrsm left col L T", 81)
RUN_TRSM(trsm_rrlt, "dtrsm right row L T", 82)
RUN_TRSM(trsm_rcun, "dtrsm right col U N", 83)
RUN_TRSM(trsm_lcun1, "dtrsm left col U N unit", 84)
RUN_TRSM(trsm_rrut, "dtrsm right row U T", 85)
RUN_SYRK(syrk_run, "dsyrk row U N", 90)
RUN_SYRK(syrk_clt, "dsyrk col L T", 91)
RUN_SYRK(syrk_rlt, "dsyrk row L T", 92)
RUN_SYRK(syrk_cun, "dsyrk col U N", 93)

int main(void) {
  double p[40], g[40];
  run_trsv_run();
  run_trsv_rlt();
  run_trsv_cut();
  run_trsv_cln();
  run_trsv_cun1();
  run_trsm_lrun();
  run_trsm_lclt();
  run_trsm_rrlt();
  run_trsm_rcun();
  run_trsm_lcun1();
  run_trsm_rrut();
  run_syrk_run();
  run_syrk_clt();
  run_syrk_rlt();
  run_syrk_cun();
  zy_fill(p, 29, 95);
  boost(p + 1, 3);
  memset(g, 0, sizeof g);
  {
    double A[16], B[12];
    memcpy(A, p + 1, sizeof A), memcpy(B, p + 17, sizeof B);
    g[0] = __enzyme_autodiff((void *)fortran, p[0], A, g + 1, B, g + 17);
    zy_check_grad("fortran dtrsm dsyrk dtrsv", e_fortran, p, 29, g, 1e-3, 1e-7);
  }
  return zy_report();
}
