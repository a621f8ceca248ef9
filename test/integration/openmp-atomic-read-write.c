// integration/openmp-atomic-read-write.c - `#pragma omp atomic read` (an
// atomic load: its adjoint is added like any load's, atomically into
// shared memory) and `atomic write` (an atomic store: the reverse
// exchanges the shadow with zero atomically).  Central finite
// differences, with 1, 2 and 4 threads, and under Archer.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openmp
// RUN: %clang -fopenmp -O0 %s -lm -o %t0 && %omp-run %t0
// RUN: %clang -fopenmp -O2 %s -lm -o %t2 && %omp-run %t2
// RUN: %if archer %{ %archer-clang -O2 %s -lm -o %ta && %archer-run %ta %}
#include <math.h>
#include <stdio.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

double atomics(double *x, int n) {
  double cells[4] = {0, 0, 0, 0}, s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++) {
    double v;
#pragma omp atomic read
    v = x[i];
    s += v * v;
    if (i < 4) {
#pragma omp atomic write
      cells[i] = sin(v);
    }
  }
  return s + cells[0] * cells[1] + cells[2] * cells[3];
}

int main(void) {
  enum { N = 23 };
  double x[N], dx[N] = {0};
  int bad = 0;
  for (int i = 0; i < N; i++)
    x[i] = 0.3 + 0.05 * i;
  __enzyme_autodiff((void *)atomics, enzyme_dup, x, dx, enzyme_const, N);
  for (int i = 0; i < N; i++) {
    double h = 1e-6, xi = x[i];
    x[i] = xi + h;
    double up = atomics(x, N);
    x[i] = xi - h;
    double dn = atomics(x, N);
    x[i] = xi;
    double fd = (up - dn) / (2 * h);
    if (!(fabs(dx[i] - fd) <= 1e-7 * (1 + fabs(fd)))) {
      printf("FAIL dx[%d] = %.12g, finite difference %.12g\n", i, dx[i], fd);
      bad++;
    }
  }
  printf("%s: %d of %d entries wrong\n", bad ? "FAIL" : "ok", bad, N);
  return bad != 0;
}
