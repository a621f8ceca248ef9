// integration/openmp-const-capture.c - enzyme_const pointers read inside a
// parallel region: clang passes a shared variable to the region as the
// address of the local holding it, which then holds a pointer without a
// shadow; the region receives no shadow for it and reads it as a constant.
// Also a shared scalar the region only reads (its adjoint is summed per
// thread).  Closed forms, with 1, 2 and 4 threads, with and without -g.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openmp
// RUN: %clang -fopenmp -O0 %s -lm -o %t0 && %omp-run %t0
// RUN: %clang -fopenmp -O0 -g %s -lm -o %tg && %omp-run %tg
// RUN: %clang -fopenmp -O2 %s -lm -o %t2 && %omp-run %t2
// RUN: %if archer %{ %archer-clang -O2 %s -lm -o %ta && %archer-run %ta %}
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const, enzyme_out;

struct Data {
  double alpha;
  int n;
};

/* f = sum_i x_i c_i alpha (c and d constant): df/dx_i = c_i alpha. */
static double f(const double *x, const double *c, const struct Data *d) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < d->n; i++)
    s += x[i] * c[i] * d->alpha;
  return s;
}

/* g = sum_i a sin(x_i) with a active and only read in the region:
 * dg/da = sum_i sin(x_i), dg/dx_i = a cos(x_i). */
static double g(const double *x, double a, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += a * sin(x[i]);
  return s;
}

int main(void) {
  enum { N = 37 };
  double x[N], c[N], dx[N] = {0};
  int bad = 0;
  for (int i = 0; i < N; i++) {
    x[i] = 0.3 + 0.05 * i;
    c[i] = 1.5 - 0.02 * i;
  }
  struct Data d = {2.5, N};
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, c,
                    enzyme_const, &d);
  for (int i = 0; i < N; i++)
    if (fabs(dx[i] - c[i] * d.alpha) > 1e-12 * fabs(c[i] * d.alpha)) {
      printf("FAIL f dx[%d] = %.17g, want %.17g\n", i, dx[i], c[i] * d.alpha);
      bad++;
    }
  double a = 1.25, da = 0, want = 0;
  for (int i = 0; i < N; i++) {
    dx[i] = 0;
    want += sin(x[i]);
  }
  double r = __enzyme_autodiff((void *)g, enzyme_dup, x, dx, enzyme_out, a,
                               enzyme_const, N);
  da = r;
  if (fabs(da - want) > 1e-12 * fabs(want)) {
    printf("FAIL g da = %.17g, want %.17g\n", da, want);
    bad++;
  }
  for (int i = 0; i < N; i++)
    if (fabs(dx[i] - a * cos(x[i])) > 1e-12) {
      printf("FAIL g dx[%d] = %.17g, want %.17g\n", i, dx[i], a * cos(x[i]));
      bad++;
    }
  printf("%s: %d failures\n", bad ? "FAIL" : "ok", bad);
  return bad != 0;
}
