/* lse.h - log-sum-exp (GradBench "lse"): log sum_i exp(x_i), computed
 * stably as max + log sum exp(x_i - max); the n values x are active.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_BENCH_LSE_H
#define ZY_BENCH_LSE_H

#include "zyreal.h"

typedef struct LseData {
  int n;
} LseData;

static const char *const lse_sizes[3] = {"n=10", "n=100000", "n=10000000"};

static ZY_REAL lse_objective(const ZY_REAL *x, const LseData *d) {
  ZY_REAL mx = x[0];
  for (int i = 1; i < d->n; i++)
    if (x[i] > mx)
      mx = x[i];
  ZY_REAL s = 0.0;
  for (int i = 0; i < d->n; i++)
    s += exp(x[i] - mx);
  return mx + log(s);
}

static ZY_UNUSED int lse_make(int size, LseData *d, double **pp) {
  static const int dims[3] = {10, 100000, 10000000};
  ZyRng r = {13};
  d->n = dims[size];
  double *x = zy_alloc_doubles(d->n);
  for (int i = 0; i < d->n; i++)
    x[i] = zy_rng_uniform(&r, -5, 5);
  *pp = x;
  return d->n;
}

static ZY_UNUSED void lse_free(LseData *d) { (void)d; }

/* Work of one evaluation, up to a constant factor (the ADOL-C tape grows
 * with it). */
static ZY_UNUSED double lse_work(const LseData *d) { return d->n; }

#define ZYW_NAME "lse"
#define ZYW_DATA LseData
#define ZYW_SIZES lse_sizes
#define ZYW_OBJECTIVE lse_objective
#define ZYW_MAKE lse_make
#define ZYW_FREE lse_free
#define ZYW_WORK lse_work

#endif
