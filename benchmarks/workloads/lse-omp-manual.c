/* lse-omp-manual.c - hand-written parallel gradient of lse-omp.h's
 * objective: the softmax exp(x_i - lse(x)), in one parallel region (max,
 * then sum of exp stored in g, then the scaling), no atomics.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "bench.h"
#include "lse-omp.h"

static void lse_omp_grad_manual(const double *x, const void *data, double *g,
                                int np) {
  (void)np;
  const LseData *d = (const LseData *)data;
  int n = d->n;
  double mx = x[0], s = 0;
#pragma omp parallel
  {
#pragma omp for reduction(max : mx)
    for (int i = 1; i < n; i++)
      if (x[i] > mx)
        mx = x[i];
#pragma omp for reduction(+ : s)
    for (int i = 0; i < n; i++)
      s += (g[i] = exp(x[i] - mx));
    double inv = 1 / s;
#pragma omp for
    for (int i = 0; i < n; i++)
      g[i] *= inv;
  }
}

const ZybTool zyb_tool_manual = {"manual", lse_omp_grad_manual};
