/* lse-manual.c - hand-written gradient of lse.h's objective: the softmax,
 * exp(x_i - lse(x)).
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "bench.h"
#include "lse.h"

static void lse_grad_manual(const double *x, const void *data, double *g,
                            int np) {
  (void)np;
  const LseData *d = (const LseData *)data;
  double mx = x[0], s = 0;
  for (int i = 1; i < d->n; i++)
    if (x[i] > mx)
      mx = x[i];
  for (int i = 0; i < d->n; i++)
    s += (g[i] = exp(x[i] - mx));
  double inv = 1 / s;
  for (int i = 0; i < d->n; i++)
    g[i] *= inv;
}

const ZybTool zyb_tool_manual = {"manual", lse_grad_manual};
