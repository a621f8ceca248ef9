/* ba.h - bundle adjustment (ADBench/GradBench "ba"): the reprojection
 * error of p observations of m points by n cameras, with ADBench's weighted
 * residuals, summed to one scalar (sum of squares of all residuals).
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Active parameters = [cams (n*11) | points (m*3) | weights (p)]; a camera
 * is [Rodrigues rotation (3), center (3), focal (1), principal point (2),
 * radial distortion (2)].  Per observation (camera c, point j, feature u):
 *   Xc = R(rot) (X - C),  x = Xc.xy / Xc.z,  x *= 1 + k1 |x|^2 + k2 |x|^4,
 *   e = w (f x + x0 - u);  and per weight the residual 1 - w^2.
 * Objective = sum |e|^2 + sum (1 - w^2)^2. */
#ifndef ZY_BENCH_BA_H
#define ZY_BENCH_BA_H

#include "zyreal.h"

typedef struct BaData {
  int n, m, p;
  int *obs;     /* p*2: camera, point */
  double *feat; /* p*2 */
} BaData;

static const char *const ba_sizes[3] = {"n=3 m=10 p=20", "n=50 m=5000 p=20000",
                                        "n=500 m=500000 p=2000000"};

/* Rotates x by the Rodrigues vector rot, as ADBench does. */
static void ba_rotate(const ZY_REAL *rot, const ZY_REAL *x, ZY_REAL *out) {
  ZY_REAL sqtheta = rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2];
  if (sqtheta != 0.0) {
    ZY_REAL theta = sqrt(sqtheta);
    ZY_REAL c = cos(theta), s = sin(theta), inv = 1.0 / theta;
    ZY_REAL w0 = rot[0] * inv, w1 = rot[1] * inv, w2 = rot[2] * inv;
    ZY_REAL cr0 = w1 * x[2] - w2 * x[1];
    ZY_REAL cr1 = w2 * x[0] - w0 * x[2];
    ZY_REAL cr2 = w0 * x[1] - w1 * x[0];
    ZY_REAL tmp = (1.0 - c) * (w0 * x[0] + w1 * x[1] + w2 * x[2]);
    out[0] = x[0] * c + cr0 * s + w0 * tmp;
    out[1] = x[1] * c + cr1 * s + w1 * tmp;
    out[2] = x[2] * c + cr2 * s + w2 * tmp;
  } else {
    out[0] = x[0] + rot[1] * x[2] - rot[2] * x[1];
    out[1] = x[1] + rot[2] * x[0] - rot[0] * x[2];
    out[2] = x[2] + rot[0] * x[1] - rot[1] * x[0];
  }
}

static ZY_REAL ba_objective(const ZY_REAL *params, const BaData *d) {
  const ZY_REAL *cams = params, *pts = params + 11 * d->n;
  const ZY_REAL *w = pts + 3 * d->m;
  ZY_REAL *xo = ZY_ALLOC(3), *xc = ZY_ALLOC(3);
  ZY_REAL err = 0.0;
  for (int i = 0; i < d->p; i++) {
    const ZY_REAL *cam = cams + 11 * d->obs[2 * i];
    const ZY_REAL *x = pts + 3 * d->obs[2 * i + 1];
    for (int k = 0; k < 3; k++)
      xo[k] = x[k] - cam[3 + k];
    ba_rotate(cam, xo, xc);
    ZY_REAL px = xc[0] / xc[2], py = xc[1] / xc[2];
    ZY_REAL rsq = px * px + py * py;
    ZY_REAL l = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
    ZY_REAL ex = w[i] * (cam[6] * (px * l) + cam[7] - d->feat[2 * i]);
    ZY_REAL ey = w[i] * (cam[6] * (py * l) + cam[8] - d->feat[2 * i + 1]);
    ZY_REAL we = 1.0 - w[i] * w[i];
    err += ex * ex + ey * ey + we * we;
  }
  ZY_FREE(xo);
  ZY_FREE(xc);
  return err;
}

static ZY_UNUSED int ba_make(int size, BaData *d, double **pp) {
  static const int dims[3][3] = {
      {3, 10, 20}, {50, 5000, 20000}, {500, 500000, 2000000}};
  ZyRng r = {7};
  d->n = dims[size][0];
  d->m = dims[size][1];
  d->p = dims[size][2];
  int np = 11 * d->n + 3 * d->m + d->p;
  double *p = zy_alloc_doubles(np);
  for (int c = 0; c < d->n; c++) {
    double *cam = p + 11 * c;
    for (int k = 0; k < 3; k++)
      cam[k] = zy_rng_uniform(&r, -0.2, 0.2);
    cam[3] = zy_rng_uniform(&r, -1, 1);
    cam[4] = zy_rng_uniform(&r, -1, 1);
    cam[5] = zy_rng_uniform(&r, -12, -8);
    cam[6] = zy_rng_uniform(&r, 400, 600);
    cam[7] = zy_rng_uniform(&r, -5, 5);
    cam[8] = zy_rng_uniform(&r, -5, 5);
    cam[9] = zy_rng_uniform(&r, -0.1, 0.1);
    cam[10] = zy_rng_uniform(&r, -0.01, 0.01);
  }
  p[0] = p[1] = p[2] = 0; /* exercises the zero-rotation branch */
  for (int i = 0; i < 3 * d->m; i++)
    p[11 * d->n + i] = zy_rng_uniform(&r, -1, 1);
  for (int i = 0; i < d->p; i++)
    p[11 * d->n + 3 * d->m + i] = zy_rng_uniform(&r, 0.8, 1.2);
  d->obs = (int *)malloc(sizeof(int) * 2 * d->p);
  d->feat = zy_alloc_doubles(2 * (size_t)d->p);
  for (int i = 0; i < d->p; i++) {
    d->obs[2 * i] = (int)(zy_rng_next(&r) % d->n);
    /* every point observed at least once while i < m */
    d->obs[2 * i + 1] = i < d->m ? i : (int)(zy_rng_next(&r) % d->m);
    d->feat[2 * i] = zy_rng_uniform(&r, -60, 60);
    d->feat[2 * i + 1] = zy_rng_uniform(&r, -60, 60);
  }
  *pp = p;
  return np;
}

static ZY_UNUSED void ba_free(BaData *d) {
  free(d->obs);
  free(d->feat);
}

/* Work of one evaluation, up to a constant factor (the ADOL-C tape grows
 * with it). */
static ZY_UNUSED double ba_work(const BaData *d) { return d->p; }

#define ZYW_NAME "ba"
#define ZYW_DATA BaData
#define ZYW_SIZES ba_sizes
#define ZYW_OBJECTIVE ba_objective
#define ZYW_MAKE ba_make
#define ZYW_FREE ba_free
#define ZYW_WORK ba_work

#endif
