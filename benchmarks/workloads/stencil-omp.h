/* stencil-omp.h - stencil.h's Fisher-KPP reaction-diffusion stencil with
 * OpenMP: the time loop stays serial, the rows of each step are a
 * `parallel for`, and the final sum of squares a parallel reduction(+:).
 *   u' = u + alpha (u_N + u_S + u_E + u_W - 4 u) + beta u (1 - u),
 * T steps on an N x N grid (zero outside); objective sum u_T^2, u_0 active.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_BENCH_STENCIL_OMP_H
#define ZY_BENCH_STENCIL_OMP_H

#include "zyreal.h"

typedef struct StencilData {
  int n, steps;
  double alpha, beta;
} StencilData;

static const char *const stencil_omp_sizes[3] = {"N=5 T=4", "N=64 T=100",
                                                 "N=256 T=500"};

static ZY_REAL stencil_omp_objective(const ZY_REAL *u0, const StencilData *d) {
  int n = d->n;
  ZY_REAL *u = ZY_ALLOC(n * n), *v = ZY_ALLOC(n * n);
  for (int i = 0; i < n * n; i++)
    u[i] = u0[i];
  for (int t = 0; t < d->steps; t++) {
#pragma omp parallel for
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        ZY_REAL c = u[i * n + j], lap = -4.0 * c;
        if (i > 0)
          lap += u[(i - 1) * n + j];
        if (i < n - 1)
          lap += u[(i + 1) * n + j];
        if (j > 0)
          lap += u[i * n + j - 1];
        if (j < n - 1)
          lap += u[i * n + j + 1];
        v[i * n + j] = c + d->alpha * lap + d->beta * c * (1.0 - c);
      }
    ZY_REAL *w = u;
    u = v;
    v = w;
  }
  ZY_REAL s = 0.0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n * n; i++)
    s += u[i] * u[i];
  ZY_FREE(u);
  ZY_FREE(v);
  return s;
}

static ZY_UNUSED int stencil_omp_make(int size, StencilData *d, double **pp) {
  static const int dims[3][2] = {{5, 4}, {64, 100}, {256, 500}};
  ZyRng r = {23};
  d->n = dims[size][0];
  d->steps = dims[size][1];
  d->alpha = 0.2;
  d->beta = 0.5;
  int np = d->n * d->n;
  double *u = zy_alloc_doubles(np);
  for (int i = 0; i < np; i++)
    u[i] = zy_rng_uniform(&r, 0, 1);
  *pp = u;
  return np;
}

static ZY_UNUSED void stencil_omp_free(StencilData *d) { (void)d; }

/* Work of one evaluation, up to a constant factor (the ADOL-C tape grows
 * with it). */
static ZY_UNUSED double stencil_omp_work(const StencilData *d) {
  return (double)d->n * d->n * d->steps;
}

#define ZYW_NAME "stencil-omp"
#define ZYW_DATA StencilData
#define ZYW_SIZES stencil_omp_sizes
#define ZYW_OBJECTIVE stencil_omp_objective
#define ZYW_MAKE stencil_omp_make
#define ZYW_FREE stencil_omp_free
#define ZYW_WORK stencil_omp_work

#endif
