/* gmm-manual.c - hand-written gradient of gmm.h's objective: one reverse
 * sweep per (point, component) pair that recomputes Q (x - mu) instead of
 * storing it, then the prior and the log-diagonal chain rule.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "bench.h"
#include "gmm.h"
#include <string.h>

static void gmm_grad_manual(const double *p, const void *data, double *gp,
                            int np) {
  const GmmData *g = (const GmmData *)data;
  int d = g->d, k = g->k, n = g->n, icf_sz = d * (d + 1) / 2;
  const double *alphas = p, *means = p + k, *icf = p + k + k * d;
  double *galpha = gp, *gmeans = gp + k, *gicf = gp + k + k * d;
  double *qdiags = zy_alloc_doubles((size_t)d * k),
         *sum_qs = zy_alloc_doubles(k);
  double *gqd = zy_alloc_doubles((size_t)d * k), *gsumq = zy_alloc_doubles(k);
  double *xc = zy_alloc_doubles(d), *qxc = zy_alloc_doubles(d);
  double *mt = zy_alloc_doubles(k);
  memset(gp, 0, sizeof(double) * np);

  for (int ik = 0; ik < k; ik++)
    for (int id = 0; id < d; id++) {
      sum_qs[ik] += icf[ik * icf_sz + id];
      qdiags[ik * d + id] = exp(icf[ik * icf_sz + id]);
    }

  for (int ix = 0; ix < n; ix++) {
    const double *xi = g->x + ix * d;
    /* forward: the main terms, then softmax weights = d lse / d main_term */
    double mx = -INFINITY;
    for (int ik = 0; ik < k; ik++) {
      const double *mu = means + ik * d, *qd = qdiags + ik * d;
      const double *lt = icf + ik * icf_sz + d;
      for (int id = 0; id < d; id++)
        xc[id] = xi[id] - mu[id];
      for (int id = 0; id < d; id++)
        qxc[id] = qd[id] * xc[id];
      int li = 0;
      for (int i = 0; i < d; i++)
        for (int j = i + 1; j < d; j++)
          qxc[j] += lt[li++] * xc[i];
      double sq = 0;
      for (int id = 0; id < d; id++)
        sq += qxc[id] * qxc[id];
      mt[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sq;
      if (mt[ik] > mx)
        mx = mt[ik];
    }
    double s = 0;
    for (int ik = 0; ik < k; ik++)
      s += (mt[ik] = exp(mt[ik] - mx));
    /* reverse: main_term_k = alpha_k + sum_q_k - |q|^2/2 with weight w */
    for (int ik = 0; ik < k; ik++) {
      double w = mt[ik] / s;
      const double *mu = means + ik * d, *qd = qdiags + ik * d;
      const double *lt = icf + ik * icf_sz + d;
      double *gmu = gmeans + ik * d, *glt = gicf + ik * icf_sz + d;
      galpha[ik] += w;
      gsumq[ik] += w;
      for (int id = 0; id < d; id++)
        xc[id] = xi[id] - mu[id];
      for (int id = 0; id < d; id++)
        qxc[id] = qd[id] * xc[id];
      int li = 0;
      for (int i = 0; i < d; i++)
        for (int j = i + 1; j < d; j++)
          qxc[j] += lt[li++] * xc[i];
      /* r = d main_term / d q = -w q; reuse qxc for r */
      for (int id = 0; id < d; id++) {
        qxc[id] *= -w;
        gqd[ik * d + id] += qxc[id] * xc[id];
      }
      li = 0;
      for (int i = 0; i < d; i++) {
        double gx = qd[i] * qxc[i];
        for (int j = i + 1; j < d; j++, li++) {
          glt[li] += qxc[j] * xc[i];
          gx += lt[li] * qxc[j];
        }
        gmu[i] -= gx;
      }
    }
  }

  /* -n lse(alpha) */
  double mx = alphas[0], s = 0;
  for (int ik = 1; ik < k; ik++)
    if (alphas[ik] > mx)
      mx = alphas[ik];
  for (int ik = 0; ik < k; ik++)
    s += exp(alphas[ik] - mx);
  for (int ik = 0; ik < k; ik++)
    galpha[ik] -= n * exp(alphas[ik] - mx) / s;

  /* prior: gamma^2/2 (|diag Q|^2 + |L|^2) - m sum_q, then q = exp(icf) */
  double g2 = g->gamma * g->gamma;
  for (int ik = 0; ik < k; ik++) {
    gsumq[ik] -= g->m;
    for (int i = d; i < icf_sz; i++)
      gicf[ik * icf_sz + i] += g2 * icf[ik * icf_sz + i];
    for (int id = 0; id < d; id++) {
      double q = qdiags[ik * d + id];
      gqd[ik * d + id] += g2 * q;
      gicf[ik * icf_sz + id] += gqd[ik * d + id] * q + gsumq[ik];
    }
  }
  free(qdiags);
  free(sum_qs);
  free(gqd);
  free(gsumq);
  free(xc);
  free(qxc);
  free(mt);
}

const ZybTool zyb_tool_manual = {"manual", gmm_grad_manual};
