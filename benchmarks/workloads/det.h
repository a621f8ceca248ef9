/* det.h - determinant by recursive cofactor (Laplace) expansion along the
 * first row (GradBench "det"): O(n!) work on an n x n matrix whose n^2
 * entries are active.  Columns already used by the enclosing minors are a
 * bit mask, so no minor is copied.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_BENCH_DET_H
#define ZY_BENCH_DET_H

#include "zyreal.h"

typedef struct DetData {
  int n;
} DetData;

static const char *const det_sizes[3] = {"n=4", "n=8", "n=10"};

/* Determinant of the rows row..n-1 and the columns not in used. */
static ZY_REAL det_minor(const ZY_REAL *a, int n, int row, unsigned used) {
  if (row == n - 1) {
    int c = 0;
    while (used >> c & 1)
      c++;
    return a[row * n + c];
  }
  ZY_REAL s = 0.0;
  double sign = 1;
  for (int c = 0; c < n; c++)
    if (!(used >> c & 1)) {
      s += sign * a[row * n + c] * det_minor(a, n, row + 1, used | 1u << c);
      sign = -sign;
    }
  return s;
}

static ZY_REAL det_objective(const ZY_REAL *a, const DetData *d) {
  return det_minor(a, d->n, 0, 0);
}

static ZY_UNUSED int det_make(int size, DetData *d, double **pp) {
  static const int dims[3] = {4, 8, 10};
  ZyRng r = {19};
  int n = d->n = dims[size];
  double *a = zy_alloc_doubles((size_t)n * n);
  for (int i = 0; i < n * n; i++)
    a[i] = zy_rng_uniform(&r, -1, 1);
  *pp = a;
  return n * n;
}

static ZY_UNUSED void det_free(DetData *d) { (void)d; }

/* Work of one evaluation, up to a constant factor (the ADOL-C tape grows
 * with it). */
static ZY_UNUSED double det_work(const DetData *d) {
  double nodes = 0, perm = 1; /* partial permutations */
  for (int i = d->n; i >= 1; i--)
    nodes += (perm *= i);
  return nodes;
}

#define ZYW_NAME "det"
#define ZYW_DATA DetData
#define ZYW_SIZES det_sizes
#define ZYW_OBJECTIVE det_objective
#define ZYW_MAKE det_make
#define ZYW_FREE det_free
#define ZYW_WORK det_work

#endif
