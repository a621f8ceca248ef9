/* lse-omp.h - lse.h's log-sum-exp with OpenMP: a parallel max
 * (reduction(max:)), then a parallel sum of exp(x_i - max) (reduction(+:));
 * the n values x are active.  Built with -fopenmp, timed per thread count.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_BENCH_LSE_OMP_H
#define ZY_BENCH_LSE_OMP_H

#include "zyreal.h"

typedef struct LseData {
  int n;
} LseData;

static const char *const lse_omp_sizes[3] = {"n=10", "n=100000", "n=10000000"};

static ZY_REAL lse_omp_objective(const ZY_REAL *x, const LseData *d) {
  int n = d->n;
  ZY_REAL mx = x[0];
#pragma omp parallel for reduction(max : mx)
  for (int i = 1; i < n; i++)
    if (x[i] > mx)
      mx = x[i];
  ZY_REAL s = 0.0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += exp(x[i] - mx);
  return mx + log(s);
}

static ZY_UNUSED int lse_omp_make(int size, LseData *d, double **pp) {
  static const int dims[3] = {10, 100000, 10000000};
  ZyRng r = {13};
  d->n = dims[size];
  double *x = zy_alloc_doubles(d->n);
  for (int i = 0; i < d->n; i++)
    x[i] = zy_rng_uniform(&r, -5, 5);
  *pp = x;
  return d->n;
}

static ZY_UNUSED void lse_omp_free(LseData *d) { (void)d; }

static ZY_UNUSED double lse_omp_work(const LseData *d) { return d->n; }

#define ZYW_NAME "lse-omp"
#define ZYW_DATA LseData
#define ZYW_SIZES lse_omp_sizes
#define ZYW_OBJECTIVE lse_omp_objective
#define ZYW_MAKE lse_omp_make
#define ZYW_FREE lse_omp_free
#define ZYW_WORK lse_omp_work

#endif
