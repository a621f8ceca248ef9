// errors/external-call-shadowed.c - external functions without a rule that receive memory with a shadow, shaped like BLAS calls (a 14-argument void call writing a local matrix, a call returning a double from two arrays): a located unsupported error naming the callee, at -O0 and -O2, never a crash.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

void __enzyme_autodiff(void *, ...);
void my_gemm(int order, int ta, int tb, int m, int n, int k, double alpha,
             const double *a, int lda, const double *b, int ldb, double beta,
             double *c, int ldc);
double my_dot(int n, const double *x, int incx, const double *y, int incy);

double f(double *A, double *B) {
  double C[4];
  // CHECK: external-call-shadowed.c:[[@LINE+3]]:3: error: [zymase:unsupported] cannot differentiate 'f': calls that receive pointers to memory with a shadow are not supported yet (a call to 'my_gemm')
  // CHECK-NEXT: instruction: {{.*}}call void @my_gemm(
  // NOG: error: [zymase:unsupported] cannot differentiate 'f': calls that receive pointers to memory with a shadow are not supported yet (a call to 'my_gemm')
  my_gemm(101, 111, 111, 2, 2, 2, 1.0, A, 2, B, 2, 0.0, C, 2);
  return C[0] + C[1] + C[2] + C[3];
}

double d(double *x, double *y) {
  // CHECK: external-call-shadowed.c:[[@LINE+4]]:10: error: [zymase:unsupported] cannot differentiate 'd': calls that receive pointers to memory with a shadow are not supported yet (a call to 'my_dot')
  // CHECK-NEXT: instruction: {{.*}}call double @my_dot(
  // CHECK: 2 errors generated
  // NOG: error: [zymase:unsupported] cannot differentiate 'd': calls that receive pointers to memory with a shadow are not supported yet (a call to 'my_dot')
  return my_dot(3, x, 1, y, 1);
}

void g(double *A, double *dA, double *B, double *dB) {
  __enzyme_autodiff((void *)f, A, dA, B, dB);
  __enzyme_autodiff((void *)d, A, dA, B, dB);
}
