/* stencil-omp-manual.c - hand-written parallel gradient of stencil-omp.h's
 * objective: stencil-manual.c's sweeps (every step's field stored, the
 * adjoint field stepped back) in one parallel region, each step an
 * `omp for` over the rows.  The adjoint step is a gather (the Laplacian
 * with zero boundary is its own transpose): each thread writes only its
 * own rows, no atomics; two adjoint buffers alternate instead of a copy.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "bench.h"
#include "stencil-omp.h"

static void stencil_omp_grad_manual(const double *u0, const void *data,
                                    double *g, int np) {
  const StencilData *d = (const StencilData *)data;
  int n = d->n, nn = n * n, steps = d->steps;
  double a = d->alpha, b = d->beta;
  double *us = (double *)malloc(sizeof(double) * (size_t)(steps + 1) * nn);
  double *tmp = (double *)malloc(sizeof(double) * (size_t)nn);
  (void)np;
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (int i = 0; i < nn; i++)
      us[i] = u0[i];
    for (int t = 0; t < steps; t++) {
      const double *u = us + (size_t)t * nn;
      double *v = us + (size_t)(t + 1) * nn;
#pragma omp for schedule(static)
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
    /* the adjoint of u_t lands in g when t is even, in tmp when odd */
    const double *ut = us + (size_t)steps * nn;
    double *gt = steps % 2 ? tmp : g;
#pragma omp for schedule(static)
    for (int i = 0; i < nn; i++)
      gt[i] = 2 * ut[i];
    for (int t = steps - 1; t >= 0; t--) {
      const double *u = us + (size_t)t * nn;
      const double *gv = (t + 1) % 2 ? tmp : g;
      double *gu = t % 2 ? tmp : g;
#pragma omp for schedule(static)
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
          gu[i * n + j] = gv[i * n + j] * (1 - 4 * a + b * (1 - 2 * c)) + a * s;
        }
    }
  }
  free(us);
  free(tmp);
}

const ZybTool zyb_tool_manual = {"manual", stencil_omp_grad_manual};
