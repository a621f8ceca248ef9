/* gmm-omp.h - gmm.h's Gaussian mixture objective with OpenMP: the sum over
 * the n data points runs in a parallel region (scratch arrays per thread)
 * as an `omp for` with reduction(+:) on the log-likelihood sum; the
 * per-component setup and the prior stay serial.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Active parameters p = [alphas (k) | means (k*d) | icf (k*d*(d+1)/2)]; icf
 * holds, per component, d log-diagonal entries of Q followed by the
 * strictly lower triangle of Q by columns.  Data points x and the prior
 * (gamma, m) are constants.  Objective, as in ADBench:
 *   sum_i lse_k(alpha_k + sum(log diag Q_k) - |Q_k (x_i - mu_k)|^2 / 2)
 *   - n lse(alpha) + C + sum_k (gamma^2/2 |Q_k|_F^2 - m sum(log diag Q_k))
 *   - k C_wishart */
#ifndef ZY_BENCH_GMM_OMP_H
#define ZY_BENCH_GMM_OMP_H

#include "zyreal.h"

typedef struct GmmData {
  int d, k, n;
  double *x; /* n*d */
  double gamma;
  int m;
  double constant; /* the p-independent terms */
} GmmData;

static const char *const gmm_omp_sizes[3] = {"d=3 k=4 n=20", "d=10 k=25 n=1000",
                                             "d=20 k=50 n=10000"};

static ZY_REAL gmm_omp_lse(int n, const ZY_REAL *v) {
  ZY_REAL mx = v[0];
  for (int i = 1; i < n; i++)
    if (v[i] > mx)
      mx = v[i];
  ZY_REAL s = 0.0;
  for (int i = 0; i < n; i++)
    s += exp(v[i] - mx);
  return log(s) + mx;
}

static ZY_REAL gmm_omp_objective(const ZY_REAL *p, const GmmData *g) {
  int d = g->d, k = g->k, n = g->n, icf_sz = d * (d + 1) / 2;
  const ZY_REAL *alphas = p, *means = p + k, *icf = p + k + k * d;
  ZY_REAL *qdiags = ZY_ALLOC(d * k), *sum_qs = ZY_ALLOC(k);

  for (int ik = 0; ik < k; ik++) {
    sum_qs[ik] = 0.0;
    for (int id = 0; id < d; id++) {
      sum_qs[ik] += icf[ik * icf_sz + id];
      qdiags[ik * d + id] = exp(icf[ik * icf_sz + id]);
    }
  }

  ZY_REAL slse = 0.0;
#pragma omp parallel
  {
    ZY_REAL *xc = ZY_ALLOC(d), *qxc = ZY_ALLOC(d), *main_term = ZY_ALLOC(k);
#pragma omp for reduction(+ : slse)
    for (int ix = 0; ix < n; ix++) {
      for (int ik = 0; ik < k; ik++) {
        const ZY_REAL *mu = means + ik * d, *qd = qdiags + ik * d;
        const ZY_REAL *lt = icf + ik * icf_sz + d;
        for (int id = 0; id < d; id++)
          xc[id] = g->x[ix * d + id] - mu[id];
        for (int id = 0; id < d; id++)
          qxc[id] = qd[id] * xc[id];
        int li = 0;
        for (int i = 0; i < d; i++)
          for (int j = i + 1; j < d; j++)
            qxc[j] += lt[li++] * xc[i];
        ZY_REAL sq = 0.0;
        for (int id = 0; id < d; id++)
          sq += qxc[id] * qxc[id];
        main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sq;
      }
      slse += gmm_omp_lse(k, main_term);
    }
    ZY_FREE(xc);
    ZY_FREE(qxc);
    ZY_FREE(main_term);
  }

  ZY_REAL prior = 0.0;
  for (int ik = 0; ik < k; ik++) {
    ZY_REAL frob = 0.0;
    for (int id = 0; id < d; id++)
      frob += qdiags[ik * d + id] * qdiags[ik * d + id];
    for (int i = d; i < icf_sz; i++)
      frob += icf[ik * icf_sz + i] * icf[ik * icf_sz + i];
    prior += 0.5 * g->gamma * g->gamma * frob - g->m * sum_qs[ik];
  }
  ZY_REAL err = g->constant + slse - n * gmm_omp_lse(k, alphas) + prior;

  ZY_FREE(qdiags);
  ZY_FREE(sum_qs);
  return err;
}

static ZY_UNUSED int gmm_omp_make(int size, GmmData *g, double **pp) {
  static const int dims[3][3] = {{3, 4, 20}, {10, 25, 1000}, {20, 50, 10000}};
  int d = dims[size][0], k = dims[size][1], n = dims[size][2];
  int icf_sz = d * (d + 1) / 2, np = k + k * d + k * icf_sz;
  ZyRng r = {42};
  g->d = d;
  g->k = k;
  g->n = n;
  g->gamma = 1.0;
  g->m = 0;
  g->x = zy_alloc_doubles((size_t)n * d);
  for (int i = 0; i < n * d; i++)
    g->x[i] = zy_rng_uniform(&r, -1, 1);
  double *p = zy_alloc_doubles(np);
  for (int i = 0; i < np; i++)
    p[i] = zy_rng_uniform(&r, -0.5, 0.5);
  /* log_wishart_prior's constant C and -n*d/2*log(2 pi), as in ADBench */
  int wn = d + g->m + 1;
  double lgd = 0.25 * d * (d - 1) * log(M_PI);
  for (int j = 1; j <= d; j++)
    lgd += lgamma(0.5 * wn + 0.5 * (1 - j));
  double c = wn * d * (log(g->gamma) - 0.5 * log(2.0)) - lgd;
  g->constant = -n * d * 0.5 * log(2 * M_PI) - k * c;
  *pp = p;
  return np;
}

static ZY_UNUSED void gmm_omp_free(GmmData *g) { free(g->x); }

/* Work of one evaluation, up to a constant factor (the ADOL-C tape grows
 * with it). */
static ZY_UNUSED double gmm_omp_work(const GmmData *g) {
  return (double)g->n * g->k * (g->d * (g->d + 3) / 2 + 4);
}

#define ZYW_NAME "gmm-omp"
#define ZYW_DATA GmmData
#define ZYW_SIZES gmm_omp_sizes
#define ZYW_OBJECTIVE gmm_omp_objective
#define ZYW_MAKE gmm_omp_make
#define ZYW_FREE gmm_omp_free
#define ZYW_WORK gmm_omp_work

#endif
