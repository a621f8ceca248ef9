// lbm.cu - a lattice Boltzmann D2Q9 step (BGK collision, pull streaming,
// periodic box): one GPU thread per cell, 16x16 blocks, the lattice's
// velocities and weights in __constant__ memory; checked against the
// serial step.  Usage: lbm [nx ny steps]
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "bench.h"

__constant__ int cx_d[9], cy_d[9];
__constant__ double w_d[9];
static const int cx_h[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
static const int cy_h[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
static const double w_h[9] = {4. / 9,  1. / 9,  1. / 9,  1. / 9, 1. / 9,
                              1. / 36, 1. / 36, 1. / 36, 1. / 36};

/* One cell: pull f from the neighbours, relax towards equilibrium. */
__host__ __device__ static void cell(const double *fin, double *fout, int x,
                                     int y, int nx, int ny, double omega,
                                     const int *cx, const int *cy,
                                     const double *w) {
  double f[9], rho = 0, ux = 0, uy = 0;
  long n = (long)nx * ny;
  for (int q = 0; q < 9; q++) {
    int xs = (x - cx[q] + nx) % nx, ys = (y - cy[q] + ny) % ny;
    f[q] = fin[q * n + (long)ys * nx + xs];
    rho += f[q], ux += f[q] * cx[q], uy += f[q] * cy[q];
  }
  ux /= rho, uy /= rho;
  double uu = 1.5 * (ux * ux + uy * uy);
  for (int q = 0; q < 9; q++) {
    double cu = 3 * (cx[q] * ux + cy[q] * uy);
    double feq = w[q] * rho * (1 + cu + 0.5 * cu * cu - uu);
    fout[q * n + (long)y * nx + x] = f[q] - omega * (f[q] - feq);
  }
}

__global__ void step(const double *fin, double *fout, int nx, int ny,
                     double omega) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < nx && y < ny)
    cell(fin, fout, x, y, nx, ny, omega, cx_d, cy_d, w_d);
}

int main(int argc, char **argv) {
  int nx = argc > 3 ? atoi(argv[1]) : 128, ny = argc > 3 ? atoi(argv[2]) : 128;
  int steps = argc > 3 ? atoi(argv[3]) : 10;
  long n = (long)nx * ny, size = 9 * n * sizeof(double);
  double *a = (double *)malloc(size), *b = (double *)malloc(size),
         *g = (double *)malloc(size), omega = 1.2;
  for (long c = 0; c < n; c++)
    for (int q = 0; q < 9; q++)
      a[q * n + c] = w_h[q] * (1 + 0.1 * sin(0.01 * c + q));
  double *da, *db;
  CK(cudaMalloc(&da, size));
  CK(cudaMalloc(&db, size));
  CK(cudaMemcpy(da, a, size, cudaMemcpyHostToDevice));
  CK(cudaMemcpyToSymbol(cx_d, cx_h, sizeof cx_h));
  CK(cudaMemcpyToSymbol(cy_d, cy_h, sizeof cy_h));
  CK(cudaMemcpyToSymbol(w_d, w_h, sizeof w_h));

  double t0 = now_ms();
  for (int s = 0; s < steps; s++) {
    for (int y = 0; y < ny; y++)
      for (int x = 0; x < nx; x++)
        cell(a, b, x, y, nx, ny, omega, cx_h, cy_h, w_h);
    double *t = a;
    a = b, b = t;
  }
  double serial = now_ms() - t0;

  dim3 block(16, 16), grid((nx + 15) / 16, (ny + 15) / 16);
  t0 = now_ms();
  for (int s = 0; s < steps; s++) {
    step<<<grid, block>>>(da, db, nx, ny, omega);
    double *t = da;
    da = db, db = t;
  }
  CK(cudaDeviceSynchronize());
  double gpu = now_ms() - t0;
  CK(cudaMemcpy(g, da, size, cudaMemcpyDeviceToHost));
  agree("lbm", g, a, 9 * n, 1e-12);
  report("lbm", serial, gpu);
  return 0;
}
