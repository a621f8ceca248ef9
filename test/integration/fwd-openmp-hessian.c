// Forward over reverse through OpenMP regions (issue 32): Hessian-vector
// products as __enzyme_fwddiff of a function calling __enzyme_autodiff of
// a function with parallel regions.  The gradient's regions keep their
// per-thread tapes in a table of pointers that the region wrappers
// (`.omp.fwd`, `.omp.rev`) pass through struct results and memory; those
// structs have shadows (docs/architecture.md, "Structs of pointers"), so
// the tangent sweep forks the wrappers' tangents like any region, the
// tapes' tangents beside the tapes.  Before, this was refused ("forward
// mode over the gradient of an OpenMP parallel region ... is not
// supported yet").  Cases: a sum reduction (the atomic-add broadcast), a
// parallel for whose values the gradient caches per thread (exp of the
// input, written to a shared array), a region with a barrier between two
// worksharing loops; a region with a critical section (a max reduction
// among them) is still refused (errors/fwddiff-openmp.c: its tangent
// deadlocked at 2 threads).  H v
// against central differences of the same gradient along v (Richardson),
// and the symmetry w.(H v) = v.(H w); 1, 2 and 4 threads, and under
// Archer.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openmp
// RUN: %clang -fopenmp -O0 %s -lm -o %t0 && %omp-run %t0
// RUN: %clang -fopenmp -O2 %s -lm -o %t2 && %omp-run %t2
// RUN: %if !quick %{ %clang -fopenmp -O1 %s -lm -o %t1 && %omp-run %t1 %}
// RUN: %if archer %{ %archer-clang -O2 %s -lm -o %ta && %archer-run %ta %}
#include "fd.h"

#include <omp.h>
#include <string.h>

void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

#define N 48

double sum_red(double *x, double *y, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += sin(x[i]) * x[(i + 1) % n];
  return s * s;
}
double cached(double *x, double *y, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    y[i] = exp(0.3 * x[i]) * x[(i + 3) % n];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += y[i] * y[(i + 1) % n];
  return s;
}
double barrier(double *x, double *y, int n) {
#pragma omp parallel
  {
#pragma omp for
    for (int i = 0; i < n; i++)
      y[i] = x[i] * x[i] + cos(x[i]);
#pragma omp for
    for (int i = 0; i < n; i++)
      y[n + i] = y[i] * y[(i + 1) % n] * x[(i + 2) % n];
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += y[n + i];
  return s;
}

/* g = grad f(x); hv = H(x) v by forward over reverse */
#define GRAD_HVP(f)                                                            \
  void grad_##f(double *x, double *g, int n) {                                 \
    double y[2 * N], dy[2 * N];                                                \
    memset(g, 0, n * sizeof *g);                                               \
    memset(dy, 0, sizeof dy);                                                  \
    __enzyme_autodiff((void *)f, enzyme_dup, x, g, enzyme_dup, y, dy,          \
                      enzyme_const, n);                                        \
  }                                                                            \
  static void hvp_##f(double *x, double *v, double *hv, int n) {               \
    double g[N];                                                               \
    memset(hv, 0, n * sizeof *hv);                                             \
    __enzyme_fwddiff((void *)grad_##f, enzyme_dup, x, v, enzyme_dup, g, hv,    \
                     enzyme_const, n);                                         \
  }
GRAD_HVP(sum_red)
GRAD_HVP(cached)
GRAD_HVP(barrier)

typedef void (*GradFn)(double *, double *, int);
typedef void (*HvpFn)(double *, double *, double *, int);

static void check(const char *name, GradFn grad, HvpFn hvp, double *x) {
  double v[N], w[N], hv[N], hw[N], xt[N], gp[N], gm[N], fd[2][N];
  char what[96];
  for (int i = 0; i < N; i++)
    v[i] = cos(1.0 + i), w[i] = sin(0.5 * i) - 0.2;
  hvp(x, v, hv, N);
  hvp(x, w, hw, N);
  for (int s = 0; s < 2; s++) {
    double h = s ? 5e-4 : 1e-3;
    for (int i = 0; i < N; i++)
      xt[i] = x[i] + h * v[i];
    grad(xt, gp, N);
    for (int i = 0; i < N; i++)
      xt[i] = x[i] - h * v[i];
    grad(xt, gm, N);
    for (int i = 0; i < N; i++)
      fd[s][i] = (gp[i] - gm[i]) / (2 * h);
  }
  for (int i = 0; i < N; i++) {
    snprintf(what, sizeof what, "%s (%d threads) Hv[%d]", name,
             omp_get_max_threads(), i);
    zy_check_close(what, hv[i], (4 * fd[1][i] - fd[0][i]) / 3, 1e-7);
  }
  double a = 0, b = 0;
  for (int i = 0; i < N; i++)
    a += w[i] * hv[i], b += v[i] * hw[i];
  snprintf(what, sizeof what, "%s (%d threads) w.(H v) = v.(H w)", name,
           omp_get_max_threads());
  zy_check_close(what, a, b, 1e-11);
}

int main(void) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.3 + 0.55 * sin(1.7 * i + 0.2);
  check("sum reduction", grad_sum_red, hvp_sum_red, x);
  check("cached", grad_cached, hvp_cached, x);
  check("barrier", grad_barrier, hvp_barrier, x);
  return zy_report();
}
