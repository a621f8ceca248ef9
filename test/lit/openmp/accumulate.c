// lit/openmp/accumulate.c - how the reverse of a parallel region adds
// adjoints to shadow memory (parallel/ownership.c): an element only its own
// iteration of the worksharing loop reads (x[i]) gets a plain add; a
// neighbour read by another iteration (x[i+1]), a shared scalar, a
// reduction's shared variable and a `#pragma omp atomic` target get atomic
// adds (taken only when omp_get_active_level(), asked once per reverse,
// says other threads run; plain ones otherwise); the shadow of the
// thread's own stack frame stays plain; parameters every iteration reads
// in an inner loop get a per-thread buffer, flushed with atomic adds once
// the reverse leaves the loop (privatize.c).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openmp
// RUN: %clang -fopenmp -O2 -S -emit-llvm %s -o %t.ll
// RUN: %FileCheck %s --check-prefix=OWNED < %t.ll
// RUN: %FileCheck %s --check-prefix=NEIGHBOUR < %t.ll
// RUN: %FileCheck %s --check-prefix=SCALAR < %t.ll
// RUN: %FileCheck %s --check-prefix=PRIV < %t.ll
// RUN: %clang -fopenmp -O0 -S -emit-llvm %s -o %t0.ll
// RUN: %FileCheck %s --check-prefix=OWNED < %t0.ll
// RUN: %FileCheck %s --check-prefix=NEIGHBOUR < %t0.ll
#include <math.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const, enzyme_out;

// OWNED-LABEL: define internal void @__zymase_rev.owned.omp_outlined
// OWNED-NOT: atomicrmw fadd ptr {{.*}}, double
// OWNED: ret void
void owned(double *x, double *y, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    y[i] = sin(x[i]) * x[i];
}

// NEIGHBOUR-LABEL: define internal void @__zymase_rev.neighbour.omp_outlined
// NEIGHBOUR: call i32 @omp_get_active_level()
// NEIGHBOUR: atomicrmw fadd ptr {{.*}}, double
// NEIGHBOUR: ret void
void neighbour(double *x, double *y, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    y[i] = x[i] * x[i + 1];
}

// SCALAR-LABEL: define internal void @__zymase_rev.scalar.omp_outlined
// SCALAR: atomicrmw fadd ptr {{.*}}, double
// SCALAR: ret void
void scalar(double *x, double *y, double a, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    y[i] = a * x[i];
}

// PRIV-LABEL: define internal void @__zymase_rev.params.omp_outlined
// PRIV: call void @zymase.priv.flush.f64(
// PRIV: ret void
double params(double *p, const double *x, int n, int k) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < k; j++)
      s += p[j] * sin(x[i] * p[k + j]);
  return s;
}

void grads(double *x, double *dx, double *y, double *dy, int n) {
  __enzyme_autodiff((void *)owned, enzyme_dup, x, dx, enzyme_dup, y, dy,
                    enzyme_const, n);
  __enzyme_autodiff((void *)neighbour, enzyme_dup, x, dx, enzyme_dup, y, dy,
                    enzyme_const, n);
  __enzyme_autodiff((void *)scalar, enzyme_dup, x, dx, enzyme_dup, y, dy,
                    enzyme_out, 2.0, enzyme_const, n);
  __enzyme_autodiff((void *)params, enzyme_dup, x, dx, enzyme_const, y,
                    enzyme_const, n, enzyme_const, 4);
}
