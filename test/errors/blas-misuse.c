// errors/blas-misuse.c - BLAS calls Zymase does not differentiate: routines not in the table yet (cblas_dsyr2k, cblas_dsymm; dtrmv_, a Fortran name Zymase does not know as BLAS, gets the error of external calls), a transpose argument that is not a constant, a layout that is not a constant, and derivatives written into an array without a shadow: located errors naming the routine, never a crash.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openblas
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
#include <cblas.h>

void __enzyme_autodiff(void *, ...);
extern int enzyme_const;
void dtrmv_(const char *, const char *, const char *, const int *,
            const double *, const int *, double *, const int *);

double syr2k(double *A) {
  double C[4];
  // CHECK-DAG: blas-misuse.c:[[@LINE+2]]:3: error: [zymase:no-rule] cannot differentiate 'syr2k': the BLAS routine 'cblas_dsyr2k' is not differentiated yet
  // CHECK-DAG: hint: Zymase differentiates ?dot ?axpy ?scal ?copy ?nrm2 ?asum ?gemv ?ger ?gemm ?syrk ?trsv ?trsm (d and s, CBLAS and Fortran names)
  cblas_dsyr2k(CblasRowMajor, CblasUpper, CblasNoTrans, 2, 3, 1.0, A, 3, A, 3, 0.0, C, 2);
  return C[0] + C[1] + C[3];
}

double trmv(double *A, double *x) {
  int n = 2, one = 1;
  // CHECK-DAG: blas-misuse.c:[[@LINE+1]]:3: error: [zymase:unsupported] cannot differentiate 'trmv': calls that receive pointers to memory with a shadow are not supported yet (a call to 'dtrmv_')
  dtrmv_("U", "N", "N", &n, A, &n, x, &one);
  return x[0] * x[1];
}

double symm(double *A, double *B) {
  double C[4];
  // CHECK-DAG: blas-misuse.c:[[@LINE+1]]:3: error: [zymase:no-rule] cannot differentiate 'symm': the BLAS routine 'cblas_dsymm' is not differentiated yet
  cblas_dsymm(CblasColMajor, CblasLeft, CblasUpper, 2, 2, 1.0, A, 2, B, 2, 0.0, C, 2);
  return C[0] * C[3];
}

double trans(double *A, double *x, int t) {
  double y[2];
  // CHECK-DAG: blas-misuse.c:[[@LINE+2]]:3: error: [zymase:unsupported] cannot differentiate 'trans': argument 2 of the BLAS routine 'cblas_dgemv' is not a known constant
  // CHECK-DAG: hint: pass the transpose, triangle, diagonal and side arguments as constants
  cblas_dgemv(CblasRowMajor, (CBLAS_TRANSPOSE)t, 2, 2, 1.0, A, 2, x, 1, 0.0, y, 1);
  return y[0] * y[1];
}

double layout(double *A, double *x, int l) {
  double y[2];
  // CHECK-DAG: blas-misuse.c:[[@LINE+1]]:3: error: [zymase:unsupported] cannot differentiate 'layout': the layout argument of 'cblas_dgemv' is not a constant
  cblas_dgemv((CBLAS_ORDER)l, CblasNoTrans, 2, 2, 1.0, A, 2, x, 1, 0.0, y, 1);
  return y[0] * y[1];
}

double noshadow(double *A, double *B, double *C) {
  // CHECK-DAG: blas-misuse.c:[[@LINE+2]]:3: error: [zymase:unsupported] cannot differentiate 'noshadow': the BLAS routine 'cblas_dgemm' writes derivatives into argument 13, which has no shadow
  // CHECK-DAG: hint: pass the array it writes with enzyme_dup
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, A, 2, B, 2, 0.0, C, 2);
  return A[0];
}
// CHECK: 6 errors generated

void g(double *A, double *dA, double *B, double *dB, double *C, int t) {
  __enzyme_autodiff((void *)syr2k, A, dA);
  __enzyme_autodiff((void *)trmv, A, dA, B, dB);
  __enzyme_autodiff((void *)symm, A, dA, B, dB);
  __enzyme_autodiff((void *)trans, A, dA, B, dB, t);
  __enzyme_autodiff((void *)layout, A, dA, B, dB, t);
  __enzyme_autodiff((void *)noshadow, A, dA, B, dB, enzyme_const, C);
}
