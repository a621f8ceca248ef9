// errors/fwddiff-openmp.c - what __enzyme_fwddiff does not support in
// OpenMP code is a located error naming the construct: a task, an atomic
// update other than an add or subtract (`*=`: clang's compare-and-swap
// loop on the float's bits), an atomic capture whose old value has a
// derivative, and forward over reverse through a parallel region that
// takes a lock (a max reduction's critical section: its tangent
// deadlocked at 2 threads; other regions work,
// integration/fwd-openmp-hessian.c, and reverse over forward gives the
// Hessian-vector product: integration/fwd-openmp.c).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openmp
// RUN: %not %clang -fopenmp -O0 -g -c %s -o /dev/null 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -fopenmp -O2 -g -c %s -o /dev/null 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
#include <math.h>

double __enzyme_fwddiff(void *, ...);
void __enzyme_fwddiff_void(void *, ...);
void __enzyme_autodiff_void(void *, ...);
extern int enzyme_dup, enzyme_const;

double task(double *x, int n) {
  double s = 0;
#pragma omp parallel
#pragma omp single
  for (int i = 0; i < n; i++) {
  // CHECK: fwddiff-openmp.c:[[@LINE+1]]:{{[0-9]+}}: error: [zymase:unsupported] {{.*}}'task': the OpenMP construct 'task' (a call to '__kmpc_omp_task_alloc') is not differentiated yet
#pragma omp task firstprivate(i)
    x[i] = sin(x[i]);
  }
  for (int i = 0; i < n; i++)
    s += x[i];
  return s;
}
double dtask(double *x, double *dx, int n) {
  return __enzyme_fwddiff((void *)task, enzyme_dup, x, dx, enzyme_const, n);
}

double mul(double *x, int n) {
  double p = 1;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
#pragma omp atomic
    // CHECK: fwddiff-openmp.c:[[@LINE+1]]:{{[0-9]+}}: error: [zymase:unsupported] {{.*}}'mul': forward mode: floating-point data is loaded as an integer
    p *= x[i];
  }
  return p;
}
double dmul(double *x, double *dx, int n) {
  return __enzyme_fwddiff((void *)mul, enzyme_dup, x, dx, enzyme_const, n);
}

double capture(double *x, int n) {
  double s = 0, t = 0;
#pragma omp parallel for reduction(+ : t)
  for (int i = 0; i < n; i++) {
    double old;
#pragma omp atomic capture
    // CHECK: fwddiff-openmp.c:[[@LINE+2]]:{{[0-9]+}}: error: [zymase:unsupported] {{.*}}'capture': forward mode: the old value of an atomic add to floating-point memory (an `omp atomic capture`) used with a derivative
    // CHECK-NEXT: instruction: {{.*}}atomicrmw fadd
    { old = s; s += x[i]; }
    t += old * x[i];
  }
  return t;
}
double dcapture(double *x, double *dx, int n) {
  return __enzyme_fwddiff((void *)capture, enzyme_dup, x, dx, enzyme_const, n);
}

double red(double *x, int n) {
  double s = -1e300;
#pragma omp parallel for reduction(max : s)
  for (int i = 0; i < n; i++)
    s = fmax(s, x[i] * x[i]);
  return s * s;
}
void grad(double *x, double *g, int n) {
  __enzyme_autodiff_void((void *)red, enzyme_dup, x, g, enzyme_const, n);
}
// CHECK: error: [zymase:unsupported] cannot differentiate '__zymase_grad.red.{{.*}}': forward mode over the gradient of an OpenMP parallel region with a critical section, a lock or a max/min reduction (forward over reverse) is not supported yet
// CHECK-NEXT: instruction: {{.*}}.omp.fwd
// CHECK-NEXT: hint: take the Hessian-vector product as reverse over forward
// CHECK: 4 errors generated
void hess(double *x, double *v, double *g, double *hv, int n) {
  __enzyme_fwddiff_void((void *)grad, enzyme_dup, x, v, enzyme_dup, g, hv,
                        enzyme_const, n);
}
