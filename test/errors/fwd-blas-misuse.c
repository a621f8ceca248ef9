// errors/fwd-blas-misuse.c - BLAS calls forward mode does not differentiate, as in reverse mode (errors/blas-misuse.c): a routine not in the table (cblas_dsymm), a transpose argument that is not a constant, and, in vector mode, derivatives written into an array without a shadow: located errors naming the routine, never a crash.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openblas
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
#include <cblas.h>

double __enzyme_fwddiff(void *, ...);
typedef struct {
  double d[2];
} T2;
T2 __enzyme_fwddiff2(void *, ...);
extern int enzyme_const, enzyme_width;

double symm(double *A, double *B) {
  double C[4];
  // CHECK-DAG: fwd-blas-misuse.c:[[@LINE+2]]:3: error: [zymase:no-rule] cannot differentiate 'symm': the BLAS routine 'cblas_dsymm' is not differentiated yet
  // CHECK-DAG: hint: Zymase differentiates ?dot ?axpy ?scal ?copy ?nrm2 ?asum ?gemv ?ger ?gemm ?syrk ?trsv ?trsm (d and s, CBLAS and Fortran names)
  cblas_dsymm(CblasColMajor, CblasLeft, CblasUpper, 2, 2, 1.0, A, 2, B, 2, 0.0, C, 2);
  return C[0] * C[3];
}

double trans(double *A, double *x, int t) {
  double y[2];
  // CHECK-DAG: fwd-blas-misuse.c:[[@LINE+2]]:3: error: [zymase:unsupported] cannot differentiate 'trans': argument 2 of the BLAS routine 'cblas_dgemv' is not a known constant
  // CHECK-DAG: hint: pass the transpose, triangle, diagonal and side arguments as constants
  cblas_dgemv(CblasRowMajor, (CBLAS_TRANSPOSE)t, 2, 2, 1.0, A, 2, x, 1, 0.0, y, 1);
  return y[0] * y[1];
}

double noshadow(double *A, double *B, double *C) {
  // CHECK-DAG: fwd-blas-misuse.c:[[@LINE+2]]:3: error: [zymase:unsupported] cannot differentiate 'noshadow': the BLAS routine 'cblas_dgemm' writes derivatives into argument 13, which has no shadow
  // CHECK-DAG: hint: pass the array it writes with enzyme_dup
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1.0, A, 2, B, 2, 0.0, C, 2);
  return A[0];
}
// CHECK: 3 errors generated

void g(double *A, double *dA, double *B, double *dB, double *C, int t) {
  __enzyme_fwddiff((void *)symm, A, dA, B, dB);
  __enzyme_fwddiff((void *)trans, A, dA, B, dB, t);
  __enzyme_fwddiff2((void *)noshadow, enzyme_width, 2, A, dA, dA, B, dB, dB,
                    enzyme_const, C);
}
