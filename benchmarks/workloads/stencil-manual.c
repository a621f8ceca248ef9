/* stencil-manual.c - hand-written gradient of stencil.h's objective: every
 * time step's field is stored, then the adjoint field is stepped back
 * (the Laplacian with zero boundary is symmetric, so it is its own
 * transpose).
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "bench.h"
#include "stencil.h"
#include <string.h>

static void stencil_grad_manual(const double *u0, const void *data, double *g,
                                int np) {
  const StencilData *d = (const StencilData *)data;
  int n = d->n, nn = n * n;
  double a = d->alpha, b = d->beta;
  double *us = zy_alloc_doubles((size_t)(d->steps + 1) * nn);
  double *gv = zy_alloc_doubles(nn);
  memcpy(us, u0, sizeof(double) * nn);
  for (int t = 0; t < d->steps; t++) {
    const double *u = us + (size_t)t * nn;
    double *v = us + (size_t)(t + 1) * nn;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        double c = u[i * n + j], lap = -4 * c;
        if (i > 0)
          lap += u[(i - 1) * n + j];
        if (i < n - 1)
          lap += u[(i + 1) * n + j];
        if (j > 0)
          lap += u[i * n + j - 1];
        if (j < n - 1)
          lap += u[i * n + j + 1];
        v[i * n + j] = c + a * lap + b * c * (1 - c);
      }
  }
  const double *ut = us + (size_t)d->steps * nn;
  for (int i = 0; i < nn; i++)
    g[i] = 2 * ut[i];
  for (int t = d->steps - 1; t >= 0; t--) {
    const double *u = us + (size_t)t * nn;
    memcpy(gv, g, sizeof(double) * nn);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        double c = u[i * n + j], s = 0;
        if (i > 0)
          s += gv[(i - 1) * n + j];
        if (i < n - 1)
          s += gv[(i + 1) * n + j];
        if (j > 0)
          s += gv[i * n + j - 1];
        if (j < n - 1)
          s += gv[i * n + j + 1];
        g[i * n + j] = gv[i * n + j] * (1 - 4 * a + b * (1 - 2 * c)) + a * s;
      }
  }
  (void)np;
  free(us);
  free(gv);
}

const ZybTool zyb_tool_manual = {"manual", stencil_grad_manual};
