/* llsq-manual.c - hand-written gradient of llsq.h's objective:
 * df/dx_j = -sum_i r_i t_i^j with r_i the residual at t_i.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "bench.h"
#include "llsq.h"
#include <string.h>

static void llsq_grad_manual(const double *x, const void *data, double *g,
                             int np) {
  const LlsqData *d = (const LlsqData *)data;
  memset(g, 0, sizeof(double) * np);
  for (int i = 0; i < d->n; i++) {
    double t = -1 + 2.0 * i / (d->n - 1), tj = 1;
    double r = (t > 0) - (t < 0);
    for (int j = 0; j < d->m; j++) {
      r -= x[j] * tj;
      tj *= t;
    }
    tj = 1;
    for (int j = 0; j < d->m; j++) {
      g[j] -= r * tj;
      tj *= t;
    }
  }
}

const ZybTool zyb_tool_manual = {"manual", llsq_grad_manual};
