// Block reductions through static __shared__ memory: a tree reduction with
// __syncthreads between levels (each block its own shared array, several
// blocks at once), __syncthreads_count/_and/_or, and a __device__ helper
// that uses the shared array too; compared with serial sums, also with
// ZYMASE_GPU_FAST=1 (which leaves kernels with barriers threaded).
// REQUIRES: cuda
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
// RUN: env ZYMASE_GPU_FAST=1 %t2
#include "gpu-check.h"

#define BLOCK 256

__shared__ int flags[BLOCK];

__device__ void mark(int v) { flags[threadIdx.x] = v; }

__global__ void block_sum(const double *x, double *partial, int n) {
  __shared__ double s[BLOCK];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? x[i] : 0.0;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    partial[blockIdx.x] = s[0];
}

__global__ void votes(const int *x, int *out) {
  int v = x[blockIdx.x * blockDim.x + threadIdx.x];
  mark(v);
  int count = __syncthreads_count(v > 10);
  int all = __syncthreads_and(v >= 0);
  int any = __syncthreads_or(v == 42);
  int left = flags[(threadIdx.x + 1) % blockDim.x];
  if (threadIdx.x == 0) {
    out[4 * blockIdx.x] = count;
    out[4 * blockIdx.x + 1] = all;
    out[4 * blockIdx.x + 2] = any;
  }
  if (threadIdx.x == blockDim.x - 1)
    out[4 * blockIdx.x + 3] = left;
}

int main() {
  const int n = 10000, nb = (n + BLOCK - 1) / BLOCK;
  double x[n], partial[nb], want[nb] = {0};
  for (int i = 0; i < n; i++) {
    x[i] = 1.0 / (1 + i % 97) + i % 5;
    want[i / BLOCK] += x[i];
  }
  double *dx = to_device(x, n), *dp;
  CK(cudaMalloc(&dp, sizeof partial));
  block_sum<<<nb, BLOCK>>>(dx, dp, n);
  CK(cudaGetLastError());
  to_host(partial, dp, nb);
  check_array("tree reduction per block", partial, want, nb, 1e-13);

  const int vb = 3, vn = vb * BLOCK;
  int v[vn], out[4 * vb], ow[4 * vb];
  for (int i = 0; i < vn; i++)
    v[i] = i < BLOCK ? i % 20 : i < 2 * BLOCK ? (i == 300 ? 42 : 5) : -1 + i % 3;
  for (int b = 0; b < vb; b++) {
    int c = 0, a = 1, o = 0;
    for (int t = 0; t < BLOCK; t++) {
      int e = v[b * BLOCK + t];
      c += e > 10, a &= e >= 0, o |= e == 42;
    }
    ow[4 * b] = c, ow[4 * b + 1] = a, ow[4 * b + 2] = o;
    ow[4 * b + 3] = v[b * BLOCK];
  }
  int *dv = to_device(v, vn), *dout;
  CK(cudaMalloc(&dout, sizeof out));
  votes<<<vb, BLOCK>>>(dv, dout);
  to_host(out, dout, 4 * vb);
  check_array("__syncthreads_count/and/or, shared flags", out, ow, 4 * vb);
  return gpu_report();
}
