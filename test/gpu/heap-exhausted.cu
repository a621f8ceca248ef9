// A device gradient whose loop cache outgrows the device heap stops with
// the bytes the thread asked for (device printf) and then CUDA's assert,
// whose message says what cudaLimitMallocHeapSize must hold: here each
// of 64 threads keeps two values per iteration of a loop of n = 100000
// iterations (no local-memory budget: -zymase-gpu-local-cache-bytes=0),
// two buffers of 800000 bytes each reserved from the trip count, and the
// default heap of 8 MiB holds ten of them.  The emulation's heap honours
// the limit as a GPU's does.
// NATIVE: skip, a device-side assertion is the expected end
// REQUIRES: cuda
// RUN: %gpu-clang -O2 -mllvm -zymase-gpu-local-cache-bytes=0 %s -o %t
// RUN: %not %t 2>&1 | %FileCheck %s
// CHECK: zymase: a thread of a gradient asked the device heap for 800000 bytes and got none
// CHECK: Assertion `zymase: device malloc for a loop cache of a gradient failed: the heap (cudaLimitMallocHeapSize) must hold the bytes printed above for each thread resident at once; raise it, or bound the loop's trip count` failed
#include "gpu-check.h"

extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

enum { THREADS = 64, ITERS = 100000 };

/* y[i] = s_n with s_0 = x[i], s_{k+1} = sin(s_k) * w[k % 4] + s_k / 2:
 * s_k and w[k % 4] (which y may alias) kept per iteration. */
__device__ double chain(const double *w, double s, int n) {
#pragma unroll 1
  for (int k = 0; k < n; k++)
    s = sin(s) * w[k % 4] + s * 0.5;
  return s;
}
__device__ void body(const double *w, const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = chain(w, x[i], n);
}
__global__ void gradient(const double *w, double *dw, const double *x,
                         double *dx, double *y, double *dy, int n) {
  __enzyme_autodiff((void *)body, enzyme_dup, w, dw, enzyme_dup, x, dx,
                    enzyme_dup, y, dy, enzyme_const, n);
}

int main() {
  double w[4] = {0.3, -0.2, 0.5, 0.1}, x[THREADS], ones[THREADS];
  for (int i = 0; i < THREADS; i++)
    x[i] = 0.1 * i, ones[i] = 1;
  double *d_w = to_device(w, 4), *d_x = to_device(x, THREADS);
  double *d_dy = to_device(ones, THREADS), *d_dw, *d_dx, *d_y;
  CK(cudaMalloc(&d_dw, sizeof w));
  CK(cudaMalloc(&d_dx, sizeof x));
  CK(cudaMalloc(&d_y, sizeof x));
  gradient<<<1, THREADS>>>(d_w, d_dw, d_x, d_dx, d_y, d_dy, ITERS);
  CK(cudaDeviceSynchronize());
  printf("the gradient ran: the heap held it\n");
  return 0;
}
