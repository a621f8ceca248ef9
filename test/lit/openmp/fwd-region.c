// lit/openmp/fwd-region.c - forward mode through a parallel region: the
// tangent function forks a wrapper (`.omp.tan`) of the tangent of the
// outlined body, which gets the shared variables' shadows beside them and
// a firstprivate double's tangent as the integer of its bits; the body's
// reduction (clang's atomic branch after zymase's rewrite: no critical
// section) adds the tangent to the shadow atomically beside the value,
// and so does an `omp atomic` add.  Values: integration/fwd-openmp.c.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openmp
// RUN: %clang -fopenmp -O1 -S -emit-llvm %s -o %t.ll
// RUN: %FileCheck %s < %t.ll

double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

double f(double *x, double *h, int n) {
  double s = 0, a = x[0] * x[0];
#pragma omp parallel for reduction(+ : s) firstprivate(a)
  for (int i = 0; i < n; i++) {
    s += a * x[i] * x[i];
#pragma omp atomic
    h[i % 4] += x[i];
  }
  return s + h[0] * h[1];
}

double df(double *x, double *dx, double *h, double *dh, int n) {
  return __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_dup, h, dh,
                          enzyme_const, n);
}

// CHECK-LABEL: define internal {{.*}} @__zymase_fwd.f.
// CHECK: call void {{.*}}@__kmpc_fork_call(ptr {{.*}}, i32 {{[0-9]+}}, ptr {{.*}}@__zymase_fwd.f.omp_outlined{{.*}}.omp.tan,
// CHECK-LABEL: define internal void @__zymase_fwd.f.omp_outlined
// CHECK: atomicrmw fadd ptr %{{.*}}, double
// CHECK: atomicrmw fadd ptr %{{.*}}, double
// CHECK-NOT: __kmpc_critical
// CHECK: call void @__kmpc_for_static_fini(
// CHECK-NOT: __kmpc_critical
// CHECK: atomicrmw fadd ptr %{{.*}}, double
// CHECK-NOT: __kmpc_critical
// CHECK: atomicrmw fadd ptr %{{.*}}, double
// CHECK-NOT: __kmpc_critical
// CHECK-LABEL: define internal void @__zymase_fwd.f.omp_outlined{{.*}}.omp.tan(ptr {{.*}}, ptr {{.*}}, i64
// CHECK: bitcast i64 %{{.*}} to double
// CHECK: call void @__zymase_fwd.f.omp_outlined
