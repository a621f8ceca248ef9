// integration/openmp-host-constructs.c - OpenMP constructs that clang turns
// into ordinary host code around the runtime calls Zymase knows: a
// user-defined reduction (`declare reduction`: the combiner runs in the
// reduction's critical section, so its derivative is taken there like any
// code), and `target` without offloading (clang calls the host fallback
// directly; with -fopenmp-targets the __tgt_* calls are refused).  Checked
// against closed forms with 1, 2 and 4 threads.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openmp
// RUN: %clang -fopenmp -O0 %s -lm -o %t0 && %omp-run %t0
// RUN: %clang -fopenmp -O2 %s -lm -o %t2 && %omp-run %t2
// RUN: %if archer %{ %archer-clang -O2 %s -lm -o %ta && %archer-run %ta %}
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

#pragma omp declare reduction(sumsq : double : omp_out += omp_in)            \
    initializer(omp_priv = 0)

/* f = (sum x_i^2)^2: df/dx_i = 4 s x_i. */
double udr(double *x, int n) {
  double s = 0;
#pragma omp parallel for reduction(sumsq : s)
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s * s;
}

/* f = (sum sin(x_i) x_i)^2: df/dx_i = 2 s (cos(x_i) x_i + sin(x_i)). */
double target(double *x, int n) {
  double s = 0;
#pragma omp target map(tofrom : x[0 : n]) map(tofrom : s)
  for (int i = 0; i < n; i++)
    s += sin(x[i]) * x[i];
  return s * s;
}

static int check(const char *what, const double *got, const double *want,
                 int n) {
  int bad = 0;
  for (int i = 0; i < n; i++)
    if (!(fabs(got[i] - want[i]) <= 1e-10 * (1 + fabs(want[i])))) {
      printf("FAIL %s[%d]: got %.17g, want %.17g\n", what, i, got[i], want[i]);
      bad++;
    }
  printf("%s %s: %d entries\n", bad ? "FAIL" : "ok  ", what, n);
  return bad;
}

int main(void) {
  enum { N = 37 };
  double x[N], dx[N] = {0}, want[N], s = 0, t = 0;
  for (int i = 0; i < N; i++) {
    x[i] = 0.3 + 0.05 * i;
    s += x[i] * x[i];
    t += sin(x[i]) * x[i];
  }
  __enzyme_autodiff((void *)udr, enzyme_dup, x, dx, enzyme_const, N);
  for (int i = 0; i < N; i++)
    want[i] = 4 * s * x[i];
  int bad = check("declare reduction", dx, want, N);
  for (int i = 0; i < N; i++) {
    dx[i] = 0;
    want[i] = 2 * t * (cos(x[i]) * x[i] + sin(x[i]));
  }
  __enzyme_autodiff((void *)target, enzyme_dup, x, dx, enzyme_const, N);
  bad += check("target (host fallback)", dx, want, N);
  return bad != 0;
}
