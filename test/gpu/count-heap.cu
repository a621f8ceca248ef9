// zymase_gpu_heap_allocs() and zymase_gpu_heap_bytes() count the device
// heap allocations that succeed and their bytes, exactly, whether or not
// the program is built with -zymase-gpu-count-atomics: a kernel whose N
// threads each malloc B bytes gives N and N*B; the gradient of a loop of
// `n` iterations (n a kernel argument: no compile-time bound) whose
// values it keeps per iteration gives, per thread, HEAP_ALLOCS
// allocations of HEAP_BYTES bytes in all: with -zymase-recompute-math=false
// at -O2 three buffers of 20 doubles (the load of w[k % 4], sin(s) and s,
// each reserved once from the trip count), at -O0 the same and the tape
// of the split-mode gradient of `chain`, which is not inlined (32 bytes).
// The gradients are checked against central finite differences.
// NATIVE: skip, zymase_gpu_heap_allocs() is the emulator's counter
// REQUIRES: cuda
// RUN: %gpu-clang -O0 -mllvm -zymase-recompute-math=false -DHEAP_ALLOCS=4 -DHEAP_BYTES=512 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 -mllvm -zymase-recompute-math=false -DHEAP_ALLOCS=3 -DHEAP_BYTES=480 %s -o %t2 && %t2
// RUN: %gpu-clang -O2 -mllvm -zymase-gpu-count-atomics -mllvm -zymase-recompute-math=false -DHEAP_ALLOCS=3 -DHEAP_BYTES=480 %s -o %tc && %tc
#include "gpu-check.h"

extern "C" unsigned long long zymase_gpu_heap_allocs(void);
extern "C" unsigned long long zymase_gpu_heap_bytes(void);
extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

enum { THREADS = 256, BLOCK = 128, ITERS = 20, BYTES = 40 };

/* Each thread's buffer is freed by a second kernel (the optimizer may
 * drop a malloc freed where it is made). */
__global__ void allocate(double **kept) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  double *p = (double *)malloc(BYTES);
  p[0] = t;
  kept[t] = p;
}
__global__ void release(double **kept, double *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = kept[t][0];
  free(kept[t]);
}

/* y[i] = s_n with s_0 = x[i], s_{k+1} = sin(s_k) * w[k % 4] + s_k / 2. */
__host__ __device__ double chain(const double *w, double s, int n) {
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

static double total(const double *w, const double *x) {
  double j = 0;
  for (int i = 0; i < THREADS; i++)
    j += chain(w, x[i], ITERS);
  return j;
}

int main() {
  double *d_out, **d_kept;
  CK(cudaMalloc(&d_out, THREADS * sizeof(double)));
  CK(cudaMalloc(&d_kept, THREADS * sizeof(double *)));
  unsigned long long a0 = zymase_gpu_heap_allocs(),
                     b0 = zymase_gpu_heap_bytes();
  allocate<<<THREADS / BLOCK, BLOCK>>>(d_kept);
  release<<<THREADS / BLOCK, BLOCK>>>(d_kept, d_out);
  CK(cudaDeviceSynchronize());
  check_value("malloc kernel: allocations",
              (double)(zymase_gpu_heap_allocs() - a0), THREADS);
  check_value("malloc kernel: bytes", (double)(zymase_gpu_heap_bytes() - b0),
              THREADS * BYTES);

  double w[4] = {0.9, -0.7, 1.1, 0.6}, x[THREADS], ones[THREADS];
  for (int i = 0; i < THREADS; i++)
    x[i] = 0.1 + 0.003 * i, ones[i] = 1;
  double *d_w = to_device(w, 4), *d_x = to_device(x, THREADS);
  double *d_dy = to_device(ones, THREADS), *d_dw, *d_dx, *d_y;
  CK(cudaMalloc(&d_dw, 4 * sizeof(double)));
  CK(cudaMalloc(&d_dx, THREADS * sizeof(double)));
  CK(cudaMalloc(&d_y, THREADS * sizeof(double)));
  CK(cudaMemset(d_dw, 0, 4 * sizeof(double)));
  CK(cudaMemset(d_dx, 0, THREADS * sizeof(double)));
  unsigned long long a1 = zymase_gpu_heap_allocs(),
                     b1 = zymase_gpu_heap_bytes();
  gradient<<<THREADS / BLOCK, BLOCK>>>(d_w, d_dw, d_x, d_dx, d_y, d_dy, ITERS);
  CK(cudaDeviceSynchronize());
  check_value("gradient: heap allocations",
              (double)(zymase_gpu_heap_allocs() - a1),
              (double)HEAP_ALLOCS * THREADS);
  check_value("gradient: heap bytes", (double)(zymase_gpu_heap_bytes() - b1),
              (double)HEAP_BYTES * THREADS);

  double dw[4], dx[THREADS], want_w[4], want_x[THREADS], h = 1e-6;
  to_host(dw, d_dw, 4);
  to_host(dx, d_dx, THREADS);
  for (int k = 0; k < 4; k++) {
    double wp[4], wm[4];
    for (int q = 0; q < 4; q++)
      wp[q] = wm[q] = w[q];
    wp[k] += h, wm[k] -= h;
    want_w[k] = (total(wp, x) - total(wm, x)) / (2 * h);
  }
  for (int i = 0; i < THREADS; i++)
    want_x[i] =
        (chain(w, x[i] + h, ITERS) - chain(w, x[i] - h, ITERS)) / (2 * h);
  check_array("gradient: dw", dw, want_w, 4, 1e-6);
  check_array("gradient: dx", dx, want_x, THREADS, 1e-6);
  return gpu_report();
}
