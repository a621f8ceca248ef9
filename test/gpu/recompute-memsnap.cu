// Loads of a small local array that the loop around their loop fills
// (memsnap.c): each outer iteration k fills t[4] in a loop, then an inner
// loop reads t at indices from memory (sel, which nothing writes).  The
// outer loop's next iteration overwrites t, so the loads cannot be
// recomputed from t itself; nothing writes t while the inner loop runs,
// so the reverse reads them from a copy of t kept once per outer
// iteration instead of caching each load per inner iteration.  Without
// local memory (-zymase-gpu-local-cache-bytes=0) the device heap then
// holds SNAP_BYTES per thread (9 copies of 32 bytes) instead of 9 x 12
// doubles with -zymase-recompute-regions=false.  The second gradient's inner loop also
// writes t: the copy would be stale, and the loads must still be cached.
// Both gradients are checked against central finite differences.
// NATIVE: skip, zymase_gpu_heap_bytes() is the emulator's counter
// REQUIRES: cuda
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
// RUN: %gpu-clang -O2 -mllvm -zymase-gpu-local-cache-bytes=0 -DSNAP_BYTES=288 %s -o %tz && %tz
// RUN: %gpu-clang -O2 -mllvm -zymase-gpu-local-cache-bytes=0 -mllvm -zymase-recompute-regions=false -DSNAP_BYTES=864 %s -o %tf && %tf
// RUN: %gpu-clang -O2 -mllvm -zymase-print-cache %s -o %tr 2>&1 | FileCheck %s
// CHECK: cache of the gradient of '{{.*}}body1
// CHECK: load: double, 8 bytes, recomputed from a copy of its local array kept per iteration of the enclosing loop
// CHECK: load: [4 x i64], 32 bytes, per iteration of loop
// CHECK: cache of the gradient of '{{.*}}body2
// CHECK-NOT: x i64]
// CHECK: load: double, 8 bytes, per iteration of loop
#include "gpu-check.h"

#ifndef SNAP_BYTES /* -1: not counted */
#define SNAP_BYTES -1
#endif

extern "C" unsigned long long zymase_gpu_heap_bytes(void);
extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

enum { THREADS = 128, BLOCK = 64, ITERS = 9, INNER = 12 };

/* y = sum_k sum_m x t_k[sel[(k + m) % 8]]^2, t_k[q] = sin(x (q + 1) + k / 10). */
__host__ __device__ double chain1(const int *sel, double x, int n) {
  double y = 0;
#pragma unroll 1
  for (int k = 0; k < n; k++) {
    double t[4];
#pragma unroll 1
    for (int q = 0; q < 4; q++)
      t[q] = sin(x * (q + 1) + 0.1 * k);
#pragma unroll 1
    for (int m = 0; m < INNER; m++) {
      double v = t[sel[(k + m) % 8]];
      y += v * v * x;
    }
  }
  return y;
}

/* The same, the inner loop also changing t. */
__host__ __device__ double chain2(const int *sel, double x, int n) {
  double y = 0;
#pragma unroll 1
  for (int k = 0; k < n; k++) {
    double t[4];
#pragma unroll 1
    for (int q = 0; q < 4; q++)
      t[q] = sin(x * (q + 1) + 0.1 * k);
#pragma unroll 1
    for (int m = 0; m < INNER; m++) {
      double v = t[sel[(k + m) % 8]];
      y += v * v * x;
      t[sel[m % 8]] += 0.5 * v;
    }
  }
  return y;
}

__device__ void body1(const int *__restrict__ sel,
                      const double *__restrict__ x, double *__restrict__ y,
                      int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = chain1(sel, x[i], n);
}
__device__ void body2(const int *__restrict__ sel,
                      const double *__restrict__ x, double *__restrict__ y,
                      int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = chain2(sel, x[i], n);
}
__global__ void gradient1(const int *sel, const double *x, double *dx,
                          double *y, double *dy, int n) {
  __enzyme_autodiff((void *)body1, enzyme_const, sel, enzyme_dup, x, dx,
                    enzyme_dup, y, dy, enzyme_const, n);
}
__global__ void gradient2(const int *sel, const double *x, double *dx,
                          double *y, double *dy, int n) {
  __enzyme_autodiff((void *)body2, enzyme_const, sel, enzyme_dup, x, dx,
                    enzyme_dup, y, dy, enzyme_const, n);
}

int main() {
  const double h = 1e-6;
  int sel[8] = {2, 0, 3, 3, 1, 0, 2, 1};
  double x[THREADS], ones[THREADS], dx[THREADS], want[THREADS];
  for (int i = 0; i < THREADS; i++)
    x[i] = 0.1 + 0.007 * i, ones[i] = 1;
  int *d_sel = to_device(sel, 8);
  double *d_x = to_device(x, THREADS), *d_dy = to_device(ones, THREADS);
  double *d_dx, *d_y;
  CK(cudaMalloc(&d_dx, THREADS * sizeof(double)));
  CK(cudaMalloc(&d_y, THREADS * sizeof(double)));
  CK(cudaMemset(d_dx, 0, THREADS * sizeof(double)));
  unsigned long long a = zymase_gpu_heap_bytes();
  gradient1<<<THREADS / BLOCK, BLOCK>>>(d_sel, d_x, d_dx, d_y, d_dy, ITERS);
  CK(cudaDeviceSynchronize());
  if (SNAP_BYTES >= 0)
    check_value("snapshot: heap bytes",
                (double)(zymase_gpu_heap_bytes() - a),
                (double)SNAP_BYTES * THREADS);
  to_host(dx, d_dx, THREADS);
  for (int i = 0; i < THREADS; i++)
    want[i] =
        (chain1(sel, x[i] + h, ITERS) - chain1(sel, x[i] - h, ITERS)) / (2 * h);
  check_array("snapshot: dx", dx, want, THREADS, 1e-6);

  CK(cudaMemcpy(d_dy, ones, THREADS * sizeof(double), cudaMemcpyHostToDevice));
  CK(cudaMemset(d_dx, 0, THREADS * sizeof(double)));
  gradient2<<<THREADS / BLOCK, BLOCK>>>(d_sel, d_x, d_dx, d_y, d_dy, ITERS);
  CK(cudaDeviceSynchronize());
  to_host(dx, d_dx, THREADS);
  for (int i = 0; i < THREADS; i++)
    want[i] =
        (chain2(sel, x[i] + h, ITERS) - chain2(sel, x[i] - h, ITERS)) / (2 * h);
  check_array("written inside: dx", dx, want, THREADS, 1e-6);
  return gpu_report();
}
