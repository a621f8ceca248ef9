// integration/openmp-privatized.c - parameters every iteration of a
// worksharing loop reads (a mixture model's centres and weights, read in an
// inner loop of run-time length): each thread adds their adjoints into a
// buffer of its own, added to the shared gradient when its reverse leaves
// the loop.  Checked against central finite differences with 1, 2 and 4
// threads, the buffer's frees under valgrind, races under Archer.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openmp
// RUN: %clang -fopenmp -O0 %s -lm -o %t0 && %omp-run %t0
// RUN: %clang -fopenmp -O2 %s -lm -o %t2 && %omp-run %t2
// RUN: env OMP_NUM_THREADS=2 %valgrind %t2 > /dev/null
// RUN: %if archer %{ %archer-clang -O2 %s -lm -o %ta && %archer-run %ta %}
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

int K; /* set at run time: the inner loops are not unrolled */

/* f(p) = sum_i log(1 + t_i^2), t_i = sum_k exp(-(x_i - c_k)^2) w_k, with
 * c = p[0..K) and w = p[K..2K). */
double model(const double *p, const double *x, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(dynamic, 3)
  for (int i = 0; i < n; i++) {
    double t = 0;
    for (int k = 0; k < K; k++)
      t += exp(-(x[i] - p[k]) * (x[i] - p[k])) * p[K + k];
    s += log(1 + t * t);
  }
  return s;
}

/* The same with float parameters, and a second loop reading them. */
float modelf(const float *p, const float *x, int n) {
  float s = 0, u = 0;
#pragma omp parallel
  {
#pragma omp for reduction(+ : s)
    for (int i = 0; i < n; i++)
      for (int k = 0; k < K; k++)
        s += p[k] * sinf(x[i] * p[K + k]);
#pragma omp for reduction(+ : u)
    for (int i = 0; i < n; i++)
      for (int k = 0; k < K; k++)
        u += p[k] * p[k] * x[i];
  }
  return s + u;
}

int main(void) {
  enum { N = 101, KMAX = 8 };
  K = 6;
  double p[2 * KMAX], dp[2 * KMAX] = {0}, x[N];
  float pf[2 * KMAX], dpf[2 * KMAX] = {0}, xf[N];
  for (int k = 0; k < 2 * K; k++) {
    p[k] = 0.2 + 0.15 * k;
    pf[k] = (float)p[k];
  }
  for (int i = 0; i < N; i++) {
    x[i] = 0.02 * i;
    xf[i] = (float)x[i];
  }
  __enzyme_autodiff((void *)model, enzyme_dup, p, dp, enzyme_const, x,
                    enzyme_const, N);
  __enzyme_autodiff((void *)modelf, enzyme_dup, pf, dpf, enzyme_const, xf,
                    enzyme_const, N);
  int bad = 0;
  for (int k = 0; k < 2 * K; k++) {
    double h = 1e-6, pk = p[k];
    p[k] = pk + h;
    double up = model(p, x, N);
    p[k] = pk - h;
    double dn = model(p, x, N);
    p[k] = pk;
    double fd = (up - dn) / (2 * h);
    if (!(fabs(dp[k] - fd) <= 1e-7 * (1 + fabs(fd)))) {
      printf("FAIL model dp[%d] = %.17g, finite difference %.17g\n", k, dp[k],
             fd);
      bad++;
    }
    /* modelf, in double by hand: ds/dc_k = sum_i sin(x_i w_k) + 2 c_k x_i,
     * ds/dw_k = sum_i c_k x_i cos(x_i w_k). */
    double want = 0;
    for (int i = 0; i < N; i++)
      want += k < K ? sin(x[i] * p[K + k]) + 2 * p[k] * x[i]
                    : p[k - K] * x[i] * cos(x[i] * p[k]);
    if (!(fabs(dpf[k] - want) <= 1e-3 * (1 + fabs(want)))) {
      printf("FAIL modelf dp[%d] = %.9g, closed form %.9g\n", k, dpf[k], want);
      bad++;
    }
  }
  printf("%s: %d of %d gradient entries wrong\n", bad ? "FAIL" : "ok", bad,
         4 * K);
  return bad != 0;
}
