/* ba-manual.c - hand-written gradient of ba.h's objective: each
 * observation's residual differentiated in reverse by hand, accumulated
 * into its camera, point and weight.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ba.h"
#include "bench.h"
#include <string.h>

static void cross(const double *a, const double *b, double *out) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Adds the reverse of ba_rotate: gxc into grot and gxo. */
static void rotate_reverse(const double *rot, const double *xo,
                           const double *gxc, double *grot, double *gxo) {
  double sq = dot(rot, rot), t[3];
  if (sq == 0) { /* xc = xo + rot x xo */
    cross(gxc, rot, t);
    for (int k = 0; k < 3; k++)
      gxo[k] += gxc[k] + t[k];
    cross(xo, gxc, t);
    for (int k = 0; k < 3; k++)
      grot[k] += t[k];
    return;
  }
  double th = sqrt(sq), c = cos(th), s = sin(th), w[3], cr[3];
  for (int k = 0; k < 3; k++)
    w[k] = rot[k] / th;
  cross(w, xo, cr);
  double dt = dot(w, xo), tmp = (1 - c) * dt;
  /* xc = xo c + cr s + w tmp */
  double gc = dot(gxc, xo), gs = dot(gxc, cr), gtmp = dot(gxc, w);
  double gcr[3], gw[3];
  for (int k = 0; k < 3; k++) {
    gxo[k] += gxc[k] * c;
    gcr[k] = gxc[k] * s;
    gw[k] = gxc[k] * tmp;
  }
  gc -= gtmp * dt; /* tmp = (1 - c) dt */
  double gdt = gtmp * (1 - c);
  for (int k = 0; k < 3; k++) {
    gw[k] += gdt * xo[k];
    gxo[k] += gdt * w[k];
  }
  double a[3], b[3]; /* cr = w x xo */
  cross(xo, gcr, a);
  cross(gcr, w, b);
  for (int k = 0; k < 3; k++) {
    gw[k] += a[k];
    gxo[k] += b[k];
  }
  double gth = -dot(gw, rot) / sq - s * gc + c * gs; /* w = rot / th */
  for (int k = 0; k < 3; k++)
    grot[k] += gw[k] / th + rot[k] * gth / th; /* th = sqrt(|rot|^2) */
}

static void ba_grad_manual(const double *params, const void *data, double *g,
                           int np) {
  const BaData *d = (const BaData *)data;
  const double *pts = params + 11 * d->n, *w = pts + 3 * d->m;
  double *gpts = g + 11 * d->n, *gw = gpts + 3 * d->m;
  memset(g, 0, sizeof(double) * np);
  for (int i = 0; i < d->p; i++) {
    int ci = d->obs[2 * i], pj = d->obs[2 * i + 1];
    const double *cam = params + 11 * ci, *x = pts + 3 * pj;
    double *gcam = g + 11 * ci, *gx = gpts + 3 * pj;
    double xo[3], xc[3];
    for (int k = 0; k < 3; k++)
      xo[k] = x[k] - cam[3 + k];
    ba_rotate(cam, xo, xc);
    double px = xc[0] / xc[2], py = xc[1] / xc[2];
    double rsq = px * px + py * py;
    double l = 1 + cam[9] * rsq + cam[10] * rsq * rsq;
    double rx = cam[6] * px * l + cam[7] - d->feat[2 * i];
    double ry = cam[6] * py * l + cam[8] - d->feat[2 * i + 1];
    double we = 1 - w[i] * w[i];
    /* e = w r, E = |e|^2 + we^2 */
    double gex = 2 * w[i] * rx, gey = 2 * w[i] * ry;
    gw[i] += gex * rx + gey * ry - 4 * we * w[i];
    double grx = w[i] * gex, gry = w[i] * gey;
    gcam[7] += grx;
    gcam[8] += gry;
    gcam[6] += grx * px * l + gry * py * l;
    double gdx = cam[6] * grx, gdy = cam[6] * gry; /* d = p l */
    double gl = gdx * px + gdy * py;
    double gpx = gdx * l, gpy = gdy * l;
    double grsq = gl * (cam[9] + 2 * cam[10] * rsq);
    gcam[9] += gl * rsq;
    gcam[10] += gl * rsq * rsq;
    gpx += 2 * px * grsq;
    gpy += 2 * py * grsq;
    double gxc[3] = {gpx / xc[2], gpy / xc[2], -(gpx * px + gpy * py) / xc[2]};
    double gxo[3] = {0, 0, 0};
    rotate_reverse(cam, xo, gxc, gcam, gxo);
    for (int k = 0; k < 3; k++) {
      gx[k] += gxo[k];
      gcam[3 + k] -= gxo[k];
    }
  }
}

const ZybTool zyb_tool_manual = {"manual", ba_grad_manual};
