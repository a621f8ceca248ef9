/* gmm-omp-manual.c - hand-written parallel gradient of gmm-omp.h's
 * objective: gmm-manual.c's reverse sweep per (point, component) pair, with
 * the points shared out among the threads; each thread adds into its own
 * copy of the gradient (and of d/d diag Q, d/d sum log diag Q), and the
 * copies are summed, split by parameter among the threads, at the end: no
 * atomics.  The prior and the log-diagonal chain rule stay serial.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "bench.h"
#include "gmm-omp.h"
#include <omp.h>
#include <string.h>

/* One point's contribution, added into the thread's buffer `acc` laid out
 * as [alphas (k) | means (k*d) | icf (k*icf_sz) | d/d diag Q (k*d) | d/d sum
 * log diag Q (k)]. */
static void gmm_omp_point(const GmmData *g, const double *p,
                          const double *qdiags, const double *sum_qs,
                          const double *xi, double *acc, double *xc,
                          double *qxc, double *mt) {
  int d = g->d, k = g->k, icf_sz = d * (d + 1) / 2;
  const double *alphas = p, *means = p + k, *icf = p + k + k * d;
  double *galpha = acc, *gmeans = acc + k, *gicf = acc + k + k * d;
  double *gqd = gicf + k * icf_sz, *gsumq = gqd + k * d;
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

static void gmm_omp_grad_manual(const double *p, const void *data, double *gp,
                                int np) {
  const GmmData *g = (const GmmData *)data;
  int d = g->d, k = g->k, n = g->n, icf_sz = d * (d + 1) / 2;
  const double *alphas = p, *icf = p + k + k * d;
  double *galpha = gp, *gicf = gp + k + k * d;
  /* per-thread buffers: the gradient, then d/d diag Q and d/d sum_q */
  int nacc = np + k * d + k;
  double *qdiags = zy_alloc_doubles((size_t)d * k),
         *sum_qs = zy_alloc_doubles(k);
  double *total = zy_alloc_doubles(nacc), *acc = 0;

  for (int ik = 0; ik < k; ik++)
    for (int id = 0; id < d; id++) {
      sum_qs[ik] += icf[ik * icf_sz + id];
      qdiags[ik * d + id] = exp(icf[ik * icf_sz + id]);
    }

#pragma omp parallel
  {
    int nt = omp_get_num_threads(), me = omp_get_thread_num();
#pragma omp single
    acc = (double *)malloc(sizeof(double) * (size_t)nacc * nt);
    /* first touch by the thread that uses it */
    double *mine = acc + (size_t)nacc * me;
    memset(mine, 0, sizeof(double) * nacc);
    double *xc = zy_alloc_doubles(d), *qxc = zy_alloc_doubles(d);
    double *mt = zy_alloc_doubles(k);
#pragma omp for schedule(static)
    for (int ix = 0; ix < n; ix++)
      gmm_omp_point(g, p, qdiags, sum_qs, g->x + (size_t)ix * d, mine, xc, qxc,
                    mt);
    free(xc);
    free(qxc);
    free(mt);
    /* the implicit barrier of the loop: every buffer is complete */
#pragma omp for schedule(static)
    for (int i = 0; i < nacc; i++) {
      double t = 0;
      for (int th = 0; th < nt; th++)
        t += acc[(size_t)nacc * th + i];
      total[i] = t;
    }
  }
  free(acc);
  memcpy(gp, total, sizeof(double) * np);
  double *gqd = total + np, *gsumq = gqd + k * d;

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
  free(total);
}

const ZybTool zyb_tool_manual = {"manual", gmm_omp_grad_manual};
