// lit/openmp/region-tape.c - the tape of a parallel region keeps only what
// its reverse cannot load again (issue 31, ad/region_stable.c).  params: a
// GMM-like region reads the parameters p and a table q = exp(p) its caller
// allocated, both shared pointers captured by reference that nothing writes
// after; of the three loads of its inner loop only the per-thread scratch
// xc[j] (rewritten every iteration) stays on the tape, p[d + j] and q[j]
// are loaded again in the reverse (before: all three taped).  in_place
// overwrites what it reads: x[i] stays on the tape.  The cache report
// lists each region's values and ends with its tape per thread: bytes kept
// once and per iteration of each loop (params: 8 bytes per inner
// iteration; before, 24 and no such line).  integration/openmp-region-tape.c
// checks the gradients.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openmp
// clang-format off
// RUN: %clang -fopenmp -O2 -S -emit-llvm %s -o /dev/null -Xclang -load -Xclang %plugin -mllvm -zymase-print-cache 2>%t.report
// RUN: %FileCheck %s < %t.report
// RUN: awk '/cache of the gradient/ { p = /params.omp_outlined/ } p' %t.report > %t.params
// RUN: grep -c 'load: double, 8 bytes, recomputed' %t.params | %FileCheck %s --check-prefix=TWO
// RUN: grep -c 'load: double, 8 bytes, per iteration' %t.params | %FileCheck %s --check-prefix=ONE
// RUN: awk '/cache of the gradient/ { p = /in_place.omp_outlined/ } p' %t.report > %t.inplace
// RUN: grep -c 'load: double, 8 bytes, per iteration' %t.inplace | %FileCheck %s --check-prefix=ONE
// RUN: not grep 'load: double, 8 bytes, recomputed' %t.inplace
// CHECK: zymase: cache of the gradient of 'params.omp_outlined.zymase.region' (split mode)
// CHECK: tape per thread: {{[0-9]+}} bytes once, 8 bytes each iteration of loop 1, 8 bytes each iteration of loop 3{{$}}
// CHECK: zymase: cache of the gradient of 'in_place.omp_outlined.zymase.region' (split mode)
// CHECK: tape per thread: {{[0-9]+}} bytes once, 16 bytes each iteration of loop 1{{$}}
// TWO: {{^2$}}
// ONE: {{^1$}}
// clang-format on
#include <math.h>
#include <stdlib.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_const, enzyme_dup;

double params(const double *p, const double *a, int n, int d) {
  double s = 0;
  double *q = malloc(d * sizeof *q);
  for (int j = 0; j < d; j++)
    q[j] = exp(p[j]);
#pragma omp parallel
  {
    double *xc = malloc(d * sizeof *xc);
#pragma omp for reduction(+ : s)
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < d; j++)
        xc[j] = a[i * d + j] - p[j];
      double t = 0;
      for (int j = 0; j < d; j++)
        t += q[j] * xc[j] * xc[j] * p[d + j];
      s += log(1 + t);
    }
    free(xc);
  }
  free(q);
  return s;
}

double in_place(double *x, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    x[i] = x[i] * sin(x[i]);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i];
  return s;
}

void grads(const double *p, double *dp, const double *a, double *x, double *dx,
           int n, int d) {
  __enzyme_autodiff((void *)params, enzyme_dup, p, dp, enzyme_const, a,
                    enzyme_const, n, enzyme_const, d);
  __enzyme_autodiff((void *)in_place, enzyme_dup, x, dx, enzyme_const, n);
}
