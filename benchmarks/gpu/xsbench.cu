// xsbench.cu - an XSBench-style macroscopic cross-section lookup (after the
// published description of XSBench's nuclide-grid method): each lookup
// draws an energy and a material, and for each nuclide of the material
// binary-searches the nuclide's energy grid and interpolates its five
// cross sections, weighted by the nuclide's concentration.  One GPU thread
// per lookup; checked against the serial loop.  Usage: xsbench [lookups]
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
                                       double *out) {
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
    out[i * XS + x] = macro[x];
}

__global__ void lookups(long n, const Point *grid, const int *mats,
                        const double *conc, double *out) {
  long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    lookup(i, grid, mats, conc, out);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000;
  Point *grid = (Point *)malloc(sizeof(Point) * NUCLIDES * GRID);
  int mats[MATS * PER_MAT];
  double conc[MATS * PER_MAT];
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
  double *ref = (double *)malloc(sizeof(double) * n * XS);
  double *got = (double *)malloc(sizeof(double) * n * XS);
  double t0 = now_ms();
  for (long i = 0; i < n; i++)
    lookup(i, grid, mats, conc, ref);
  double serial = now_ms() - t0;

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
  lookups<<<(n + 255) / 256, 256>>>(n, dgrid, dmats, dconc, dout);
  CK(cudaDeviceSynchronize());
  double gpu = now_ms() - t0;
  CK(cudaMemcpy(got, dout, sizeof(double) * n * XS, cudaMemcpyDeviceToHost));
  agree("xsbench", got, ref, n * XS, 1e-12);
  report("xsbench", serial, gpu);
  return 0;
}
