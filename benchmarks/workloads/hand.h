/* hand.h - hand tracking (ADBench/GradBench "hand", simplified): a bone
 * tree posed by Euler angles, linear blend skinning of a mesh, and the
 * squared distance of each skinned vertex to its observed point, summed.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Active parameters = [3 Euler angles per bone (nb*3) | global translation
 * (3)].  Per bone: relative = base_relative * rot(angles) (rigid, with the
 * base offset), absolute = absolute(parent) * relative, transform =
 * absolute * inverse(base absolute).  Vertex v goes to
 * sum_b w_vb transform_b [v; 1] + translation.  What ADBench adds on top
 * (angle-axis global rotation, per-finger angle mapping, sparse
 * correspondences) is left out; the structure and cost are the same. */
#ifndef ZY_BENCH_HAND_H
#define ZY_BENCH_HAND_H

#include "zyreal.h"

typedef struct HandData {
  int nb, nv;
  int *parent;   /* nb, parent[b] < b, -1 for the root */
  double *rel;   /* nb*12: base relative rigid transforms, 3x4 row-major */
  double *ibase; /* nb*12: inverses of the base absolute transforms */
  double *verts; /* nv*3 rest positions */
  double *w;     /* nv*nb skinning weights */
  double *pts;   /* nv*3 observed points */
} HandData;

static const char *const hand_sizes[3] = {
    "bones=5 verts=12", "bones=22 verts=5000", "bones=22 verts=1500000"};

/* r = Rz(c) Ry(b) Rx(a), 3x3 row-major */
static void hand_euler(ZY_REAL a, ZY_REAL b, ZY_REAL c, ZY_REAL *r) {
  ZY_REAL ca = cos(a), sa = sin(a), cb = cos(b), sb = sin(b);
  ZY_REAL cc = cos(c), sc = sin(c);
  r[0] = cc * cb;
  r[1] = cc * sb * sa - sc * ca;
  r[2] = cc * sb * ca + sc * sa;
  r[3] = sc * cb;
  r[4] = sc * sb * sa + cc * ca;
  r[5] = sc * sb * ca - cc * sa;
  r[6] = -sb;
  r[7] = cb * sa;
  r[8] = cb * ca;
}

static ZY_REAL hand_objective(const ZY_REAL *p, const HandData *d) {
  int nb = d->nb;
  ZY_REAL *absm = ZY_ALLOC(12 * nb), *tr = ZY_ALLOC(12 * nb);
  ZY_REAL *rl = ZY_ALLOC(9), *rel = ZY_ALLOC(9), *s = ZY_ALLOC(3);
  for (int b = 0; b < nb; b++) {
    const double *br = d->rel + 12 * b, *ib = d->ibase + 12 * b;
    ZY_REAL *a = absm + 12 * b, *t = tr + 12 * b;
    hand_euler(p[3 * b], p[3 * b + 1], p[3 * b + 2], rl);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        rel[3 * i + j] = br[4 * i] * rl[j] + br[4 * i + 1] * rl[3 + j] +
                         br[4 * i + 2] * rl[6 + j];
    if (d->parent[b] < 0) {
      for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
          a[4 * i + j] = rel[3 * i + j];
        a[4 * i + 3] = br[4 * i + 3];
      }
    } else {
      const ZY_REAL *pa = absm + 12 * d->parent[b];
      for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
          a[4 * i + j] = pa[4 * i] * rel[j] + pa[4 * i + 1] * rel[3 + j] +
                         pa[4 * i + 2] * rel[6 + j];
        a[4 * i + 3] = pa[4 * i] * br[3] + pa[4 * i + 1] * br[7] +
                       pa[4 * i + 2] * br[11] + pa[4 * i + 3];
      }
    }
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 4; j++)
        t[4 * i + j] = a[4 * i] * ib[j] + a[4 * i + 1] * ib[4 + j] +
                       a[4 * i + 2] * ib[8 + j] + (j == 3 ? a[4 * i + 3] : 0.0);
  }
  ZY_REAL err = 0.0;
  for (int v = 0; v < d->nv; v++) {
    const double *x = d->verts + 3 * v, *wv = d->w + (size_t)v * nb;
    for (int i = 0; i < 3; i++)
      s[i] = p[3 * nb + i];
    for (int b = 0; b < nb; b++) {
      const ZY_REAL *t = tr + 12 * b;
      for (int i = 0; i < 3; i++)
        s[i] += wv[b] * (t[4 * i] * x[0] + t[4 * i + 1] * x[1] +
                         t[4 * i + 2] * x[2] + t[4 * i + 3]);
    }
    for (int i = 0; i < 3; i++) {
      ZY_REAL e = s[i] - d->pts[3 * v + i];
      err += e * e;
    }
  }
  ZY_FREE(absm);
  ZY_FREE(tr);
  ZY_FREE(rl);
  ZY_FREE(rel);
  ZY_FREE(s);
  return err;
}

/* A random rotation near the identity, from a unit quaternion. */
static ZY_UNUSED void hand_random_rotation(ZyRng *r, double *m) {
  double w = 1, x = zy_rng_uniform(r, -0.25, 0.25);
  double y = zy_rng_uniform(r, -0.25, 0.25), z = zy_rng_uniform(r, -0.25, 0.25);
  double n = sqrt(w * w + x * x + y * y + z * z);
  w /= n;
  x /= n;
  y /= n;
  z /= n;
  m[0] = 1 - 2 * (y * y + z * z);
  m[1] = 2 * (x * y - z * w);
  m[2] = 2 * (x * z + y * w);
  m[3] = 2 * (x * y + z * w);
  m[4] = 1 - 2 * (x * x + z * z);
  m[5] = 2 * (y * z - x * w);
  m[6] = 2 * (x * z - y * w);
  m[7] = 2 * (y * z + x * w);
  m[8] = 1 - 2 * (x * x + y * y);
}

static ZY_UNUSED int hand_make(int size, HandData *d, double **pp) {
  static const int dims[3][2] = {{5, 12}, {22, 5000}, {22, 1500000}};
  ZyRng r = {5};
  int nb = d->nb = dims[size][0], nv = d->nv = dims[size][1];
  d->parent = (int *)malloc(sizeof(int) * nb);
  d->rel = zy_alloc_doubles(12 * (size_t)nb);
  d->ibase = zy_alloc_doubles(12 * (size_t)nb);
  double *absm = zy_alloc_doubles(12 * (size_t)nb), rot[9];
  for (int b = 0; b < nb; b++) {
    int span = b < 4 ? b : 4;
    d->parent[b] = b == 0 ? -1 : b - 1 - (int)(zy_rng_next(&r) % span);
    double *br = d->rel + 12 * b, *a = absm + 12 * b, *ib = d->ibase + 12 * b;
    hand_random_rotation(&r, rot);
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++)
        br[4 * i + j] = rot[3 * i + j];
      br[4 * i + 3] = b == 0 ? 0 : zy_rng_uniform(&r, -1, 1);
    }
    /* base absolute at the rest pose, and its inverse [R^T | -R^T t] */
    const double *pa = b ? absm + 12 * d->parent[b] : 0;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 4; j++)
        a[4 * i + j] = !pa ? br[4 * i + j]
                           : pa[4 * i] * br[j] + pa[4 * i + 1] * br[4 + j] +
                                 pa[4 * i + 2] * br[8 + j] +
                                 (j == 3 ? pa[4 * i + 3] : 0);
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++)
        ib[4 * i + j] = a[4 * j + i];
      ib[4 * i + 3] = -(a[i] * a[3] + a[4 + i] * a[7] + a[8 + i] * a[11]);
    }
  }
  d->verts = zy_alloc_doubles(3 * (size_t)nv);
  d->pts = zy_alloc_doubles(3 * (size_t)nv);
  d->w = zy_alloc_doubles((size_t)nv * nb);
  for (int v = 0; v < nv; v++) {
    int near = (int)(zy_rng_next(&r) % nb);
    double sum = 0;
    for (int i = 0; i < 3; i++) {
      d->verts[3 * v + i] =
          absm[12 * near + 4 * i + 3] + zy_rng_uniform(&r, -0.5, 0.5);
      d->pts[3 * v + i] = d->verts[3 * v + i] + zy_rng_uniform(&r, -0.3, 0.3);
    }
    for (int b = 0; b < nb; b++)
      sum +=
          (d->w[(size_t)v * nb + b] = zy_rng_uniform(&r, 0, 0.2) + (b == near));
    for (int b = 0; b < nb; b++)
      d->w[(size_t)v * nb + b] /= sum;
  }
  free(absm);
  int np = 3 * nb + 3;
  double *p = zy_alloc_doubles(np);
  for (int i = 0; i < np; i++)
    p[i] = zy_rng_uniform(&r, -0.3, 0.3);
  *pp = p;
  return np;
}

static ZY_UNUSED void hand_free(HandData *d) {
  free(d->parent);
  free(d->rel);
  free(d->ibase);
  free(d->verts);
  free(d->w);
  free(d->pts);
}

/* Work of one evaluation, up to a constant factor (the ADOL-C tape grows
 * with it). */
static ZY_UNUSED double hand_work(const HandData *d) {
  return (double)d->nv * d->nb;
}

#define ZYW_NAME "hand"
#define ZYW_DATA HandData
#define ZYW_SIZES hand_sizes
#define ZYW_OBJECTIVE hand_objective
#define ZYW_MAKE hand_make
#define ZYW_FREE hand_free
#define ZYW_WORK hand_work

#endif
