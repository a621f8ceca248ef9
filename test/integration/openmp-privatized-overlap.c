// integration/openmp-privatized-overlap.c - a worksharing loop that reads
// parameters in every iteration and stores into an array that may be the
// same memory: the per-thread buffer of the parameters' adjoints is used
// only when the addresses stored and read do not meet (compared at run
// time, from ranges the forward tracks), else the adjoints go to the shared
// gradient atomically.  With the array inside the parameters (one thread:
// with more, that program would race), and beside them (1, 2, 4 threads);
// central finite differences.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openmp
// RUN: %clang -fopenmp -O0 %s -lm -o %t0 && env OMP_NUM_THREADS=1 %t0 0 && %omp-run %t0 8
// RUN: %clang -fopenmp -O2 %s -lm -o %t2 && env OMP_NUM_THREADS=1 %t2 0 && %omp-run %t2 8
// RUN: %if archer %{ %archer-clang -O2 %s -lm -o %ta && %archer-run %ta 8 %}
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

int K; /* set at run time: the inner loop is not unrolled */

/* Every iteration reads p[0..K) and stores y[i]. */
void model(double *p, double *y, const double *x, int n) {
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; i++) {
    double t = 0;
    for (int k = 0; k < K; k++)
      t += sin(p[k] * x[i]);
    y[i] = t;
  }
}

/* y = p + off: off 0 overwrites the parameters as the loop goes. */
double loss(double *p, const double *x, int n, int off) {
  model(p, p + off, x, n);
  double s = 0;
  for (int i = 0; i < n + off; i++)
    s += p[i] * p[i];
  return s;
}

int main(int argc, char **argv) {
  enum { M = 40, N = 21 };
  int off = argc > 1 ? atoi(argv[1]) : 8, bad = 0;
  K = 5;
  double p[M], dp[M] = {0}, q[M], x[N];
  for (int i = 0; i < M; i++)
    q[i] = p[i] = 0.1 + 0.03 * i;
  for (int i = 0; i < N; i++)
    x[i] = 0.5 + 0.1 * i;
  __enzyme_autodiff((void *)loss, enzyme_dup, p, dp, enzyme_const, x,
                    enzyme_const, N, enzyme_const, off);
  for (int j = 0; j < N + off; j++) {
    double h = 1e-6, a[M], b[M];
    for (int i = 0; i < M; i++)
      a[i] = b[i] = q[i];
    a[j] += h;
    b[j] -= h;
    double fd = (loss(a, x, N, off) - loss(b, x, N, off)) / (2 * h);
    if (!(fabs(fd - dp[j]) <= 1e-6 * (1 + fabs(fd)))) {
      printf("FAIL off %d: dp[%d] = %.12g, finite difference %.12g\n", off, j,
             dp[j], fd);
      bad++;
    }
  }
  printf("%s: off %d, %d of %d entries wrong\n", bad ? "FAIL" : "ok", off, bad,
         N + off);
  return bad != 0;
}
