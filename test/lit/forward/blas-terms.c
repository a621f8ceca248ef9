// lit/forward/blas-terms.c - the tangent of a BLAS call (blas/blas_tangent.c) has one BLAS call per argument with a tangent and none for constant ones, and computes what needs the inputs the call overwrites before the copy of the call: gemv with a constant matrix and constant factors is one gemv of dx (which applies beta to dy) beside the primal; with everything active three gemvs and the axpy of dbeta * y, all before the primal overwrites y; ddot with one constant vector one ddot; a triangular solve with a unit diagonal the primal first, then trmv on a copy of the solution, the correction for the unit diagonal and the solve.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openblas
// RUN: %clang -O0 -S -emit-llvm %s -o - | awk '/^define internal.*@__zymase_fwd/,/^}/' | %FileCheck %s
#include <cblas.h>

double __enzyme_fwddiff(void *, ...);
void __enzyme_fwddiff_void(void *, ...);
extern int enzyme_const;
static const double KA[6] = {1, 2, 3, 4, 5, 6};

// CHECK-LABEL: define internal {{.*}} @__zymase_fwd.gemv_x.
// CHECK-NOT: call {{.*}}@cblas
// CHECK: call void @cblas_dgemv(i32 102, i32 111, i32 2, i32 3, double 5.000000e-01, ptr nonnull @KA, i32 2, ptr %2, i32 1, double 2.000000e+00, ptr %3, i32 1)
// CHECK-NOT: call {{.*}}@cblas
// CHECK: call void @cblas_dgemv(i32 noundef 102, {{.*}}ptr noundef nonnull @KA
// CHECK-NOT: call {{.*}}@cblas
// CHECK: ret
double gemv_x(double *x, double *y) {
  cblas_dgemv(CblasColMajor, CblasNoTrans, 2, 3, 0.5, KA, 2, x, 1, 2.0, y, 1);
  return y[0] * y[1];
}

// Row-major and transposed: column-major, not transposed, m and n swapped.
// CHECK-LABEL: define internal {{.*}} @__zymase_fwd.gemv_all.
// CHECK-SAME: (double [[A:%[0-9]+]], double [[B:%[0-9]+]], ptr [[MA:%[0-9]+]], ptr [[X:%[0-9]+]], ptr [[Y:%[0-9]+]], double [[DA:%[0-9]+]], double [[DB:%[0-9]+]], ptr [[DMA:%[0-9]+]], ptr [[DX:%[0-9]+]], ptr [[DY:%[0-9]+]])
// CHECK: call void @cblas_dgemv(i32 102, i32 111, i32 3, i32 2, double [[A]], ptr [[MA]], i32 3, ptr [[DX]], i32 1, double [[B]], ptr [[DY]], i32 1)
// CHECK-NEXT: call void @cblas_dgemv(i32 102, i32 111, i32 3, i32 2, double [[A]], ptr [[DMA]], i32 3, ptr [[X]], i32 1, double 1.000000e+00, ptr [[DY]], i32 1)
// CHECK-NEXT: call void @cblas_dgemv(i32 102, i32 111, i32 3, i32 2, double [[DA]], ptr [[MA]], i32 3, ptr [[X]], i32 1, double 1.000000e+00, ptr [[DY]], i32 1)
// CHECK-NEXT: call void @cblas_daxpy(i32 3, double [[DB]], ptr [[Y]], i32 1, ptr [[DY]], i32 1)
// CHECK-NEXT: call void @cblas_dgemv(i32 noundef 101, i32 noundef 112,
// CHECK-NOT: call {{.*}}@cblas
// CHECK: ret
double gemv_all(double a, double b, double *A, double *x, double *y) {
  cblas_dgemv(CblasRowMajor, CblasTrans, 2, 3, a, A, 3, x, 1, b, y, 1);
  return y[0] * y[1];
}

// CHECK-LABEL: define internal {{.*}} @__zymase_fwd.dot_one.
// CHECK: call double @cblas_ddot(i32 noundef 3,
// CHECK-NEXT: call double @cblas_ddot(i32 3,
// CHECK-NOT: call {{.*}}@cblas
// CHECK: ret
double dot_one(double *x, double *y) { return cblas_ddot(3, x, 1, y, 1); }

// CHECK-LABEL: define internal {{.*}} @__zymase_fwd.trsv_A.
// CHECK-NOT: call {{.*}}@cblas
// CHECK: call void @cblas_dtrsv(i32 noundef 102,
// CHECK: call void @cblas_dcopy(
// CHECK-NEXT: call void @cblas_dtrmv(i32 102, i32 121, i32 111, i32 132,
// CHECK-NEXT: call void @cblas_daxpy(i32 3, double -1.000000e+00,
// CHECK-NEXT: call void @cblas_daxpy(i32 3, double 1.000000e+00,
// CHECK-NEXT: call void @free(
// CHECK-NEXT: call void @cblas_dtrsv(i32 102, i32 121, i32 111, i32 132,
// CHECK-NOT: call {{.*}}@cblas
// CHECK: ret
void trsv_A(double *A, double *x) {
  cblas_dtrsv(CblasColMajor, CblasUpper, CblasNoTrans, CblasUnit, 3, A, 3, x,
              1);
}

void use(double *A, double *dA, double *x, double *dx, double *y, double *dy) {
  __enzyme_fwddiff((void *)gemv_x, x, dx, y, dy);
  __enzyme_fwddiff((void *)gemv_all, 1.0, 2.0, 3.0, 4.0, A, dA, x, dx, y, dy);
  __enzyme_fwddiff((void *)dot_one, enzyme_const, x, y, dy);
  __enzyme_fwddiff_void((void *)trsv_A, A, dA, x, dx);
}
