// What the reverse of a parallel region loads again instead of taping
// (issue 31, ad/region_stable.c), and where it must keep the tape.
// reads_params: a GMM-like region (per-thread scratch, a reduction) reads
// the parameters x and a table q = exp(x) the caller allocated, both
// captured by reference and written by nothing after: its reverse loads
// them again (test/lit/openmp/region-tape.c shows the smaller tape).
// Must not apply: in_place reads y[i] and overwrites it; neighbours reads
// y[i] and y[i+1] in one worksharing loop and a second loop of the same
// region (other threads) overwrites them; overwritten_after reads u, which
// the caller overwrites after the region, before its reverse;
// pointer_swapped reads it through a shared pointer an earlier region
// set.  Each gradient entry is checked against a closed form and a central
// finite difference, with 1, 2 and 4 threads, n = 37 and n = 101; the
// Archer run checks that the gradient code has no data race.  Checked to fail with the
// body's write check (unwritten_in_body) or the caller's
// (unchanged_after) answering "unwritten" always, or with plain_local
// letting other region calls receive a deep-stable local.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openmp
// RUN: %clang -fopenmp -O0 %s -lm -o %t0 && %omp-run %t0
// RUN: %clang -fopenmp -O2 %s -lm -o %t2 && %omp-run %t2
// RUN: %if archer %{ %archer-clang -O2 %s -lm -o %ta && %archer-run %ta %}
#include "omp-grad.h"

#include <stdlib.h>

#define D 4

static double c_at(int i, int j) { return 0.5 * cos(0.7 * i + 1.3 * j); }

/* sum_i w_i log(1 + sum_j e^{x_j} (c_ij - x_j)^2 x_{D+j}^2) */
double reads_params(double *x, double *y, int n) {
  (void)y;
  double *q = malloc(D * sizeof *q);
  for (int j = 0; j < D; j++)
    q[j] = exp(x[j]);
  double s = 0;
#pragma omp parallel
  {
    double *xc = malloc(D * sizeof *xc);
#pragma omp for reduction(+ : s)
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < D; j++)
        xc[j] = c_at(i, j) - x[j];
      double t = 0;
      for (int j = 0; j < D; j++)
        t += q[j] * xc[j] * xc[j] * x[D + j] * x[D + j];
      s += omp_w(i) * log(1 + t);
    }
    free(xc);
  }
  free(q);
  return s;
}

static void reads_params_grad(const double *x, int n, double *g) {
  for (int i = 0; i < n; i++) {
    double t = 0;
    for (int j = 0; j < D; j++) {
      double xc = c_at(i, j) - x[j];
      t += exp(x[j]) * xc * xc * x[D + j] * x[D + j];
    }
    double r = omp_w(i) / (1 + t);
    for (int j = 0; j < D; j++) {
      double q = exp(x[j]), xc = c_at(i, j) - x[j], v = x[D + j];
      g[j] += r * (q * xc * xc * v * v - 2 * q * xc * v * v);
      g[D + j] += r * q * xc * xc * 2 * v;
    }
  }
}

/* sum_i w_i x_i sin(x_i), through y[i] = y[i] sin(y[i]) in place. */
double in_place(double *x, double *y, int n) {
  for (int i = 0; i < n; i++)
    y[i] = x[i];
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    y[i] = y[i] * sin(y[i]);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += omp_w(i) * y[i];
  return s;
}

static void in_place_grad(const double *x, int n, double *g) {
  for (int i = 0; i < n; i++)
    g[i] += omp_w(i) * (sin(x[i]) + x[i] * cos(x[i]));
}

/* sum_i w_i cos(x_i x_{i+1}): z[i] = y[i] y[i+1], then (after the first
 * loop's barrier) y[i] = cos(z[i]) overwrites what other threads read. */
double neighbours(double *x, double *y, int n) {
  double *z = y + NMAX;
  for (int i = 0; i < n; i++)
    y[i] = x[i];
#pragma omp parallel
  {
#pragma omp for
    for (int i = 0; i < n; i++)
      z[i] = y[i] * y[(i + 1) % n];
#pragma omp for
    for (int i = 0; i < n; i++)
      y[i] = cos(z[i]);
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += omp_w(i) * y[i];
  return s;
}

static void neighbours_grad(const double *x, int n, double *g) {
  for (int i = 0; i < n; i++) {
    int j = (i + 1) % n;
    double d = -omp_w(i) * sin(x[i] * x[j]);
    g[i] += d * x[j];
    g[j] += d * x[i];
  }
}

/* sum_i w_i u_i sin(u_i) + 0.1 sum_i 2 u_i with u = x: the region reads u
 * and writes nothing of it, the caller doubles u after the region. */
double overwritten_after(double *x, double *y, int n) {
  (void)y;
  double *u = malloc(n * sizeof *u);
  for (int i = 0; i < n; i++)
    u[i] = x[i];
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += omp_w(i) * sin(u[i]) * u[i];
  for (int i = 0; i < n; i++)
    u[i] = 2 * u[i];
  double s2 = 0;
  for (int i = 0; i < n; i++)
    s2 += u[i];
  free(u);
  return s + 0.1 * s2;
}

static void overwritten_after_grad(const double *x, int n, double *g) {
  for (int i = 0; i < n; i++)
    g[i] += omp_w(i) * (sin(x[i]) + x[i] * cos(x[i])) + 0.2;
}

/* As overwritten_after, but the region reads u through a shared pointer
 * p that the caller set to w and an earlier region set to u: what the
 * caller stored in p (w, unchanged) is not what the region reads. */
double pointer_swapped(double *x, double *y, int n) {
  (void)y;
  double *u = malloc(n * sizeof *u), *w = malloc(n * sizeof *w);
  for (int i = 0; i < n; i++) {
    u[i] = x[i];
    w[i] = 0;
  }
  double *p = w;
#pragma omp parallel
  {
#pragma omp single
    p = u;
  }
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += omp_w(i) * sin(p[i]) * p[i];
  for (int i = 0; i < n; i++)
    u[i] = 2 * u[i];
  double s2 = 0;
  for (int i = 0; i < n; i++)
    s2 += u[i];
  free(u);
  free(w);
  return s + 0.1 * s2;
}

static void pointer_swapped_grad(const double *x, int n, double *g) {
  overwritten_after_grad(x, n, g);
}

int main(void) {
  double x0[NMAX];
  omp_inputs(x0);
  omp_banner("openmp-region-tape");
  int sizes[] = {37, 101};
  for (int s = 0; s < 2; s++) {
    int n = sizes[s];
    CHECK_OMP(reads_params, x0, n);
    CHECK_OMP(in_place, x0, n);
    CHECK_OMP(neighbours, x0, n);
    CHECK_OMP(overwritten_after, x0, n);
    CHECK_OMP(pointer_swapped, x0, n);
  }
  return zy_report();
}
