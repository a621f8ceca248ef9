/* llsq.h - linear least squares (GradBench "llsq"): fit a polynomial of m
 * coefficients x to the sign function sampled at n points in [-1, 1],
 *   f(x) = 1/2 sum_i (sign(t_i) - sum_j x_j t_i^j)^2,
 *   t_i = -1 + 2 i / (n - 1);  the m coefficients are active.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_BENCH_LLSQ_H
#define ZY_BENCH_LLSQ_H

#include "zyreal.h"

typedef struct LlsqData {
  int m, n;
} LlsqData;

static const char *const llsq_sizes[3] = {"m=4 n=11", "m=16 n=10000",
                                          "m=32 n=4000000"};

static ZY_REAL llsq_objective(const ZY_REAL *x, const LlsqData *d) {
  ZY_REAL sum = 0.0;
  for (int i = 0; i < d->n; i++) {
    double t = -1 + 2.0 * i / (d->n - 1), tj = 1;
    ZY_REAL r = (t > 0) - (t < 0);
    for (int j = 0; j < d->m; j++) {
      r -= x[j] * tj;
      tj *= t;
    }
    sum += r * r;
  }
  return 0.5 * sum;
}

static ZY_UNUSED int llsq_make(int size, LlsqData *d, double **pp) {
  static const int dims[3][2] = {{4, 11}, {16, 10000}, {32, 4000000}};
  ZyRng r = {17};
  d->m = dims[size][0];
  d->n = dims[size][1];
  double *x = zy_alloc_doubles(d->m);
  for (int j = 0; j < d->m; j++)
    x[j] = zy_rng_uniform(&r, -1, 1);
  *pp = x;
  return d->m;
}

static ZY_UNUSED void llsq_free(LlsqData *d) { (void)d; }

/* Work of one evaluation, up to a constant factor (the ADOL-C tape grows
 * with it). */
static ZY_UNUSED double llsq_work(const LlsqData *d) {
  return (double)d->m * d->n;
}

#define ZYW_NAME "llsq"
#define ZYW_DATA LlsqData
#define ZYW_SIZES llsq_sizes
#define ZYW_OBJECTIVE llsq_objective
#define ZYW_MAKE llsq_make
#define ZYW_FREE llsq_free
#define ZYW_WORK llsq_work

#endif
