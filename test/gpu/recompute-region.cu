// Values at the merge of a branch region (region.c): a function of two
// forms, one of them an inner loop, called in a loop of n iterations (n a
// kernel argument: no compile-time bound).  The reverse needs the value
// where the forms merge and the inner loop's sum at its exit; nothing the
// region reads is written after it, so the reverse runs the region again
// instead of caching them: no device-heap allocation even without local
// memory (-zymase-gpu-local-cache-bytes=0), REGION_ALLOCS per thread with
// -zymase-recompute-regions=false.  The second gradient's region reads
// the thread's table t, which each outer iteration writes again: running
// the region in the reverse would read the last iteration's table, so it
// must still cache (KEPT_ALLOCS per thread without local memory, at
// -O2).  Both gradients are checked against central finite differences.
// NATIVE: skip, zymase_gpu_heap_allocs() is the emulator's counter
// REQUIRES: cuda
// RUN: %gpu-clang -O0 -DREGION_ALLOCS=-1 -DKEPT_ALLOCS=-1 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 -DREGION_ALLOCS=-1 -DKEPT_ALLOCS=-1 %s -o %t2 && %t2
// RUN: %gpu-clang -O2 -mllvm -zymase-gpu-local-cache-bytes=0 -DREGION_ALLOCS=0 -DKEPT_ALLOCS=5 %s -o %tz && %tz
// RUN: %gpu-clang -O2 -mllvm -zymase-gpu-local-cache-bytes=0 -mllvm -zymase-recompute-regions=false -DREGION_ALLOCS=2 -DKEPT_ALLOCS=5 %s -o %tf && %tf
// RUN: %gpu-clang -O2 -mllvm -zymase-print-cache %s -o %tr 2>&1 | FileCheck %s
// CHECK: cache of the gradient of '{{.*}}body1
// CHECK: phi: double, 8 bytes, recomputed: its branch region (branches, inner loops) is run again
// CHECK: cache of the gradient of '{{.*}}body2
// CHECK-NOT: its branch region
// CHECK: per iteration of loop
#include "gpu-check.h"

#ifndef REGION_ALLOCS /* (the cache report's build) */
#define REGION_ALLOCS -1
#define KEPT_ALLOCS -1
#endif

extern "C" unsigned long long zymase_gpu_heap_allocs(void);
extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

enum { THREADS = 128, BLOCK = 64, ITERS = 12 };

/* Two forms: beyond |z| = 2 a closed one, inside a short series loop. */
__host__ __device__ double form(double z) {
  if (z * z >= 4)
    return z / (z * z - 0.5);
  double e = exp(-z * z), s = 0;
#pragma unroll 1
  for (int m = 0; m < 6; m++)
    s += e / (m + 1 + z * z);
  return s * z + e;
}

/* y = sum_k form(x w0 + w1 k)^2 (w0 + w2 k). */
__host__ __device__ double chain1(const double *w, double x, int n) {
  double y = 0;
#pragma unroll 1
  for (int k = 0; k < n; k++) {
    double v = form(x * w[0] + w[1] * k) * (w[0] + w[2] * k);
    y += v * v;
  }
  return y;
}

/* The same shape, the series reading the table t that the loop around it
 * writes one entry of per iteration. */
__host__ __device__ double form2(const double *t, double z) {
  if (z * z >= 4)
    return z / (z * z - 0.5);
  double s = 0;
#pragma unroll 1
  for (int m = 0; m < 4; m++)
    s += t[m] / (m + 1 + z * z);
  return s * z;
}
__host__ __device__ double chain2(double *t, double x, int n) {
  double y = 0;
#pragma unroll 1
  for (int k = 0; k < n; k++) {
    t[k % 4] = x * (0.5 + 0.1 * k);
    double v = form2(t, x * (1 + k % 5));
    y += v * v;
  }
  return y;
}

__device__ void body1(const double *__restrict__ w,
                      const double *__restrict__ x, double *__restrict__ y,
                      int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = chain1(w, x[i], n);
}
__global__ void gradient1(const double *w, double *dw, const double *x,
                          double *dx, double *y, double *dy, int n) {
  __enzyme_autodiff((void *)body1, enzyme_dup, w, dw, enzyme_dup, x, dx,
                    enzyme_dup, y, dy, enzyme_const, n);
}
__device__ void body2(double *t, const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = chain2(t + 4 * i, x[i], n);
}
__global__ void gradient2(double *t, double *dt, const double *x, double *dx,
                          double *y, double *dy, int n) {
  __enzyme_autodiff((void *)body2, enzyme_dup, t, dt, enzyme_dup, x, dx,
                    enzyme_dup, y, dy, enzyme_const, n);
}

static void check_allocs(const char *what, unsigned long long before,
                         int per_thread) {
  double got = (double)(zymase_gpu_heap_allocs() - before);
  if (per_thread >= 0)
    check_value(what, got, (double)per_thread * THREADS);
}

int main() {
  const double h = 1e-6;
  double w[4] = {0.9, 0.3, -0.05, 0.6}, x[THREADS], ones[THREADS];
  double t0[4 * THREADS];
  for (int i = 0; i < THREADS; i++)
    x[i] = 0.1 + 0.007 * i, ones[i] = 1;
  for (int k = 0; k < 4 * THREADS; k++)
    t0[k] = 0.3 + 0.01 * (k % 7);
  double *d_w = to_device(w, 4), *d_x = to_device(x, THREADS);
  double *d_dy = to_device(ones, THREADS), *d_t = to_device(t0, 4 * THREADS);
  double *d_dw, *d_dx, *d_y, *d_dt;
  CK(cudaMalloc(&d_dw, 4 * sizeof(double)));
  CK(cudaMalloc(&d_dx, THREADS * sizeof(double)));
  CK(cudaMalloc(&d_y, THREADS * sizeof(double)));
  CK(cudaMalloc(&d_dt, 4 * THREADS * sizeof(double)));
  CK(cudaMemset(d_dw, 0, 4 * sizeof(double)));
  CK(cudaMemset(d_dx, 0, THREADS * sizeof(double)));
  CK(cudaMemset(d_dt, 0, 4 * THREADS * sizeof(double)));

  unsigned long long a = zymase_gpu_heap_allocs();
  gradient1<<<THREADS / BLOCK, BLOCK>>>(d_w, d_dw, d_x, d_dx, d_y, d_dy,
                                        ITERS);
  CK(cudaDeviceSynchronize());
  check_allocs("region: heap allocations", a, REGION_ALLOCS);
  double dw[4], dx[THREADS], want_w[4], want_x[THREADS];
  to_host(dw, d_dw, 4);
  to_host(dx, d_dx, THREADS);
  for (int k = 0; k < 4; k++) {
    double wp[4], wm[4], jp = 0, jm = 0;
    for (int q = 0; q < 4; q++)
      wp[q] = wm[q] = w[q];
    wp[k] += h, wm[k] -= h;
    for (int i = 0; i < THREADS; i++)
      jp += chain1(wp, x[i], ITERS), jm += chain1(wm, x[i], ITERS);
    want_w[k] = (jp - jm) / (2 * h);
  }
  for (int i = 0; i < THREADS; i++)
    want_x[i] =
        (chain1(w, x[i] + h, ITERS) - chain1(w, x[i] - h, ITERS)) / (2 * h);
  check_array("region: dw", dw, want_w, 4, 1e-6);
  check_array("region: dx", dx, want_x, THREADS, 1e-6);

  CK(cudaMemcpy(d_dy, ones, THREADS * sizeof(double), cudaMemcpyHostToDevice));
  CK(cudaMemset(d_dx, 0, THREADS * sizeof(double)));
  a = zymase_gpu_heap_allocs();
  gradient2<<<THREADS / BLOCK, BLOCK>>>(d_t, d_dt, d_x, d_dx, d_y, d_dy,
                                        ITERS);
  CK(cudaDeviceSynchronize());
  check_allocs("overwritten: heap allocations", a, KEPT_ALLOCS);
  static double dt[4 * THREADS], want_t[4 * THREADS];
  to_host(dx, d_dx, THREADS);
  to_host(dt, d_dt, 4 * THREADS);
  for (int i = 0; i < THREADS; i++) {
    double tp[4], tm[4];
    for (int q = 0; q < 4; q++)
      tp[q] = tm[q] = t0[4 * i + q];
    want_x[i] = (chain2(tp, x[i] + h, ITERS) - chain2(tm, x[i] - h, ITERS)) /
                (2 * h);
    for (int m = 0; m < 4; m++) {
      for (int q = 0; q < 4; q++)
        tp[q] = tm[q] = t0[4 * i + q];
      tp[m] += h, tm[m] -= h;
      want_t[4 * i + m] =
          (chain2(tp, x[i], ITERS) - chain2(tm, x[i], ITERS)) / (2 * h);
    }
  }
  check_array("overwritten: dx", dx, want_x, THREADS, 1e-6);
  check_array("overwritten: dt", dt, want_t, 4 * THREADS, 1e-6);
  return gpu_report();
}
