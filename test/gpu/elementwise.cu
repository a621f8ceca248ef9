// Elementwise kernels: a 1-D map with a bounds check, a grid-stride loop
// over more elements than threads, 2-D and 3-D launches (dim3, all index
// components), and several kernels in sequence; compared with serial code,
// also with ZYMASE_GPU_FAST=1 (kernels without barriers run each block's
// threads one after another).
// REQUIRES: cuda
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
// RUN: env ZYMASE_GPU_FAST=1 %t2
#include "gpu-check.h"

__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

__global__ void grid_stride(int n, const double *x, double *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = exp(x[i]) * sin(x[i]) + sqrt(fabs(x[i]));
}

__global__ void index3d(int nx, int ny, int nz, int *out) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < nx && y < ny && z < nz)
    out[(z * ny + y) * nx + x] = x + 100 * y + 10000 * z +
                                 1000000 * (gridDim.x * gridDim.y * gridDim.z);
}

__global__ void scale(int n, float *y, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] *= s;
}

int main() {
  const int n = 1000;
  float x[n], y[n], want[n], got[n];
  for (int i = 0; i < n; i++)
    x[i] = 0.5f * i, y[i] = 3.0f - i, want[i] = 2.0f * (2.5f * x[i] + y[i]);
  float *dx = to_device(x, n), *dy = to_device(y, n);
  saxpy<<<(n + 127) / 128, 128>>>(n, 2.5f, dx, dy);
  scale<<<(n + 63) / 64, 64>>>(n, dy, 2.0f);
  CK(cudaGetLastError());
  to_host(got, dy, n);
  check_array("saxpy then scale", got, want, n, 1e-6);

  const int m = 5000;
  double u[m], v[m], vw[m];
  for (int i = 0; i < m; i++)
    u[i] = 0.001 * i - 2, vw[i] = exp(u[i]) * sin(u[i]) + sqrt(fabs(u[i]));
  double *du = to_device(u, m), *dv;
  CK(cudaMalloc(&dv, m * sizeof(double)));
  grid_stride<<<3, 96>>>(m, du, dv);
  to_host(v, dv, m);
  check_array("grid-stride loop", v, vw, m, 1e-14);

  const int nx = 13, ny = 7, nz = 5, nt = nx * ny * nz;
  int o[nt], ow[nt], *dout;
  CK(cudaMalloc(&dout, sizeof o));
  dim3 block(4, 3, 2), grid((nx + 3) / 4, (ny + 2) / 3, (nz + 1) / 2);
  index3d<<<grid, block>>>(nx, ny, nz, dout);
  CK(cudaDeviceSynchronize());
  to_host(o, dout, nt);
  for (int z = 0; z < nz; z++)
    for (int y = 0; y < ny; y++)
      for (int x = 0; x < nx; x++)
        ow[(z * ny + y) * nx + x] =
            x + 100 * y + 10000 * z + 1000000 * (grid.x * grid.y * grid.z);
  check_array("3-D launch", o, ow, nt);
  cudaFree(dx), cudaFree(dy), cudaFree(du), cudaFree(dv), cudaFree(dout);
  return gpu_report();
}
