// Forward mode through BLAS calls (blas/blas_tangent.c): every routine
// reverse mode differentiates (?dot ?axpy ?scal ?copy ?nrm2 ?asum ?gemv
// ?ger ?gemm ?syrk ?trsv ?trsm), by CBLAS and by the Fortran ABI, double
// and single precision, both layouts, transposes, triangles, sides, unit
// diagonals, padded leading dimensions, strides 2 and -1, the same array
// twice, active and constant alpha and beta, constant arrays, outputs
// overwritten in place.  Each case is a function f(a, b, P) of two
// scalars and a packed array P that it overwrites; along three directions
// its tangent (width 1) must match central finite differences, both for
// the result and for the final contents of P (the shadow), and
// dot(gradient, v) from reverse mode; vector mode (width 3, enzyme_dupv)
// must give the same three tangents and shadows, and the primal P must
// come out as without the plugin.  Last, Hessian-vector products as
// forward over reverse (__enzyme_fwddiff of a function that calls
// __enzyme_autodiff, the tangents of the adjoints' BLAS calls): through
// ddot and dgemv against the closed form, and of 14 of the cases against
// central differences of their gradients.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openblas
// RUN: %clang -O0 %s %openblas -lm -o %t0 && env OPENBLAS_NUM_THREADS=1 %t0
// RUN: %clang -O2 %s %openblas -lm -o %t2 && env OPENBLAS_NUM_THREADS=1 %t2
// RUN: %if !quick %{ %clang -O1 %s %openblas -lm -o %t1 && env OPENBLAS_NUM_THREADS=1 %t1 %}
// RUN: %if refblas %{ %clang -O2 %s %refblas -lm -o %t3 && %t3 %}
#include "check.h"

#include <cblas.h>
#include <string.h>

extern int enzyme_dup, enzyme_dupv, enzyme_width, enzyme_const;
typedef struct {
  double a, b;
} G2;
typedef struct {
  double d[3];
} T3;
G2 __enzyme_autodiff2(void *, ...);
void __enzyme_autodiff_void(void *, ...);
double __enzyme_fwddiff(void *, ...);
T3 __enzyme_fwddiff3(void *, ...);
void __enzyme_fwddiff_void(void *, ...);

double ddot_(const int *, const double *, const int *, const double *,
             const int *);
void daxpy_(const int *, const double *, const double *, const int *, double *,
            const int *);
void dscal_(const int *, const double *, double *, const int *);
void dcopy_(const int *, const double *, const int *, double *, const int *);
double dnrm2_(const int *, const double *, const int *);
double dasum_(const int *, const double *, const int *);
void dgemv_(const char *, const int *, const int *, const double *,
            const double *, const int *, const double *, const int *,
            const double *, double *, const int *);
void dger_(const int *, const int *, const double *, const double *,
           const int *, const double *, const int *, double *, const int *);
void dgemm_(const char *, const char *, const int *, const int *, const int *,
            const double *, const double *, const int *, const double *,
            const int *, const double *, double *, const int *);
void dsyrk_(const char *, const char *, const int *, const int *,
            const double *, const double *, const int *, const double *,
            double *, const int *);
void dtrsv_(const char *, const char *, const char *, const int *,
            const double *, const int *, double *, const int *);
void dtrsm_(const char *, const char *, const char *, const char *, const int *,
            const int *, const double *, const double *, const int *, double *,
            const int *);
float sdot_(const int *, const float *, const int *, const float *,
            const int *);

#define NP 48 /* the largest P */

/* sum (i % 3 + 1) v_i^2; macros, not functions: forward over reverse
 * through a callee's augmented forward and reverse pair loses the
 * tangents of its tape (the Hessian checks below). */
#define wsq(v, n)                                                              \
  ({                                                                           \
    double zy_s = 0;                                                           \
    for (int zy_i = 0; zy_i < (n); zy_i++)                                     \
      zy_s += (zy_i % 3 + 1) * (v)[zy_i] * (v)[zy_i];                          \
    zy_s;                                                                      \
  })

/* Strengthens the diagonal of an n x n triangle (lda) before a solve. */
#define diag4(A, n, lda)                                                       \
  do {                                                                         \
    for (int zy_i = 0; zy_i < (n); zy_i++)                                     \
      (A)[zy_i * (lda) + zy_i] += 4;                                           \
  } while (0)

/* --- Level 1 ------------------------------------------------------------ */

static const double K4[4] = {0.5, -1.25, 2.0, 0.75};

/* x: 4 of stride 2, y: 4 of stride -1, z: 4. */
double axpy_dot(double a, double b, double *P) {
  double *x = P, *y = P + 8, *z = P + 12;
  cblas_daxpy(4, a, x, 2, y, -1);
  cblas_daxpy(4, 1.5, y, 1, z, 1);
  return cblas_ddot(4, x, 2, y, -1) * b + cblas_ddot(4, z, 1, z, 1);
}

/* scal with an active and a constant factor, and with a negative stride
 * (which does nothing); copies with strides 2 and -1 and from constant
 * memory (a zero tangent). */
double scal_copy(double a, double b, double *P) {
  double *x = P, *y = P + 8, *z = P + 12, *w = P + 16;
  cblas_dscal(4, a, x, 2);
  cblas_dscal(4, b, y, -1);
  cblas_dcopy(4, x, 2, z, -1);
  cblas_dcopy(4, K4, 1, w, 1);
  cblas_dscal(4, 2.0, w, 1);
  return x[0] * y[1] + z[0] * z[3] + w[1] * x[2] + b * y[2];
}

double norms(double a, double b, double *P) {
  return a * cblas_dnrm2(4, P, 2) + b * cblas_dasum(5, P + 8, 1) +
         cblas_dnrm2(3, P + 13, 3) * cblas_dasum(2, P + 1, 4);
}

/* --- Level 2 ------------------------------------------------------------ */

/* A is 3 x 4 with lda 6 (row-major) or 5 (column-major); x has stride 2,
 * y stride -1. */
#define GEMV(name, L, T)                                                       \
  double name(double a, double b, double *P) {                                 \
    double *A = P, *x = P + 24, *y = P + 32;                                   \
    cblas_dgemv(L, T, 3, 4, a, A, L == CblasRowMajor ? 6 : 5, x, 2, b, y, -1); \
    return wsq(y, 4) + A[1] * y[1];                                            \
  }
GEMV(gemv_rn, CblasRowMajor, CblasNoTrans)
GEMV(gemv_rt, CblasRowMajor, CblasTrans)
GEMV(gemv_cn, CblasColMajor, CblasNoTrans)
GEMV(gemv_ct, CblasColMajor, CblasTrans)

/* Constant matrices, factors and vectors: only the active terms. */
static const double KA[12] = {1.0, -0.5, 2.0,  0.25, 1.5,  -1.0,
                              0.5, 0.75, -2.0, 1.25, -0.3, 0.6};
double gemv_const(double a, double b, double *P) {
  double *x = P, *y = P + 4, *y2 = P + 8, *A = P + 12, *y3 = P + 24;
  cblas_dgemv(CblasColMajor, CblasNoTrans, 3, 4, 0.5, KA, 3, x, 1, 2.0, y, 1);
  cblas_dgemv(CblasRowMajor, CblasTrans, 3, 4, a, KA, 4, x, 1, 0.0, y2, 1);
  cblas_dgemv(CblasRowMajor, CblasNoTrans, 3, 4, 1.0, A, 4, K4, 1, b, y3, 1);
  return wsq(y, 3) + wsq(y2, 4) + wsq(y3, 3);
}

/* A += a x y^T, A 3 x 4, lda 6 / 5, strides 2 and -1. */
#define GER(name, L)                                                           \
  double name(double a, double b, double *P) {                                 \
    double *x = P, *y = P + 5, *A = P + 10;                                    \
    cblas_dger(L, 3, 4, a, x, 2, y, -1, A, L == CblasRowMajor ? 6 : 5);        \
    return wsq(A, 20) + b * x[0];                                              \
  }
GER(ger_r, CblasRowMajor)
GER(ger_c, CblasColMajor)

/* op(A) x = b, n = 4, lda 5, in place, stride inc. */
#define TRSV(name, L, U, T, D, inc)                                            \
  double name(double a, double b, double *P) {                                 \
    double *A = P, *x = P + 20;                                                \
    diag4(A, 4, 5);                                                            \
    cblas_dtrsv(L, U, T, D, 4, A, 5, x, inc);                                  \
    return wsq(x, 7) * a + b * A[6];                                           \
  }
TRSV(trsv_run, CblasRowMajor, CblasUpper, CblasNoTrans, CblasNonUnit, 1)
TRSV(trsv_clt, CblasColMajor, CblasLower, CblasTrans, CblasUnit, -1)
TRSV(trsv_cut, CblasColMajor, CblasUpper, CblasTrans, CblasNonUnit, 2)
TRSV(trsv_rln, CblasRowMajor, CblasLower, CblasNoTrans, CblasUnit, 1)

/* --- Level 3 ------------------------------------------------------------ */

/* C = a op(A) op(B) + b C, m = 2, n = 3, k = 4, every leading dimension
 * one more than the matrix needs. */
#define LD(L, T, rows, cols)                                                   \
  (((L) == CblasRowMajor) == ((T) == CblasNoTrans) ? (cols) : (rows)) + 1
#define GEMM(name, L, TA, TB)                                                  \
  double name(double a, double b, double *P) {                                 \
    double *A = P, *B = P + 12, *C = P + 28;                                   \
    cblas_dgemm(L, TA, TB, 2, 3, 4, a, A, LD(L, TA, 2, 4), B, LD(L, TB, 4, 3), \
                b, C, L == CblasRowMajor ? 4 : 3);                             \
    return wsq(C, 9);                                                          \
  }
GEMM(gemm_rnn, CblasRowMajor, CblasNoTrans, CblasNoTrans)
GEMM(gemm_rtn, CblasRowMajor, CblasTrans, CblasNoTrans)
GEMM(gemm_cnt, CblasColMajor, CblasNoTrans, CblasTrans)
GEMM(gemm_ctt, CblasColMajor, CblasTrans, CblasTrans)

/* A Gram matrix: the same array as both operands. */
double gemm_gram(double a, double b, double *P) {
  double *A = P, *C = P + 12;
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, 3, 3, 4, a, A, 4, A, 4,
              b, C, 3);
  return wsq(C, 9);
}

/* One triangle of C (n = 3, k = 2, lda 4, ldc 4) updated. */
double syrk_cun(double a, double b, double *P) {
  double *A = P, *C = P + 8;
  cblas_dsyrk(CblasColMajor, CblasUpper, CblasNoTrans, 3, 2, a, A, 4, b, C, 4);
  return wsq(C, 12);
}
double syrk_rlt(double a, double b, double *P) {
  double *A = P, *C = P + 8;
  cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, 3, 2, a, A, 4, b, C, 4);
  return wsq(C, 12);
}

/* B := a op(A)^-1 B or a B op(A)^-1, m = 3, n = 2; A (na x na) has
 * lda na + 1, B ldb one more than it needs. */
#define TRSM(name, L, S, U, T, D)                                              \
  double name(double a, double b, double *P) {                                 \
    int na = S == CblasLeft ? 3 : 2;                                           \
    double *A = P, *B = P + 12;                                                \
    diag4(A, na, na + 1);                                                      \
    cblas_dtrsm(L, S, U, T, D, 3, 2, a, A, na + 1, B,                          \
                L == CblasRowMajor ? 3 : 4);                                   \
    return wsq(B, 9) + b * B[0];                                               \
  }
TRSM(trsm_clun, CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans,
     CblasNonUnit)
TRSM(trsm_rllt, CblasRowMajor, CblasLeft, CblasLower, CblasTrans, CblasUnit)
TRSM(trsm_crlt, CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit)
TRSM(trsm_rrun, CblasRowMajor, CblasRight, CblasUpper, CblasNoTrans, CblasUnit)

/* --- Fortran ABI --------------------------------------------------------- */

/* Every argument by pointer, a and b in local variables. */
double f_level1(double a, double b, double *P) {
  int n = 4, one = 1, two = 2, three = 3;
  double *x = P, *y = P + 4, z[4];
  daxpy_(&n, &a, x, &one, y, &two);
  dcopy_(&n, y, &two, z, &one);
  dscal_(&n, &b, z, &one);
  return ddot_(&n, z, &one, x, &one) * dnrm2_(&n, y, &two) +
         dasum_(&three, z, &one) * x[0];
}

/* A: 3 x 4 column-major, lda 5; the transpose in a char variable. */
double f_level2(double a, double b, double *P) {
  int m = 3, n = 4, lda = 5, one = 1, four = 4;
  double *A = P, *x = P + 20, *y = P + 24, *T = P + 28, c = 0.5;
  char t = 'T';
  dgemv_(&t, &m, &n, &a, A, &lda, x, &one, &b, y, &one);
  dger_(&m, &n, &a, x, &one, y, &one, A, &lda);
  diag4(T, 4, 5);
  dtrsv_("U", "t", "N", &four, T, &lda, y, &one);
  return wsq(A, 20) + wsq(y, 4) * c;
}

double f_level3(double a, double b, double *P) {
  int m = 3, n = 2, k = 4, lda = 4, ldb = 3, ldc = 3, two = 2;
  double *A = P, *B = P + 16, *C = P + 28, *S = P + 34;
  dgemm_("n", "T", &m, &n, &k, &a, A, &lda, B, &ldb, &b, C, &ldc);
  dsyrk_("L", "N", &m, &two, &b, A, &lda, &a, S, &ldc);
  double *T = P + 44, one = 1.0;
  diag4(T, 2, 2);
  dtrsm_("R", "L", "N", "U", &m, &n, &one, T, &n, C, &ldc);
  return wsq(C, 6) + wsq(S, 9);
}

/* --- Single precision ------------------------------------------------------
 */

double single(double a, double b, double *P) {
  float A[12], x[4], y[4], C[9], af = (float)a, bf = (float)b;
  for (int i = 0; i < 12; i++)
    A[i] = (float)P[i];
  for (int i = 0; i < 4; i++)
    x[i] = (float)P[12 + i], y[i] = (float)P[16 + i];
  for (int i = 0; i < 9; i++)
    C[i] = (float)P[20 + i];
  int n = 4, one = 1;
  cblas_sgemv(CblasRowMajor, CblasTrans, 3, 4, af, A, 4, x, 1, bf, y, 1);
  cblas_sgemm(CblasColMajor, CblasTrans, CblasNoTrans, 3, 3, 4, 0.5f, A, 4, A,
              4, bf, C, 3);
  for (int i = 0; i < 4; i++)
    P[16 + i] = y[i];
  for (int i = 0; i < 9; i++)
    P[20 + i] = C[i];
  return cblas_sdot(4, x, 1, y, 1) + sdot_(&n, y, &one, y, &one) +
         cblas_snrm2(9, C, 1);
}

/* --- The checks ------------------------------------------------------------
 */

typedef double (*Fn)(double, double, double *);
typedef double (*Fwd1)(double, double, double, double, double *, double *);
typedef T3 (*Fwd3)(double, const double *, double, const double *, double *,
                   double *);
typedef G2 (*Rev)(double, double, double *, double *);
typedef struct {
  const char *name;
  Fn f;
  Fwd1 t1;
  Fwd3 t3;
  Rev g;
  int np;
  double h, tol, tight; /* finite differences, against each other */
} Case;

#define CASE(fn, np, h, tol, tight)                                            \
  static double t1_##fn(double a, double da, double b, double db, double *P,   \
                        double *dP) {                                          \
    return __enzyme_fwddiff((void *)fn, a, da, b, db, P, dP);                  \
  }                                                                            \
  static T3 t3_##fn(double a, const double *da, double b, const double *db,    \
                    double *P, double *dP) {                                   \
    return __enzyme_fwddiff3((void *)fn, enzyme_width, 3, a, da[0], da[1],     \
                             da[2], b, db[0], db[1], db[2], enzyme_dupv,       \
                             (int)(NP * sizeof(double)), P, dP);               \
  }                                                                            \
  static G2 g_##fn(double a, double b, double *P, double *gP) {                \
    return __enzyme_autodiff2((void *)fn, a, b, P, gP);                        \
  }                                                                            \
  static const Case c_##fn = {#fn, fn, t1_##fn, t3_##fn, g_##fn,               \
                              np,  h,  tol,     tight};
#define DCASE(fn, np) CASE(fn, np, 1e-3, 1e-7, 1e-10)
DCASE(axpy_dot, 16)
DCASE(scal_copy, 20)
DCASE(norms, 22)
DCASE(gemv_rn, 36)
DCASE(gemv_rt, 36)
DCASE(gemv_cn, 36)
DCASE(gemv_ct, 36)
DCASE(gemv_const, 27)
DCASE(ger_r, 30)
DCASE(ger_c, 30)
DCASE(trsv_run, 27)
DCASE(trsv_clt, 27)
DCASE(trsv_cut, 27)
DCASE(trsv_rln, 27)
DCASE(gemm_rnn, 37)
DCASE(gemm_rtn, 37)
DCASE(gemm_cnt, 37)
DCASE(gemm_ctt, 37)
DCASE(gemm_gram, 21)
DCASE(syrk_cun, 20)
DCASE(syrk_rlt, 20)
DCASE(trsm_clun, 21)
DCASE(trsm_rllt, 21)
DCASE(trsm_crlt, 21)
DCASE(trsm_rrun, 21)
DCASE(f_level1, 11)
DCASE(f_level2, 48)
DCASE(f_level3, 48)
CASE(single, 29, 1e-2, 3e-3, 1e-4)

static int failed;
static void check(const Case *k, const char *what, int i, double got,
                  double want, double tol) {
  zy_checks++;
  double scale = fabs(want) > 1 ? fabs(want) : 1;
  if (fabs(got - want) <= tol * scale)
    return;
  zy_failures++, failed++;
  printf("FAIL %s %s[%d]: got %.17g, want %.17g\n", k->name, what, i, got,
         want);
}

/* Deterministic data in [-1.5, 1.5], never 0. */
static void fill(double *p, int n, int seed) {
  for (int i = 0; i < n; i++) {
    double v = sin(1.7 * (i + 1) + 0.37 * seed) * 1.5;
    p[i] = fabs(v) < 0.05 ? 0.3 : v;
  }
}

/* f at (a, b, P0) + t v, v = (da, db, dP): the result, and P after. */
static double eval(const Case *k, double a, double b, const double *P0,
                   const double *v, double t, double *P) {
  for (int i = 0; i < NP; i++)
    P[i] = P0[i] + t * v[2 + i];
  return k->f(a + t * v[0], b + t * v[1], P);
}

/* Central differences (one Richardson step) along v of the result and of
 * P after the call. */
static double fd(const Case *k, double a, double b, const double *P0,
                 const double *v, double *dP) {
  double P[4][NP], r[4], hs[4] = {k->h, -k->h, k->h / 2, -k->h / 2};
  for (int s = 0; s < 4; s++)
    r[s] = eval(k, a, b, P0, v, hs[s], P[s]);
  for (int i = 0; i < NP; i++)
    dP[i] =
        (4 * (P[2][i] - P[3][i]) / k->h - (P[0][i] - P[1][i]) / (2 * k->h)) / 3;
  return (4 * (r[2] - r[3]) / k->h - (r[0] - r[1]) / (2 * k->h)) / 3;
}

static void run(const Case *k, int seed) {
  double P0[NP] = {0}, v[3][NP + 2], P[NP], Pout[NP], dP[NP], fdP[NP];
  double a = 0.85 + 0.037 * seed, b = -0.7 + 0.03 * seed, d1[3], dP1[3][NP];
  int before = zy_failures;
  fill(P0, k->np, seed);
  memset(v, 0, sizeof v);
  for (int j = 0; j < 3; j++)
    fill(v[j], k->np + 2, 3 * seed + 11 + j);
  memcpy(Pout, P0, sizeof P);
  k->f(a, b, Pout);
  for (int j = 0; j < 3; j++) { /* width 1 against finite differences */
    memcpy(P, P0, sizeof P), memcpy(dP, v[j] + 2, sizeof dP);
    d1[j] = k->t1(a, v[j][0], b, v[j][1], P, dP);
    memcpy(dP1[j], dP, sizeof dP);
    double want = fd(k, a, b, P0, v[j], fdP);
    check(k, "tangent", j, d1[j], want, k->tol);
    for (int i = 0; i < NP; i++) {
      check(k, "primal P", i, P[i], Pout[i], 1e-13);
      check(k, "shadow of P", j * NP + i, dP[i], fdP[i], k->tol);
    }
  }
  double gP[NP] = {0}; /* reverse mode: dot(gradient, v) */
  memcpy(P, P0, sizeof P);
  G2 g = k->g(a, b, P, gP);
  for (int j = 0; j < 3; j++) {
    double dot = g.a * v[j][0] + g.b * v[j][1];
    for (int i = 0; i < NP; i++)
      dot += gP[i] * v[j][2 + i];
    check(k, "dot(gradient, v)", j, d1[j], dot, k->tight);
  }
  double da[3], db[3], dP3[3 * NP]; /* width 3 */
  for (int j = 0; j < 3; j++) {
    da[j] = v[j][0], db[j] = v[j][1];
    memcpy(dP3 + j * NP, v[j] + 2, sizeof dP);
  }
  memcpy(P, P0, sizeof P);
  T3 r = k->t3(a, da, b, db, P, dP3);
  for (int j = 0; j < 3; j++) {
    check(k, "width 3 tangent", j, r.d[j], d1[j], k->tight);
    for (int i = 0; i < NP; i++)
      check(k, "width 3 shadow", j * NP + i, dP3[j * NP + i], dP1[j][i],
            k->tight);
  }
  for (int i = 0; i < NP; i++)
    check(k, "width 3 primal P", i, P[i], Pout[i], 1e-13);
  printf("%s %s: tangents %.10g %.10g %.10g\n",
         zy_failures == before ? "ok  " : "FAIL", k->name, d1[0], d1[1], d1[2]);
}

/* --- Hessian-vector products: forward over reverse ------------------------ */

#define HN 4
/* h(x) = s^2 / 4 + 1.5 t^2 / 2 with s = x^T M x (y = M x by dgemv, s =
 * ddot(x, y)) and t = ddot(w, x), M and w constant: with S = M + M^T,
 * H = (S x)(S x)^T / 2 + s S / 2 + 1.5 w w^T. */
static const double HM[16] = {2.0, 0.5,  -0.3, 0.1, 0.4, 1.5, 0.2,  -0.6,
                              0.3, -0.2, 1.0,  0.7, 0.0, 0.8, -0.5, 2.5};
static const double HW[HN] = {0.3, -1.1, 0.7, 0.5};
double hfun(const double *x) {
  double y[HN];
  cblas_dgemv(CblasColMajor, CblasNoTrans, HN, HN, 1.0, HM, HN, x, 1, 0.0, y,
              1);
  double s = cblas_ddot(HN, x, 1, y, 1), t = cblas_ddot(HN, HW, 1, x, 1);
  return s * s / 4 + 1.5 * t * t / 2;
}
void hgrad(const double *x, double *g) {
  memset(g, 0, HN * sizeof *g);
  __enzyme_autodiff_void((void *)hfun, enzyme_dup, x, g);
}

static void hessian_vector(void) {
  double x[HN] = {0.7, -0.4, 1.1, 0.3}, g[HN], hv[HN];
  int before = zy_failures;
  for (int c = 0; c < HN; c++) {
    double v[HN] = {0}, S[HN * HN], Mx[HN] = {0}, s = 0;
    v[c] = 1; /* column c of H */
    v[(c + 1) % HN] = 0.5;
    __enzyme_fwddiff_void((void *)hgrad, x, v, g, hv);
    for (int i = 0; i < HN; i++)
      for (int j = 0; j < HN; j++)
        S[i + HN * j] = HM[i + HN * j] + HM[j + HN * i];
    for (int i = 0; i < HN; i++)
      for (int j = 0; j < HN; j++)
        Mx[i] += S[i + HN * j] * x[j], s += x[i] * HM[i + HN * j] * x[j];
    double Mxv = 0, wv = 0;
    for (int i = 0; i < HN; i++)
      Mxv += Mx[i] * v[i], wv += HW[i] * v[i];
    for (int i = 0; i < HN; i++) {
      double want = Mx[i] * Mxv / 2 + 1.5 * HW[i] * wv;
      for (int j = 0; j < HN; j++)
        want += s * S[i + HN * j] * v[j] / 2;
      zy_checks++;
      if (fabs(hv[i] - want) > 1e-10 * (fabs(want) > 1 ? fabs(want) : 1)) {
        zy_failures++;
        printf("FAIL H v (column %d)[%d]: got %.17g, want %.17g\n", c, i, hv[i],
               want);
      }
    }
  }
  printf("%s Hessian-vector products through dgemv and ddot\n",
         zy_failures == before ? "ok  " : "FAIL");
}

/* Forward over reverse through the adjoints of the cases above: the
 * tangent of the gradient of f(a, b, P) along v against central
 * differences of the gradient. */
typedef void (*Grad)(const double *, double *, double *, double *);
typedef void (*HessVec)(const double *, const double *, double *, double *,
                        double *, double *, double *, double *);
#define HCASE(fn)                                                              \
  static void gr_##fn(const double *ab, double *P, double *gab, double *gP) {  \
    memset(gP, 0, NP * sizeof *gP);                                            \
    G2 g = __enzyme_autodiff2((void *)fn, ab[0], ab[1], P, gP);                \
    gab[0] = g.a, gab[1] = g.b;                                                \
  }                                                                            \
  static void hv_##fn(const double *ab, const double *dab, double *P,          \
                      double *dP, double *gab, double *hab, double *gP,        \
                      double *hP) {                                            \
    __enzyme_fwddiff_void((void *)gr_##fn, ab, dab, P, dP, gab, hab, gP, hP);  \
  }
HCASE(axpy_dot)
HCASE(scal_copy)
HCASE(norms)
HCASE(gemv_rt)
HCASE(gemv_const)
HCASE(ger_c)
HCASE(trsv_clt)
HCASE(gemm_cnt)
HCASE(gemm_gram)
HCASE(syrk_rlt)
HCASE(trsm_rllt)
HCASE(trsm_crlt)
HCASE(f_level1)
HCASE(f_level3)

/* The gradient at (a, b, P0) + t v, as NP + 2 numbers. */
static void grad_at(Grad gr, const double *ab, const double *P0,
                    const double *v, double t, double *out) {
  double abt[2] = {ab[0] + t * v[0], ab[1] + t * v[1]}, P[NP];
  for (int i = 0; i < NP; i++)
    P[i] = P0[i] + t * v[2 + i];
  gr(abt, P, out, out + 2);
}

static void hessian_case(const char *name, Grad gr, HessVec hv, int np,
                         int seed) {
  double ab[2] = {0.85 + 0.037 * seed, -0.7 + 0.03 * seed}, P0[NP] = {0};
  double v[NP + 2] = {0}, P[NP], dP[NP], g[NP + 2], h[NP + 2], G[4][NP + 2];
  int before = zy_failures;
  fill(P0, np, seed), fill(v, np + 2, 3 * seed + 11);
  memcpy(P, P0, sizeof P), memcpy(dP, v + 2, sizeof dP);
  hv(ab, v, P, dP, g, h, g + 2, h + 2);
  double hs[4] = {1e-3, -1e-3, 5e-4, -5e-4};
  for (int s = 0; s < 4; s++)
    grad_at(gr, ab, P0, v, hs[s], G[s]);
  for (int i = 0; i < NP + 2; i++) {
    double d1 = (G[0][i] - G[1][i]) / 2e-3, d2 = (G[2][i] - G[3][i]) / 1e-3;
    double want = (4 * d2 - d1) / 3, scale = fabs(want) > 1 ? fabs(want) : 1;
    zy_checks++;
    if (fabs(h[i] - want) > 1e-6 * scale) {
      zy_failures++;
      printf("FAIL H v of %s [%d]: got %.17g, want %.17g\n", name, i, h[i],
             want);
    }
  }
  printf("%s H v of %s\n", zy_failures == before ? "ok  " : "FAIL", name);
}
#define RUN_H(fn, seed) hessian_case(#fn, gr_##fn, hv_##fn, c_##fn.np, seed)

int main(void) {
  const Case *cases[] = {
      &c_axpy_dot, &c_scal_copy, &c_norms,      &c_gemv_rn,   &c_gemv_rt,
      &c_gemv_cn,  &c_gemv_ct,   &c_gemv_const, &c_ger_r,     &c_ger_c,
      &c_trsv_run, &c_trsv_clt,  &c_trsv_cut,   &c_trsv_rln,  &c_gemm_rnn,
      &c_gemm_rtn, &c_gemm_cnt,  &c_gemm_ctt,   &c_gemm_gram, &c_syrk_cun,
      &c_syrk_rlt, &c_trsm_clun, &c_trsm_rllt,  &c_trsm_crlt, &c_trsm_rrun,
      &c_f_level1, &c_f_level2,  &c_f_level3,   &c_single};
  for (unsigned k = 0; k < sizeof cases / sizeof *cases; k++)
    run(cases[k], (int)k + 1);
  hessian_vector();
  RUN_H(axpy_dot, 40);
  RUN_H(scal_copy, 41);
  RUN_H(norms, 42);
  RUN_H(gemv_rt, 43);
  RUN_H(gemv_const, 44);
  RUN_H(ger_c, 45);
  RUN_H(trsv_clt, 46);
  RUN_H(gemm_cnt, 47);
  RUN_H(gemm_gram, 48);
  RUN_H(syrk_rlt, 49);
  RUN_H(trsm_rllt, 50);
  RUN_H(trsm_crlt, 51);
  RUN_H(f_level1, 52);
  RUN_H(f_level3, 53);
  return zy_report();
}
