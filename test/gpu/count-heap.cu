// zymase_gpu_heap_allocs() and zymase_gpu_heap_bytes() count the device
// heap allocations that succeed and their bytes, exactly, whether or not
// the program is built with -zymase-gpu-count-atomics: a kernel whose N
// threads each malloc B bytes gives N and N*B; the gradient of a loop of
// `n` iterations (n a kernel argument: no compile-time bound) whose
// values it keeps per iteration gives, per thread, HEAP_ALLOCS
// allocations of HEAP_BYTES bytes in all.  At -O2 it keeps two values
// per iteration (s, and w[k % 4], which y may alias; sin(s) is computed
// again in device code), in buffers that start in local memory
// (gpu_buffers.c: 4096 bytes per thread by default, 256 iterations): no
// allocation; with -zymase-gpu-local-cache-bytes=64 they start with 4
// iterations and move to the heap for 20 (two allocations of 160 bytes,
// the local buffers not freed: AddressSanitizer checks that too); with
// -zymase-recompute-math=false and no local budget, the three buffers of
// the heap alone, reserved once from the trip count (s, sin(s), w[k % 4]).
// At -O0 `chain` is not inlined, and its split-mode gradient keeps its
// two buffers and its 24-byte tape in the heap.  The second gradient
// replays an inner loop's recurrence (REPLAY_ALLOCS, REPLAY_BYTES per
// thread): its scratch starts in local memory (256 values of half the
// budget), with -zymase-gpu-local-cache-bytes=64 in 4, then one heap
// buffer of 2 * 20 + 8 values for both entries; with no budget the
// outer loop's cache of 2 values also comes from the heap (8 values).
// The gradients are checked against central finite differences.
// NATIVE: skip, zymase_gpu_heap_allocs() is the emulator's counter
// REQUIRES: cuda
// RUN: %gpu-clang -O0 -DHEAP_ALLOCS=3 -DHEAP_BYTES=344 -DREPLAY_ALLOCS=0 -DREPLAY_BYTES=0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 -DHEAP_ALLOCS=0 -DHEAP_BYTES=0 -DREPLAY_ALLOCS=0 -DREPLAY_BYTES=0 %s -o %t2 && %t2
// RUN: %gpu-clang -O2 -mllvm -zymase-gpu-count-atomics -mllvm -zymase-gpu-local-cache-bytes=64 -DHEAP_ALLOCS=2 -DHEAP_BYTES=320 -DREPLAY_ALLOCS=1 -DREPLAY_BYTES=384 %s -o %tl && %tl
// RUN: %gpu-clang -O2 -mllvm -zymase-recompute-math=false -mllvm -zymase-gpu-local-cache-bytes=0 -DHEAP_ALLOCS=3 -DHEAP_BYTES=480 -DREPLAY_ALLOCS=2 -DREPLAY_BYTES=448 %s -o %th && %th
// RUN: %if !quick %{ %gpu-clang -O1 -g -fsanitize=address -mllvm -zymase-gpu-local-cache-bytes=64 -DHEAP_ALLOCS=2 -DHEAP_BYTES=320 -DREPLAY_ALLOCS=1 -DREPLAY_BYTES=384 %s -o %ta && env ASAN_OPTIONS=detect_leaks=0 %ta %}
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

/* z[i]: twice, r_0 = x[i] + j, r_{k+1} = r_k * (c + r_k / 16) for n
 * steps, added up: an inner loop's recurrence of r and a value from
 * outside the loop, replayed by the reverse sweep at each entry into a
 * scratch of n values (no cache at all). */
__host__ __device__ double replayed(double c, double x, int n) {
  double sum = 0;
#pragma unroll 1
  for (int j = 0; j < 2; j++) {
    double r = x + 0.1 * j;
#pragma unroll 1
    for (int k = 0; k < n; k++)
      r = r * (c + r * 0.0625);
    sum += r;
  }
  return sum;
}
__device__ void body2(const double *x, double *z, double c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  z[i] = replayed(c, x[i], n);
}
__global__ void gradient2(const double *x, double *dx, double *z, double *dz,
                          double c, int n) {
  __enzyme_autodiff((void *)body2, enzyme_dup, x, dx, enzyme_dup, z, dz,
                    enzyme_const, c, enzyme_const, n);
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

  const double c = 0.8;
  CK(cudaMemcpy(d_dy, ones, THREADS * sizeof(double), cudaMemcpyHostToDevice));
  CK(cudaMemset(d_dx, 0, THREADS * sizeof(double)));
  a1 = zymase_gpu_heap_allocs(), b1 = zymase_gpu_heap_bytes();
  gradient2<<<THREADS / BLOCK, BLOCK>>>(d_x, d_dx, d_y, d_dy, c, ITERS);
  CK(cudaDeviceSynchronize());
  check_value("replayed: heap allocations",
              (double)(zymase_gpu_heap_allocs() - a1),
              (double)REPLAY_ALLOCS * THREADS);
  check_value("replayed: heap bytes", (double)(zymase_gpu_heap_bytes() - b1),
              (double)REPLAY_BYTES * THREADS);
  to_host(dx, d_dx, THREADS);
  for (int i = 0; i < THREADS; i++)
    want_x[i] = (replayed(c, x[i] + h, ITERS) - replayed(c, x[i] - h, ITERS)) /
                (2 * h);
  check_array("replayed: dx", dx, want_x, THREADS, 1e-6);
  return gpu_report();
}
