// A tiled 1-D stencil with dynamic shared memory (extern __shared__, the
// launch's third argument): each block loads its tile and a halo, then
// averages neighbours; two extern arrays alias the same dynamic memory.
// Compared with a serial stencil, for two tile sizes.
// REQUIRES: cuda
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
#include "gpu-check.h"

#define R 2

extern __shared__ float tile[];

__global__ void stencil(const float *in, float *out, int n) {
  extern __shared__ float same[];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int l = threadIdx.x + R;
  tile[l] = g < n ? in[g] : 0;
  if (threadIdx.x < R) {
    int left = g - R, right = g + blockDim.x;
    same[l - R] = left >= 0 && left < n ? in[left] : 0;
    tile[l + blockDim.x] = right < n ? in[right] : 0;
  }
  __syncthreads();
  if (g < n) {
    float s = 0;
    for (int k = -R; k <= R; k++)
      s += tile[l + k];
    out[g] = s / (2 * R + 1);
  }
}

int main() {
  const int n = 3000;
  float in[n], out[n], want[n];
  for (int i = 0; i < n; i++)
    in[i] = (float)((i * 37) % 101) - 50.0f;
  for (int i = 0; i < n; i++) {
    float s = 0;
    for (int k = -R; k <= R; k++)
      s += i + k >= 0 && i + k < n ? in[i + k] : 0;
    want[i] = s / (2 * R + 1);
  }
  float *din = to_device(in, n), *dout;
  CK(cudaMalloc(&dout, sizeof out));
  for (int bs : {64, 500}) {
    CK(cudaMemset(dout, 0, sizeof out));
    stencil<<<(n + bs - 1) / bs, bs, (bs + 2 * R) * sizeof(float)>>>(din, dout, n);
    CK(cudaGetLastError());
    to_host(out, dout, n);
    check_array(bs == 64 ? "stencil, tiles of 64" : "stencil, tiles of 500",
                out, want, n, 1e-6);
  }
  return gpu_report();
}
