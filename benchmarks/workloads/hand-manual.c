/* hand-manual.c - hand-written gradient of hand.h's objective: skinning
 * residuals pulled back onto each bone's 3x4 transform, then down the bone
 * tree (children first) to the Euler angles.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "bench.h"
#include "hand.h"
#include <string.h>

/* c = a b for 3x3 row-major matrices */
static void mul3(const double *a, const double *b, double *c) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      c[3 * i + j] =
          a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
}

static double frob(const double *a, const double *b) {
  double s = 0;
  for (int i = 0; i < 9; i++)
    s += a[i] * b[i];
  return s;
}

/* d loss / d angles, given d loss / d Rz(c) Ry(b) Rx(a) */
static void euler_reverse(double a, double b, double c, const double *gr,
                          double *ga) {
  double ca = cos(a), sa = sin(a), cb = cos(b), sb = sin(b), cc = cos(c),
         sc = sin(c);
  double rx[9] = {1, 0, 0, 0, ca, -sa, 0, sa, ca},
         drx[9] = {0, 0, 0, 0, -sa, -ca, 0, ca, -sa};
  double ry[9] = {cb, 0, sb, 0, 1, 0, -sb, 0, cb},
         dry[9] = {-sb, 0, cb, 0, 0, 0, -cb, 0, -sb};
  double rz[9] = {cc, -sc, 0, sc, cc, 0, 0, 0, 1},
         drz[9] = {-sc, -cc, 0, cc, -sc, 0, 0, 0, 0};
  double t[9], m[9];
  mul3(rz, ry, t);
  mul3(t, drx, m);
  ga[0] += frob(gr, m);
  mul3(rz, dry, t);
  mul3(t, rx, m);
  ga[1] += frob(gr, m);
  mul3(drz, ry, t);
  mul3(t, rx, m);
  ga[2] += frob(gr, m);
}

static void hand_grad_manual(const double *p, const void *data, double *g,
                             int np) {
  const HandData *d = (const HandData *)data;
  int nb = d->nb;
  double *absm = zy_alloc_doubles(12 * (size_t)nb),
         *tr = zy_alloc_doubles(12 * (size_t)nb);
  double *rels = zy_alloc_doubles(9 * (size_t)nb),
         *ga = zy_alloc_doubles(12 * (size_t)nb);
  double *gt = zy_alloc_doubles(12 * (size_t)nb), rl[9];
  memset(g, 0, sizeof(double) * np);

  /* forward over the bones, as in hand_objective */
  for (int b = 0; b < nb; b++) {
    const double *br = d->rel + 12 * b, *ib = d->ibase + 12 * b;
    double *a = absm + 12 * b, *t = tr + 12 * b, *rel = rels + 9 * b, brr[9];
    hand_euler(p[3 * b], p[3 * b + 1], p[3 * b + 2], rl);
    for (int i = 0; i < 9; i++)
      brr[i] = br[4 * (i / 3) + i % 3];
    mul3(brr, rl, rel);
    const double *pa = d->parent[b] < 0 ? 0 : absm + 12 * d->parent[b];
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++)
        a[4 * i + j] = !pa ? rel[3 * i + j]
                           : pa[4 * i] * rel[j] + pa[4 * i + 1] * rel[3 + j] +
                                 pa[4 * i + 2] * rel[6 + j];
      a[4 * i + 3] = !pa ? br[4 * i + 3]
                         : pa[4 * i] * br[3] + pa[4 * i + 1] * br[7] +
                               pa[4 * i + 2] * br[11] + pa[4 * i + 3];
    }
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 4; j++)
        t[4 * i + j] = a[4 * i] * ib[j] + a[4 * i + 1] * ib[4 + j] +
                       a[4 * i + 2] * ib[8 + j] + (j == 3 ? a[4 * i + 3] : 0);
  }

  /* skinning: gt_b += w_vb gs [x; 1]^T with gs = 2 (s - pt) */
  for (int v = 0; v < d->nv; v++) {
    const double *x = d->verts + 3 * v, *wv = d->w + (size_t)v * nb;
    double s[3] = {p[3 * nb], p[3 * nb + 1], p[3 * nb + 2]};
    for (int b = 0; b < nb; b++) {
      const double *t = tr + 12 * b;
      for (int i = 0; i < 3; i++)
        s[i] += wv[b] * (t[4 * i] * x[0] + t[4 * i + 1] * x[1] +
                         t[4 * i + 2] * x[2] + t[4 * i + 3]);
    }
    for (int i = 0; i < 3; i++) {
      s[i] = 2 * (s[i] - d->pts[3 * v + i]);
      g[3 * nb + i] += s[i];
    }
    for (int b = 0; b < nb; b++) {
      double *gtb = gt + 12 * b;
      for (int i = 0; i < 3; i++) {
        double gs = wv[b] * s[i];
        gtb[4 * i] += gs * x[0];
        gtb[4 * i + 1] += gs * x[1];
        gtb[4 * i + 2] += gs * x[2];
        gtb[4 * i + 3] += gs;
      }
    }
  }

  /* transform = absolute * ibase: ga = gt ibase^T (rotation), gt (offset) */
  for (int b = 0; b < nb; b++) {
    const double *ib = d->ibase + 12 * b, *gtb = gt + 12 * b;
    double *gab = ga + 12 * b;
    for (int i = 0; i < 3; i++) {
      for (int k = 0; k < 3; k++)
        gab[4 * i + k] =
            gtb[4 * i] * ib[4 * k] + gtb[4 * i + 1] * ib[4 * k + 1] +
            gtb[4 * i + 2] * ib[4 * k + 2] + gtb[4 * i + 3] * ib[4 * k + 3];
      gab[4 * i + 3] = gtb[4 * i + 3];
    }
  }
  /* down the tree, children (higher index) first */
  for (int b = nb - 1; b >= 0; b--) {
    const double *br = d->rel + 12 * b, *rel = rels + 9 * b, *gab = ga + 12 * b;
    double grel[9], grl[9];
    if (d->parent[b] < 0) {
      for (int i = 0; i < 9; i++)
        grel[i] = gab[4 * (i / 3) + i % 3];
    } else {
      const double *pa = absm + 12 * d->parent[b];
      double *gpa = ga + 12 * d->parent[b];
      /* a = pa rel (rotation), a_t = pa_R br_t + pa_t */
      for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) {
          gpa[4 * i + k] +=
              gab[4 * i] * rel[3 * k] + gab[4 * i + 1] * rel[3 * k + 1] +
              gab[4 * i + 2] * rel[3 * k + 2] + gab[4 * i + 3] * br[4 * k + 3];
          grel[3 * i + k] =
              pa[i] * gab[k] + pa[4 + i] * gab[4 + k] + pa[8 + i] * gab[8 + k];
        }
      for (int i = 0; i < 3; i++)
        gpa[4 * i + 3] += gab[4 * i + 3];
    }
    /* rel = br_R rl: grl = br_R^T grel */
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        grl[3 * i + j] =
            br[i] * grel[j] + br[4 + i] * grel[3 + j] + br[8 + i] * grel[6 + j];
    euler_reverse(p[3 * b], p[3 * b + 1], p[3 * b + 2], grl, g + 3 * b);
  }
  free(absm);
  free(tr);
  free(rels);
  free(ga);
  free(gt);
}

const ZybTool zyb_tool_manual = {"manual", hand_grad_manual};
