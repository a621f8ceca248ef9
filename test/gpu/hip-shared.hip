// HIP shared memory: a tree reduction in a static __shared__ array with
// __syncthreads between the steps (blocks of 256 threads: four warps of
// 64 meet at each barrier), and a 1-D stencil in dynamic shared memory
// (extern __shared__, the size from hipLaunchKernelGGL's and <<<>>>'s
// third argument, for two tile sizes); a launch asking for more dynamic
// shared memory than the limit fails with hipErrorInvalidValue.
// Compared with serial results.
// REQUIRES: hip
// RUN: %gpu-clang -O0 %s -o %t0 && %t0 2>&1 | %FileCheck %s
// RUN: %gpu-clang -O2 %s -o %t2 && %t2 2>&1 | %FileCheck %s
// CHECK: zymase-gpu: launch of kernel 'stencil(float const*, float*, int)': {{.*}}bytes of shared memory per block
// CHECK: 0 failed
#include "hip-check.h"

#define R 2

__global__ void block_sum(const double *x, double *out, int n) {
  __shared__ double s[256];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = i < n ? x[i] : 0;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride)
      s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

__global__ void stencil(const float *in, float *out, int n) {
  extern __shared__ float tile[];
  int g = blockIdx.x * blockDim.x + threadIdx.x;
  int l = threadIdx.x + R;
  tile[l] = g < n ? in[g] : 0;
  if (threadIdx.x < R) {
    int left = g - R, right = g + blockDim.x;
    tile[l - R] = left >= 0 && left < n ? in[left] : 0;
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
  const int n = 2000, nb = (n + 255) / 256;
  double x[n], sums[nb], want[nb];
  for (int i = 0; i < n; i++)
    x[i] = 0.5 + (i % 17) * 0.125;
  for (int b = 0; b < nb; b++) {
    want[b] = 0;
    for (int i = b * 256; i < n && i < (b + 1) * 256; i++)
      want[b] += x[i];
  }
  double *d_x = to_device(x, n), *d_s;
  CK(hipMalloc(&d_s, sizeof sums));
  block_sum<<<nb, 256>>>(d_x, d_s, n);
  CK(hipGetLastError());
  to_host(sums, d_s, nb);
  check_array("shared-memory tree reduction", sums, want, nb, 1e-15);

  float in[n], out[n], wout[n];
  for (int i = 0; i < n; i++)
    in[i] = (float)((i * 31) % 97) - 40;
  for (int i = 0; i < n; i++) {
    float s = 0;
    for (int k = -R; k <= R; k++)
      s += i + k >= 0 && i + k < n ? in[i + k] : 0;
    wout[i] = s / (2 * R + 1);
  }
  float *d_in = to_device(in, n), *d_out;
  CK(hipMalloc(&d_out, sizeof out));
  for (int tile = 64; tile <= 256; tile *= 4) {
    CK(hipMemset(d_out, 0, sizeof out));
    size_t shmem = (tile + 2 * R) * sizeof(float);
    if (tile == 64)
      hipLaunchKernelGGL(stencil, dim3((n + tile - 1) / tile), dim3(tile),
                         shmem, 0, d_in, d_out, n);
    else
      stencil<<<(n + tile - 1) / tile, tile, shmem>>>(d_in, d_out, n);
    CK(hipGetLastError());
    to_host(out, d_out, n);
    check_array(tile == 64 ? "dynamic shared stencil, tile 64"
                           : "dynamic shared stencil, tile 256",
                out, wout, n, 1e-6);
  }
  stencil<<<1, 64, 1 << 20>>>(d_in, d_out, n);
  check_value("too much dynamic shared memory", hipGetLastError(),
              hipErrorInvalidValue);
  return gpu_report();
}
