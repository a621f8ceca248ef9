/* ode.h - an ODE integrator (GradBench "ode"): classic fourth-order
 * Runge-Kutta with s fixed steps on the n-dimensional system
 *   y0' = x0,  yi' = xi * y(i-1)      y(0) = 0, t in [0, 2],
 * nonlinear in (x, y) jointly; the objective is y(n-1) at t = 2 and the
 * active parameters are the n coefficients x.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_BENCH_ODE_H
#define ZY_BENCH_ODE_H

#include "zyreal.h"

typedef struct OdeData {
  int n, steps;
  double tf;
} OdeData;

static const char *const ode_sizes[3] = {"n=4 steps=10", "n=10 steps=10000",
                                         "n=10 steps=1500000"};

static void ode_rhs(int n, const ZY_REAL *x, const ZY_REAL *y, ZY_REAL *dy) {
  dy[0] = x[0];
  for (int i = 1; i < n; i++)
    dy[i] = x[i] * y[i - 1];
}

static ZY_REAL ode_objective(const ZY_REAL *x, const OdeData *d) {
  int n = d->n;
  double h = d->tf / d->steps;
  ZY_REAL *y = ZY_ALLOC(n), *z = ZY_ALLOC(n), *k1 = ZY_ALLOC(n);
  ZY_REAL *k2 = ZY_ALLOC(n), *k3 = ZY_ALLOC(n), *k4 = ZY_ALLOC(n);
  for (int i = 0; i < n; i++)
    y[i] = 0.0;
  for (int s = 0; s < d->steps; s++) {
    ode_rhs(n, x, y, k1);
    for (int i = 0; i < n; i++)
      z[i] = y[i] + h / 2 * k1[i];
    ode_rhs(n, x, z, k2);
    for (int i = 0; i < n; i++)
      z[i] = y[i] + h / 2 * k2[i];
    ode_rhs(n, x, z, k3);
    for (int i = 0; i < n; i++)
      z[i] = y[i] + h * k3[i];
    ode_rhs(n, x, z, k4);
    for (int i = 0; i < n; i++)
      y[i] += h / 6 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
  }
  ZY_REAL r = y[n - 1];
  ZY_FREE(y);
  ZY_FREE(z);
  ZY_FREE(k1);
  ZY_FREE(k2);
  ZY_FREE(k3);
  ZY_FREE(k4);
  return r;
}

static ZY_UNUSED int ode_make(int size, OdeData *d, double **pp) {
  static const int dims[3][2] = {{4, 10}, {10, 10000}, {10, 1500000}};
  ZyRng r = {3};
  d->n = dims[size][0];
  d->steps = dims[size][1];
  d->tf = 2;
  double *x = zy_alloc_doubles(d->n);
  for (int i = 0; i < d->n; i++)
    x[i] = zy_rng_uniform(&r, 0.5, 1.5);
  *pp = x;
  return d->n;
}

static ZY_UNUSED void ode_free(OdeData *d) { (void)d; }

/* Work of one evaluation, up to a constant factor (the ADOL-C tape grows
 * with it). */
static ZY_UNUSED double ode_work(const OdeData *d) {
  return (double)d->steps * d->n;
}

#define ZYW_NAME "ode"
#define ZYW_DATA OdeData
#define ZYW_SIZES ode_sizes
#define ZYW_OBJECTIVE ode_objective
#define ZYW_MAKE ode_make
#define ZYW_FREE ode_free
#define ZYW_WORK ode_work

#endif
