// __constant__ memory set with cudaMemcpyToSymbol (whole and at an
// offset), a __device__ global written by a kernel and read back with
// cudaMemcpyFromSymbol and cudaGetSymbolAddress, device printf from one
// thread, and math functions from libdevice resolved on the host.
// REQUIRES: cuda
// RUN: %gpu-clang -O0 %s -o %t0 && %t0 | %FileCheck %s
// RUN: %gpu-clang -O2 %s -o %t2 && %t2 | %FileCheck %s
// CHECK: device says 7 -2.50 x=ab 123456789012 0x1f
// CHECK: 0 failed
#include "gpu-check.h"

__constant__ double coef[4];
__device__ int counter;
__device__ float table[3] = {1.5f, 2.5f, 3.5f};

__global__ void poly(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = coef[0] + x[i] * (coef[1] + x[i] * (coef[2] + x[i] * coef[3])) +
           table[i % 3] + erf(x[i]) + powf((float)x[i], 2.0f);
    atomicAdd(&counter, 1);
  }
  if (i == 0)
    printf("device says %d %.2f x=%s %lld 0x%x\n", 7, -2.5, "ab",
           123456789012LL, 31);
}

int main() {
  const int n = 100;
  double c[4] = {1, 2, 0, 0}, c23[2] = {-0.5, 0.25}, x[n], y[n], w[n];
  float t[3] = {1.5f, 2.5f, 3.5f};
  CK(cudaMemcpyToSymbol(coef, c, sizeof c));
  CK(cudaMemcpyToSymbol(coef, c23, sizeof c23, 2 * sizeof(double)));
  for (int i = 0; i < n; i++) {
    x[i] = 0.05 * i - 1;
    w[i] = 1 + x[i] * (2 + x[i] * (-0.5 + x[i] * 0.25)) + t[i % 3] +
           erf(x[i]) + powf((float)x[i], 2.0f);
  }
  double *dx = to_device(x, n), *dy;
  CK(cudaMalloc(&dy, sizeof y));
  poly<<<2, 64>>>(dx, dy, n);
  poly<<<2, 64>>>(dx, dy, n);
  CK(cudaDeviceSynchronize());
  to_host(y, dy, n);
  check_array("__constant__ coefficients", y, w, n, 1e-6);
  int cnt = 0;
  CK(cudaMemcpyFromSymbol(&cnt, counter, sizeof cnt));
  check_value("__device__ counter over two launches", cnt, 2 * n);
  int *p;
  CK(cudaGetSymbolAddress((void **)&p, counter));
  CK(cudaMemset(p, 0, sizeof(int)));
  CK(cudaMemcpyFromSymbol(&cnt, counter, sizeof cnt));
  check_value("cudaGetSymbolAddress", cnt, 0);
  fflush(stdout);
  return gpu_report();
}
