// xsbench.cu - an XSBench-style macroscopic cross-section lookup (after the
// published description of XSBench's nuclide-grid method): each lookup
// draws an energy and a material, and for each nuclide of the material
// binary-searches the nuclide's energy grid and interpolates its five
// cross sections, weighted by the nuclide's concentration.  One GPU thread
// per lookup, the result scaled by a density; checked against the serial
// loop.  Then the gradient of J = sum seed * out with respect to the
// nuclide grids (energies and cross sections: scatter-adds, colliding
// where lookups share grid points), the concentrations (many lookups per
// entry) and the density (every thread: a reduction): Zymase's
// (__enzyme_autodiff of the thread's body) against a hand-written
// adjoint kernel and central finite differences.
// Usage: xsbench [lookups [reps]] (reps 0: the primal only)
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "bench.h"

enum { NUCLIDES = 68, GRID = 2000, MATS = 12, PER_MAT = 20, XS = 5 };

struct Point {
  double e, xs[XS];
};

__host__ __device__ static unsigned long long lcg(unsigned long long s) {
  return s * 6364136223846793005ULL + 1442695040888963407ULL;
}
__host__ __device__ static double unit(unsigned long long s) {
  return (double)(s >> 11) * (1.0 / 9007199254740992.0);
}

/* The macroscopic cross sections of lookup `i`. */
__host__ __device__ static void lookup(long i, const Point *grid,
                                       const int *mats, const double *conc,
                                       double density, double *out) {
  unsigned long long s = lcg(lcg((unsigned long long)i + 12345));
  double e = unit(s);
  int mat = (int)(unit(lcg(s)) * MATS);
  double macro[XS] = {0, 0, 0, 0, 0};
  for (int k = 0; k < PER_MAT; k++) {
    int nuc = mats[mat * PER_MAT + k];
    const Point *g = grid + (long)nuc * GRID;
    int lo = 0, hi = GRID - 1;
    while (hi - lo > 1) {
      int mid = (lo + hi) / 2;
      if (g[mid].e > e)
        hi = mid;
      else
        lo = mid;
    }
    double f = (e - g[lo].e) / (g[hi].e - g[lo].e);
    for (int x = 0; x < XS; x++)
      macro[x] += conc[mat * PER_MAT + k] *
                  (g[lo].xs[x] + f * (g[hi].xs[x] - g[lo].xs[x]));
  }
  for (int x = 0; x < XS; x++)
    out[x] = density * macro[x];
}

__global__ void lookups(long n, const Point *grid, const int *mats,
                        const double *conc, double density, double *out) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    lookup(i, grid, mats, conc, density, out + i * XS);
}

/* The thread's lookup, the body that Zymase differentiates (the density
 * in memory: its adjoint is a sum over the grid). */
__device__ void lookup_thread(long n, const Point *__restrict__ grid,
                              const int *__restrict__ mats,
                              const double *__restrict__ conc,
                              const double *__restrict__ density,
                              double *__restrict__ out) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    lookup(i, grid, mats, conc, *density, out + i * XS);
}

/* d/d(grid, conc, density) of sum dout * out, added to dgrid, dconc and
 * *ddensity; dout consumed (zeroed), as Enzyme does. */
__global__ void lookups_zymase(long n, const Point *grid, Point *dgrid,
                               const int *mats, const double *conc,
                               double *dconc, const double *density,
                               double *ddensity, double *out, double *dout) {
  __enzyme_autodiff((void *)lookup_thread, enzyme_const, n, enzyme_dup, grid,
                    dgrid, enzyme_const, mats, enzyme_dup, conc, dconc,
                    enzyme_dup, density, ddensity, enzyme_dup, out, dout);
}
/* The same with respect to the density only (the reduction). */
__global__ void lookups_zymase_density(long n, const Point *grid,
                                       const int *mats, const double *conc,
                                       const double *density, double *ddensity,
                                       double *out, double *dout) {
  __enzyme_autodiff((void *)lookup_thread, enzyme_const, n, enzyme_const, grid,
                    enzyme_const, mats, enzyme_const, conc, enzyme_dup, density,
                    ddensity, enzyme_dup, out, dout);
}

/* The hand-written adjoint: the lookup again, then each nuclide's
 * interpolation reversed with atomic adds into the grid points and the
 * concentration it read; the density's adjoint summed over the block. */
__global__ void lookups_adjoint(long n, const Point *grid, Point *dgrid,
                                const int *mats, const double *conc,
                                double *dconc, const double *density,
                                double *ddensity, double *dout) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  double dd = 0;
  if (i < n) {
    unsigned long long s = lcg(lcg((unsigned long long)i + 12345));
    double e = unit(s), rho = *density, ob[XS];
    int mat = (int)(unit(lcg(s)) * MATS);
    for (int x = 0; x < XS; x++)
      ob[x] = dout[i * XS + x], dout[i * XS + x] = 0;
    for (int k = 0; k < PER_MAT; k++) {
      int nuc = mats[mat * PER_MAT + k];
      const Point *g = grid + (long)nuc * GRID;
      Point *dg = dgrid + (long)nuc * GRID;
      int lo = 0, hi = GRID - 1;
      while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (g[mid].e > e)
          hi = mid;
        else
          lo = mid;
      }
      double de = g[hi].e - g[lo].e, f = (e - g[lo].e) / de;
      double c = conc[mat * PER_MAT + k], dc = 0, fb = 0;
      for (int x = 0; x < XS; x++) {
        double span = g[hi].xs[x] - g[lo].xs[x], v = g[lo].xs[x] + f * span;
        double mb = rho * ob[x];
        dd += ob[x] * c * v;
        dc += mb * v;
        fb += c * mb * span;
        atomicAdd(&dg[lo].xs[x], c * mb * (1 - f));
        atomicAdd(&dg[hi].xs[x], c * mb * f);
      }
      atomicAdd(&dconc[mat * PER_MAT + k], dc);
      atomicAdd(&dg[lo].e, fb * (f - 1) / de);
      atomicAdd(&dg[hi].e, -fb * f / de);
    }
  }
  block_add(ddensity, dd);
}

/* dJ/dp by central differences over the sampled lookups (every stride-th;
 * J = sum seed * out of those), term by term (fd_terms). */
static Fd central(long n, long stride, Point *grid, const int *mats,
                  double *conc, double *density, double *p, const double *seed,
                  double *op, double *om) {
  const double h = 1e-7 * std::fmax(1.0, std::fabs(*p)), keep = *p;
  for (int side = 0; side < 2; side++) {
    *p = side ? keep - h : keep + h;
    for (long i = 0, j = 0; i < n; i += stride, j++)
      lookup(i, grid, mats, conc, *density, (side ? om : op) + j * XS);
  }
  *p = keep;
  return fd_terms(seed, op, om, ((n + stride - 1) / stride) * XS, h);
}

static void gradients(long n, Point *grid, int *mats, double *conc,
                      double density, int reps) {
  long ng = (long)NUCLIDES * GRID, nc = MATS * PER_MAT, no = n * XS;
  size_t gsize = sizeof(Point) * ng, osize = sizeof(double) * no;
  long stride = sample_stride(n), ns = (n + stride - 1) / stride;
  double *seed = (double *)malloc(osize), *sseed = (double *)malloc(osize);
  double *op = (double *)malloc(sizeof(double) * ns * XS);
  double *om = (double *)malloc(sizeof(double) * ns * XS);
  double *ss = (double *)malloc(sizeof(double) * ns * XS);
  Point *gz = (Point *)malloc(gsize), *gh = (Point *)malloc(gsize);
  double cz[MATS * PER_MAT], ch[MATS * PER_MAT], dz, dh, dd_only;
  for (long k = 0; k < no; k++) {
    seed[k] = cos(0.37 * k);
    sseed[k] = (k / XS) % stride ? 0 : seed[k];
    if ((k / XS) % stride == 0)
      ss[(k / XS) / stride * XS + k % XS] = seed[k];
  }
  Point *d_grid, *d_dgrid;
  int *d_mats;
  double *d_conc, *d_dconc, *d_den, *d_dden, *d_out, *d_dout;
  CK(cudaMalloc(&d_grid, gsize));
  CK(cudaMalloc(&d_dgrid, gsize));
  CK(cudaMalloc(&d_mats, sizeof(int) * nc));
  CK(cudaMalloc(&d_conc, sizeof(double) * nc));
  CK(cudaMalloc(&d_dconc, sizeof(double) * nc));
  CK(cudaMalloc(&d_den, sizeof(double)));
  CK(cudaMalloc(&d_dden, sizeof(double)));
  CK(cudaMalloc(&d_out, osize));
  CK(cudaMalloc(&d_dout, osize));
  CK(cudaMemcpy(d_grid, grid, gsize, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_mats, mats, sizeof(int) * nc, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_conc, conc, sizeof(double) * nc, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_den, &density, sizeof(double), cudaMemcpyHostToDevice));
  long blocks = (n + 255) / 256;
  Counts at[3];
  for (int which = 0; which < 3; which++) {
    CK(cudaMemcpy(d_dout, seed, osize, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_dgrid, 0, gsize));
    CK(cudaMemset(d_dconc, 0, sizeof(double) * nc));
    CK(cudaMemset(d_dden, 0, sizeof(double)));
    Counts a0 = counts_now();
    if (which == 0)
      lookups_zymase<<<blocks, 256>>>(n, d_grid, d_dgrid, d_mats, d_conc,
                                      d_dconc, d_den, d_dden, d_out, d_dout);
    else if (which == 1)
      lookups_zymase_density<<<blocks, 256>>>(n, d_grid, d_mats, d_conc, d_den,
                                              d_dden, d_out, d_dout);
    else
      lookups_adjoint<<<blocks, 256>>>(n, d_grid, d_dgrid, d_mats, d_conc,
                                       d_dconc, d_den, d_dden, d_dout);
    CK(cudaDeviceSynchronize());
    at[which] = counts_since(a0);
    if (which != 1) {
      CK(cudaMemcpy(which ? gh : gz, d_dgrid, gsize, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(which ? ch : cz, d_dconc, sizeof(double) * nc,
                    cudaMemcpyDeviceToHost));
    }
    CK(cudaMemcpy(which == 0   ? &dz
                  : which == 1 ? &dd_only
                               : &dh,
                  d_dden, sizeof(double), cudaMemcpyDeviceToHost));
  }
  grad_agree("xsbench dJ/dgrid", (double *)gz, (double *)gh, ng * 6, 1e-12);
  grad_agree("xsbench dJ/dconc", cz, ch, nc, 1e-12);
  grad_agree("xsbench dJ/ddensity", &dz, &dh, 1, 1e-10);
  grad_agree("xsbench dJ/ddensity (density only)", &dd_only, &dh, 1, 1e-10);
  /* Central differences of J over the sampled lookups (the hand-written
   * adjoint again on their seed when sampled): the density, the largest
   * dJ/dconc, the largest cross-section and energy derivatives. */
  if (stride > 1) {
    CK(cudaMemcpy(d_dout, sseed, osize, cudaMemcpyHostToDevice));
    CK(cudaMemset(d_dgrid, 0, gsize));
    CK(cudaMemset(d_dconc, 0, sizeof(double) * nc));
    CK(cudaMemset(d_dden, 0, sizeof(double)));
    lookups_adjoint<<<blocks, 256>>>(n, d_grid, d_dgrid, d_mats, d_conc,
                                     d_dconc, d_den, d_dden, d_dout);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(gh, d_dgrid, gsize, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ch, d_dconc, sizeof(double) * nc, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&dh, d_dden, sizeof(double), cudaMemcpyDeviceToHost));
  }
  fd_check("xsbench dJ/ddensity", dh,
           central(n, stride, grid, mats, conc, &density, &density, ss, op, om),
           1e-6);
  long kc = argmax_abs(ch, nc), kg = argmax_abs((double *)gh, ng * 6), ke = 1;
  for (long k = 1; k < ng - 1; k++)
    if (fabs(gh[k].e) > fabs(gh[ke].e))
      ke = k;
  fd_check(
      "xsbench dJ/dconc", ch[kc],
      central(n, stride, grid, mats, conc, &density, &conc[kc], ss, op, om),
      1e-6);
  fd_check("xsbench dJ/dgrid (xs)", ((double *)gh)[kg],
           central(n, stride, grid, mats, conc, &density, &((double *)grid)[kg],
                   ss, op, om),
           1e-6);
  fd_check(
      "xsbench dJ/dgrid (e)", gh[ke].e,
      central(n, stride, grid, mats, conc, &density, &grid[ke].e, ss, op, om),
      1e-5);
  auto reseed = [&] {
    CK(cudaMemcpy(d_dout, seed, osize, cudaMemcpyHostToDevice));
  };
  double primal = best_ms(reps, [&] {
    lookups<<<blocks, 256>>>(n, d_grid, d_mats, d_conc, density, d_out);
    CK(cudaDeviceSynchronize());
  });
  double zy = best_ms_seeded(reps, reseed, [&] {
    lookups_zymase<<<blocks, 256>>>(n, d_grid, d_dgrid, d_mats, d_conc, d_dconc,
                                    d_den, d_dden, d_out, d_dout);
    CK(cudaDeviceSynchronize());
  });
  double hand = best_ms_seeded(reps, reseed, [&] {
    lookups_adjoint<<<blocks, 256>>>(n, d_grid, d_dgrid, d_mats, d_conc,
                                     d_dconc, d_den, d_dden, d_dout);
    CK(cudaDeviceSynchronize());
  });
  grad_report("xsbench", primal, zy, hand, at[0], at[1], at[2]);
  cudaFree(d_grid), cudaFree(d_dgrid), cudaFree(d_mats), cudaFree(d_conc);
  cudaFree(d_dconc), cudaFree(d_den), cudaFree(d_dden), cudaFree(d_out);
  cudaFree(d_dout);
  free(seed), free(sseed), free(ss), free(op), free(om), free(gz), free(gh);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000;
  Point *grid = (Point *)malloc(sizeof(Point) * NUCLIDES * GRID);
  int mats[MATS * PER_MAT];
  double conc[MATS * PER_MAT], density = 1.3;
  unsigned long long s = 7;
  for (int u = 0; u < NUCLIDES; u++)
    for (int p = 0; p < GRID; p++) {
      Point &q = grid[(long)u * GRID + p];
      q.e = (p + 0.5 * unit(s = lcg(s))) / (GRID - 1);
      for (int x = 0; x < XS; x++)
        q.xs[x] = unit(s = lcg(s));
    }
  for (int u = 0; u < NUCLIDES; u++)
    grid[(long)u * GRID].e = 0, grid[(long)u * GRID + GRID - 1].e = 1.0;
  for (int k = 0; k < MATS * PER_MAT; k++)
    mats[k] = (int)(unit(s = lcg(s)) * NUCLIDES), conc[k] = unit(s = lcg(s));
  /* The serial reference on every stride-th lookup (its time scaled). */
  long stride = sample_stride(n), ns = (n + stride - 1) / stride;
  double *ref = (double *)malloc(sizeof(double) * ns * XS);
  double *got = (double *)malloc(sizeof(double) * n * XS);
  double t0 = now_ms();
  for (long i = 0, j = 0; i < n; i += stride, j++)
    lookup(i, grid, mats, conc, density, ref + j * XS);
  double serial = (now_ms() - t0) * stride;

  Point *dgrid;
  int *dmats;
  double *dconc, *dout;
  CK(cudaMalloc(&dgrid, sizeof(Point) * NUCLIDES * GRID));
  CK(cudaMalloc(&dmats, sizeof mats));
  CK(cudaMalloc(&dconc, sizeof conc));
  CK(cudaMalloc(&dout, sizeof(double) * n * XS));
  CK(cudaMemcpy(dgrid, grid, sizeof(Point) * NUCLIDES * GRID,
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dmats, mats, sizeof mats, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dconc, conc, sizeof conc, cudaMemcpyHostToDevice));
  t0 = now_ms();
  lookups<<<(n + 255) / 256, 256>>>(n, dgrid, dmats, dconc, density, dout);
  CK(cudaDeviceSynchronize());
  double gpu = now_ms() - t0;
  CK(cudaMemcpy(got, dout, sizeof(double) * n * XS, cudaMemcpyDeviceToHost));
  for (long i = 0, j = 0; i < n; i += stride, j++)
    for (int x = 0; x < XS; x++)
      got[j * XS + x] = got[i * XS + x];
  agree("xsbench", got, ref, ns * XS, 1e-12);
  report("xsbench", serial, gpu);
  int reps = argc > 2 ? atoi(argv[2]) : 3;
  if (reps > 0) /* 0: the primal only */
    gradients(n, grid, mats, conc, density, reps);
  return 0;
}
