// xsbench-unionized.cu - XSBench's event-based lookup at its "small" size,
// written from the published description of the unionized-grid method: 68
// nuclides of 11303 energy points each (five cross sections per point), a
// unionized energy grid holding every nuclide's energies with, for each
// of its points, the index of each nuclide's point at or below it; 12
// materials of 34 (fuel), 5, 4, 4, 27, 21, 21, 21, 21, 21, 9 and 9
// nuclides, drawn with the published probabilities.  A lookup samples an
// energy and a material, binary-searches the unionized grid once, then
// sums the interpolated micro cross sections of ALL the material's
// nuclides weighted by their concentrations (macroscopic cross sections),
// scaled by a density.  One GPU thread per lookup.  Checked against the
// serial lookup on a sample of lookups; then the gradient of J = sum seed
// * out with respect to the nuclide grids (energies and cross sections),
// the concentrations and the density: Zymase's (__enzyme_autodiff of the
// thread's body) against a hand-written adjoint kernel, and that against
// central differences over a sample of lookups (sizes up to 10^7).
// Usage: xsbench-unionized [lookups [reps [gridpoints]]] (reps 0: the
// primal only; gridpoints: 11303, fewer for quick tests)
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "bench.h"
#include <cstring>

enum { NUC = 68, MATS = 12, MAXN = 34, XS = 5 };
static const int n_nucs[MATS] = {34, 5, 4, 4, 27, 21, 21, 21, 21, 21, 9, 9};
/* The share of lookups in each material (fuel, cladding, cold and hot
 * borated water, ...), cumulative. */
__constant__ double mat_cdf_d[MATS];
static double mat_cdf_h[MATS];
static const double mat_p[MATS] = {0.140, 0.052, 0.275, 0.134, 0.154, 0.064,
                                   0.066, 0.055, 0.008, 0.015, 0.025, 0.013};

struct Point {
  double e, xs[XS];
};
/* The problem: nuclide grids (differentiated), the unionized grid and its
 * index grid, the materials (read only). */
struct Data {
  long gp;              /* points per nuclide */
  const Point *grid;    /* NUC * gp */
  const double *ue;     /* the unionized energies, NUC * gp */
  const int *idx;       /* NUC * gp * NUC */
  const int *nn, *mats; /* nuclides per material; MATS * MAXN */
};

__host__ __device__ static unsigned long long lcg(unsigned long long s) {
  return s * 6364136223846793005ULL + 1442695040888963407ULL;
}
__host__ __device__ static double unit(unsigned long long s) {
  return (double)(s >> 11) * (1.0 / 9007199254740992.0);
}

/* The energy and material of lookup i. */
__host__ __device__ static void sample(long i, const double *cdf, double *e,
                                       int *mat) {
  unsigned long long s = lcg(lcg((unsigned long long)i * 2 + 17));
  *e = unit(s);
  double r = unit(lcg(s));
  int m = 0;
  while (m < MATS - 1 && r >= cdf[m])
    m++;
  *mat = m;
}

/* The largest u with ue[u] <= e (0 below the grid). */
__host__ __device__ static long union_search(const double *ue, long n,
                                             double e) {
  long lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    long mid = lo + (hi - lo) / 2;
    if (ue[mid] > e)
      hi = mid;
    else
      lo = mid;
  }
  return lo;
}

/* The macroscopic cross sections of lookup i, times the density, in
 * out[0..XS). */
__host__ __device__ static void lookup(long i, Data d, const double *conc,
                                       double density, const double *cdf,
                                       double *out) {
  double e, macro[XS] = {0, 0, 0, 0, 0};
  int mat;
  sample(i, cdf, &e, &mat);
  long u = union_search(d.ue, NUC * d.gp, e);
  for (int k = 0; k < d.nn[mat]; k++) {
    int nuc = d.mats[mat * MAXN + k];
    long lo = d.idx[u * NUC + nuc];
    if (lo == d.gp - 1)
      lo--;
    const Point *l = d.grid + nuc * d.gp + lo, *h = l + 1;
    double f = (h->e - e) / (h->e - l->e), c = conc[mat * MAXN + k];
    for (int x = 0; x < XS; x++)
      macro[x] += c * (h->xs[x] - f * (h->xs[x] - l->xs[x]));
  }
  for (int x = 0; x < XS; x++)
    out[x] = density * macro[x];
}

__global__ void lookups(long n, Data d, const double *conc, double density,
                        double *out) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    lookup(i, d, conc, density, mat_cdf_d, out + i * XS);
}

/* The thread's lookup, the body that Zymase differentiates (the density
 * in memory: its adjoint is a sum over the grid). */
__device__ void
lookup_thread(long n, const Point *__restrict__ grid,
              const double *__restrict__ ue, const int *__restrict__ idx,
              const int *__restrict__ nn, const int *__restrict__ mats, long gp,
              const double *__restrict__ conc,
              const double *__restrict__ density, double *__restrict__ out) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    lookup(i, Data{gp, grid, ue, idx, nn, mats}, conc, *density, mat_cdf_d,
           out + i * XS);
}

/* d/d(grid, conc, density) of sum dout * out, added to the shadows; dout
 * consumed (zeroed), as Enzyme does. */
__global__ void lookups_zymase(long n, Data d, Point *dgrid, const double *conc,
                               double *dconc, const double *density,
                               double *ddensity, double *out, double *dout) {
  __enzyme_autodiff((void *)lookup_thread, enzyme_const, n, enzyme_dup, d.grid,
                    dgrid, enzyme_const, d.ue, enzyme_const, d.idx,
                    enzyme_const, d.nn, enzyme_const, d.mats, enzyme_const,
                    d.gp, enzyme_dup, conc, dconc, enzyme_dup, density,
                    ddensity, enzyme_dup, out, dout);
}
/* The same with respect to the density only (the reduction). */
__global__ void lookups_zymase_density(long n, Data d, const double *conc,
                                       const double *density, double *ddensity,
                                       double *out, double *dout) {
  __enzyme_autodiff((void *)lookup_thread, enzyme_const, n, enzyme_const,
                    d.grid, enzyme_const, d.ue, enzyme_const, d.idx,
                    enzyme_const, d.nn, enzyme_const, d.mats, enzyme_const,
                    d.gp, enzyme_const, conc, enzyme_dup, density, ddensity,
                    enzyme_dup, out, dout);
}

/* The hand-written adjoint: the search again, then each nuclide's
 * interpolation reversed with atomic adds into the two points and the
 * concentration it read; the density's adjoint summed over the block. */
__global__ void lookups_adjoint(long n, Data d, Point *dgrid,
                                const double *conc, double *dconc,
                                const double *density, double *ddensity,
                                double *dout) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  double dd = 0;
  if (i < n) {
    double e, rho = *density, ob[XS];
    int mat;
    sample(i, mat_cdf_d, &e, &mat);
    long u = union_search(d.ue, NUC * d.gp, e);
    for (int x = 0; x < XS; x++)
      ob[x] = dout[i * XS + x], dout[i * XS + x] = 0;
    for (int k = 0; k < d.nn[mat]; k++) {
      int nuc = d.mats[mat * MAXN + k];
      long lo = d.idx[u * NUC + nuc];
      if (lo == d.gp - 1)
        lo--;
      const Point *l = d.grid + nuc * d.gp + lo, *h = l + 1;
      Point *dl = dgrid + nuc * d.gp + lo, *dh = dl + 1;
      double de = h->e - l->e, f = (h->e - e) / de, c = conc[mat * MAXN + k];
      double dc = 0, fb = 0;
      for (int x = 0; x < XS; x++) {
        double v = h->xs[x] - f * (h->xs[x] - l->xs[x]), mb = rho * ob[x];
        dd += ob[x] * c * v;
        dc += mb * v;
        fb += c * mb * (l->xs[x] - h->xs[x]);
        atomicAdd(&dh->xs[x], c * mb * (1 - f));
        atomicAdd(&dl->xs[x], c * mb * f);
      }
      atomicAdd(&dconc[mat * MAXN + k], dc);
      atomicAdd(&dh->e, fb * (1 - f) / de);
      atomicAdd(&dl->e, fb * f / de);
    }
  }
  block_add(ddensity, dd);
}

/* dJ/dp by central differences over the sampled lookups (J = sum seed *
 * out of those), term by term, with step h (0: 1e-7 |p|, 1e-7 at least). */
static Fd central(long n, long stride, Data d, double *conc, double *density,
                  double *p, const double *seed, double *op, double *om,
                  double h = 0) {
  if (h == 0)
    h = 1e-7 * std::fmax(1.0, std::fabs(*p));
  const double keep = *p;
  for (int side = 0; side < 2; side++) {
    *p = side ? keep - h : keep + h;
    for (long i = 0, j = 0; i < n; i += stride, j++)
      lookup(i, d, conc, *density, mat_cdf_h, (side ? om : op) + j * XS);
  }
  *p = keep;
  return fd_terms(seed, op, om, ((n + stride - 1) / stride) * XS, h);
}

static void gradients(long n, Data h, Data dv, double *conc, double density,
                      int reps) {
  long ng = NUC * h.gp, nc = MATS * MAXN, no = n * XS;
  long stride = sample_stride(n), ns = (n + stride - 1) / stride;
  size_t gsize = sizeof(Point) * ng, osize = sizeof(double) * no;
  double *seed = (double *)malloc(osize), *sseed = (double *)malloc(osize);
  double *op = (double *)malloc(sizeof(double) * ns * XS);
  double *om = (double *)malloc(sizeof(double) * ns * XS);
  double *ss = (double *)malloc(sizeof(double) * ns * XS);
  Point *gz = (Point *)malloc(gsize), *gh = (Point *)malloc(gsize);
  Point *gs = (Point *)malloc(gsize);
  double cz[MATS * MAXN], ch[MATS * MAXN], cs[MATS * MAXN], dz, dh, ds, dd1;
  for (long k = 0; k < no; k++) {
    seed[k] = cos(0.37 * k);
    sseed[k] = (k / XS) % stride ? 0 : seed[k];
    if ((k / XS) % stride == 0)
      ss[(k / XS) / stride * XS + k % XS] = seed[k];
  }
  Point *d_dgrid;
  double *d_conc, *d_dconc, *d_den, *d_dden, *d_out, *d_dout;
  CK(cudaMalloc(&d_dgrid, gsize));
  CK(cudaMalloc(&d_conc, sizeof(double) * nc));
  CK(cudaMalloc(&d_dconc, sizeof(double) * nc));
  CK(cudaMalloc(&d_den, sizeof(double)));
  CK(cudaMalloc(&d_dden, sizeof(double)));
  CK(cudaMalloc(&d_out, osize));
  CK(cudaMalloc(&d_dout, osize));
  CK(cudaMemcpy(d_conc, conc, sizeof(double) * nc, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_den, &density, sizeof(double), cudaMemcpyHostToDevice));
  long blocks = (n + 255) / 256;
  Counts at[3];
  /* 0 Zymase, 1 Zymase (density only), 2 hand-written, 3 hand-written on
   * the sampled seed (for the finite differences, when sampled). */
  for (int which = 0; which < (stride > 1 ? 4 : 3); which++) {
    CK(cudaMemcpy(d_dout, which == 3 ? sseed : seed, osize,
                  cudaMemcpyHostToDevice));
    CK(cudaMemset(d_dgrid, 0, gsize));
    CK(cudaMemset(d_dconc, 0, sizeof(double) * nc));
    CK(cudaMemset(d_dden, 0, sizeof(double)));
    Counts a0 = counts_now();
    if (which == 0)
      lookups_zymase<<<blocks, 256>>>(n, dv, d_dgrid, d_conc, d_dconc, d_den,
                                      d_dden, d_out, d_dout);
    else if (which == 1)
      lookups_zymase_density<<<blocks, 256>>>(n, dv, d_conc, d_den, d_dden,
                                              d_out, d_dout);
    else
      lookups_adjoint<<<blocks, 256>>>(n, dv, d_dgrid, d_conc, d_dconc, d_den,
                                       d_dden, d_dout);
    CK(cudaDeviceSynchronize());
    if (which < 3)
      at[which] = counts_since(a0);
    Point *g = which == 0 ? gz : which == 2 ? gh : gs;
    double *c = which == 0 ? cz : which == 2 ? ch : cs;
    if (which != 1) {
      CK(cudaMemcpy(g, d_dgrid, gsize, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(c, d_dconc, sizeof(double) * nc, cudaMemcpyDeviceToHost));
    }
    double *dst = which == 0 ? &dz : which == 1 ? &dd1 : which == 2 ? &dh : &ds;
    CK(cudaMemcpy(dst, d_dden, sizeof(double), cudaMemcpyDeviceToHost));
  }
  grad_agree("xsbench-unionized dJ/dgrid", (double *)gz, (double *)gh, ng * 6,
             1e-12);
  grad_agree("xsbench-unionized dJ/dconc", cz, ch, nc, 1e-12);
  grad_agree("xsbench-unionized dJ/ddensity", &dz, &dh, 1, 1e-10);
  grad_agree("xsbench-unionized dJ/ddensity (density only)", &dd1, &dh, 1,
             1e-10);
  if (stride == 1)
    memcpy(gs, gh, gsize), memcpy(cs, ch, sizeof ch), ds = dh;
  /* Central differences of the sampled J: the density, the largest
   * dJ/dconc, cross-section and energy derivatives. */
  Data hd = h;
  Point *grid = (Point *)h.grid;
  fd_check("xsbench-unionized dJ/ddensity", ds,
           central(n, stride, hd, conc, &density, &density, ss, op, om), 1e-6);
  /* The largest cross-section derivative; the largest energy derivative
   * of an inner point (its step 1e-3 of the gap to its neighbours: the
   * derivative goes as 1 / gap^2, its central difference's error as
   * (h / gap)^2). */
  long kc = argmax_abs(cs, nc), kg = 1, ke = 1;
  for (long k = 1; k < ng * 6; k++)
    if (k % 6 && fabs(((double *)gs)[k]) > fabs(((double *)gs)[kg]))
      kg = k;
  for (long k = 1; k < ng - 1; k++)
    if (k % h.gp && k % h.gp != h.gp - 1 && fabs(gs[k].e) > fabs(gs[ke].e))
      ke = k;
  double gap =
      std::fmin(grid[ke].e - grid[ke - 1].e, grid[ke + 1].e - grid[ke].e);
  fd_check("xsbench-unionized dJ/dconc", cs[kc],
           central(n, stride, hd, conc, &density, &conc[kc], ss, op, om), 1e-6);
  fd_check(
      "xsbench-unionized dJ/dgrid (xs)", ((double *)gs)[kg],
      central(n, stride, hd, conc, &density, &((double *)grid)[kg], ss, op, om),
      1e-6);
  fd_check("xsbench-unionized dJ/dgrid (e)", gs[ke].e,
           central(n, stride, hd, conc, &density, &grid[ke].e, ss, op, om,
                   1e-3 * gap),
           1e-5);
  auto reseed = [&] {
    CK(cudaMemcpy(d_dout, seed, osize, cudaMemcpyHostToDevice));
  };
  double primal = best_ms(reps, [&] {
    lookups<<<blocks, 256>>>(n, dv, d_conc, density, d_out);
    CK(cudaDeviceSynchronize());
  });
  double zy = best_ms_seeded(reps, reseed, [&] {
    lookups_zymase<<<blocks, 256>>>(n, dv, d_dgrid, d_conc, d_dconc, d_den,
                                    d_dden, d_out, d_dout);
    CK(cudaDeviceSynchronize());
  });
  double hand = best_ms_seeded(reps, reseed, [&] {
    lookups_adjoint<<<blocks, 256>>>(n, dv, d_dgrid, d_conc, d_dconc, d_den,
                                     d_dden, d_dout);
    CK(cudaDeviceSynchronize());
  });
  grad_report("xsbench-unionized", primal, zy, hand, at[0], at[1], at[2]);
  cudaFree(d_dgrid), cudaFree(d_conc), cudaFree(d_dconc), cudaFree(d_den);
  cudaFree(d_dden), cudaFree(d_out), cudaFree(d_dout);
  free(seed), free(sseed), free(op), free(om), free(ss), free(gz), free(gh);
  free(gs);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000;
  int reps = argc > 2 ? atoi(argv[2]) : 3;
  long gp = argc > 3 ? atol(argv[3]) : 11303, nu = NUC * gp;
  Point *grid = (Point *)malloc(sizeof(Point) * nu);
  double *ue = (double *)malloc(sizeof(double) * nu);
  int *idx = (int *)malloc(sizeof(int) * nu * NUC);
  int mats[MATS * MAXN] = {0}, nn[MATS];
  double conc[MATS * MAXN] = {0}, density = 1.3, acc = 0;
  unsigned long long s = 7;
  for (int m = 0; m < MATS; m++)
    nn[m] = n_nucs[m], acc += mat_p[m], mat_cdf_h[m] = acc;
  /* Each nuclide: sorted energies in [0, 1] (the ends exact), random
   * cross sections. */
  for (int u = 0; u < NUC; u++)
    for (long p = 0; p < gp; p++) {
      Point &q = grid[u * gp + p];
      q.e = p == 0 ? 0 : p == gp - 1 ? 1 : (p + unit(s = lcg(s))) / gp;
      for (int x = 0; x < XS; x++)
        q.xs[x] = unit(s = lcg(s));
    }
  /* The unionized grid and, for each of its energies, each nuclide's
   * point at or below it. */
  for (long k = 0; k < nu; k++)
    ue[k] = grid[k].e;
  qsort(ue, nu, sizeof(double), cmp_double);
  for (int u = 0; u < NUC; u++) {
    long at = 0;
    for (long k = 0; k < nu; k++) {
      while (at < gp - 1 && grid[u * gp + at + 1].e <= ue[k])
        at++;
      idx[k * NUC + u] = (int)at;
    }
  }
  /* Materials: distinct nuclides (the fuel's 34 first), concentrations. */
  for (int m = 0; m < MATS; m++)
    for (int k = 0; k < nn[m]; k++) {
      int pick;
      bool again;
      do {
        pick = m == 0 ? k : (int)(unit(s = lcg(s)) * NUC);
        again = false;
        for (int j = 0; j < k; j++)
          again |= mats[m * MAXN + j] == pick;
      } while (again);
      mats[m * MAXN + k] = pick, conc[m * MAXN + k] = unit(s = lcg(s));
    }
  Data h = {gp, grid, ue, idx, nn, mats};

  long stride = sample_stride(n), ns = (n + stride - 1) / stride;
  double *ref = (double *)malloc(sizeof(double) * ns * XS);
  double *got = (double *)malloc(sizeof(double) * n * XS);
  double t0 = now_ms();
  for (long i = 0, j = 0; i < n; i += stride, j++)
    lookup(i, h, conc, density, mat_cdf_h, ref + j * XS);
  double serial = (now_ms() - t0) * stride;

  Point *d_grid;
  double *d_ue, *d_conc, *d_out;
  int *d_idx, *d_nn, *d_mats;
  CK(cudaMalloc(&d_grid, sizeof(Point) * nu));
  CK(cudaMalloc(&d_ue, sizeof(double) * nu));
  CK(cudaMalloc(&d_idx, sizeof(int) * nu * NUC));
  CK(cudaMalloc(&d_nn, sizeof nn));
  CK(cudaMalloc(&d_mats, sizeof mats));
  CK(cudaMalloc(&d_conc, sizeof conc));
  CK(cudaMalloc(&d_out, sizeof(double) * n * XS));
  CK(cudaMemcpy(d_grid, grid, sizeof(Point) * nu, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_ue, ue, sizeof(double) * nu, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_idx, idx, sizeof(int) * nu * NUC, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_nn, nn, sizeof nn, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_mats, mats, sizeof mats, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_conc, conc, sizeof conc, cudaMemcpyHostToDevice));
  CK(cudaMemcpyToSymbol(mat_cdf_d, mat_cdf_h, sizeof mat_cdf_h));
  Data dv = {gp, d_grid, d_ue, d_idx, d_nn, d_mats};
  t0 = now_ms();
  lookups<<<(n + 255) / 256, 256>>>(n, dv, d_conc, density, d_out);
  CK(cudaDeviceSynchronize());
  double gpu = now_ms() - t0;
  CK(cudaMemcpy(got, d_out, sizeof(double) * n * XS, cudaMemcpyDeviceToHost));
  for (long i = 0, j = 0; i < n; i += stride, j++)
    memcpy(got + j * XS, got + i * XS, sizeof(double) * XS);
  agree("xsbench-unionized", got, ref, ns * XS, 1e-12);
  report("xsbench-unionized", serial, gpu);
  if (reps > 0) /* 0: the primal only */
    gradients(n, h, dv, conc, density, reps);
  return 0;
}
