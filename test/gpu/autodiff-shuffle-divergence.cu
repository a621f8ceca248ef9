// Gradients of warp-shuffle reductions when lanes have returned or never
// took part (parallel/gpu_shuffle.c: the reverse exchange names the lanes
// that took part in the forward one, the ballot of its mask there).  A
// per-warp __shfl_down_sync(0xffffffff) tree (off = 16..1) whose warp sums
// lane 0 adds to one output, and whose partial sums are added across warps
// through shared memory; lanes past n leaving first (the mask from
// __ballot_sync, only lanes that took part added); the gradient called by
// the threads below n only; blocks of 32, 64 and 128, and 48 and 96 (partial
// warps) where the body is defined for them.  Closed forms: d/dx_i sum_k
// f(x_k) = f'(x_i); the primal against a host sum.  The same program is
// built natively (tools/gpu-native-check), where lanes that returned take
// no part in a shuffle either.
// REQUIRES: cuda
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
// RUN: %if tsan %{ %gpu-clang -O1 -g -fsanitize=thread %s -o %tt && env TSAN_OPTIONS=halt_on_error=1:exitcode=66 %tt %}
#include "gpu-check.h"

extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

__device__ float f(float x) { return sinf(x) * x; }
static double df(double x) { return cos(x) * x + sin(x); }

enum { TREE, SHARED, LEAVE, NCASE };
static const char *const names[] = {"warp tree, atomic per warp",
                                    "warp tree, sum across warps",
                                    "lanes past n leave"};

/* Case TREE: every lane shuffles (0 past n); lane 0 adds the warp's sum. */
__device__ void tree(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? f(x[i]) : 0.0f;
  for (int off = 16; off > 0; off /= 2)
    v += __shfl_down_sync(0xffffffff, v, off);
  if ((threadIdx.x & 31) == 0)
    atomicAdd(out, v);
}

/* Case SHARED: the warps' sums added across warps by thread 0. */
__device__ void shared(const float *x, float *out, int n) {
  __shared__ float part[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? f(x[i]) : 0.0f;
  for (int off = 16; off > 0; off /= 2)
    v += __shfl_down_sync(0xffffffff, v, off);
  if ((threadIdx.x & 31) == 0)
    part[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0;
    for (int w = 0; w < (int)(blockDim.x + 31) / 32; w++)
      s += part[w];
    atomicAdd(out, s);
  }
}

/* Case LEAVE: lanes past n return; the others shuffle among themselves
 * (the mask of the lanes below n) and add only what lanes of the mask
 * sent. */
__device__ void leave(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned m = __ballot_sync(0xffffffff, i < n); /* before any leaves */
  if (i >= n)
    return;
  int lane = threadIdx.x & 31, lanes = __popc(m);
  float v = f(x[i]);
  for (int off = 16; off > 0; off /= 2) {
    float t = __shfl_down_sync(m, v, off);
    if (lane + off < lanes)
      v += t;
  }
  if (lane == 0)
    atomicAdd(out, v);
}

typedef void (*Body)(const float *, float *, int);

template <Body F> __global__ void primal(const float *x, float *out, int n) {
  F(x, out, n);
}

/* `guard`: only the threads below n call the gradient. */
template <Body F>
__global__ void gradient(const float *x, float *dx, float *out, float *dout,
                         int n, int guard) {
  if (guard && blockIdx.x * blockDim.x + threadIdx.x >= (unsigned)n)
    return;
  __enzyme_autodiff((void *)F, enzyme_dup, x, dx, enzyme_dup, out, dout,
                    enzyme_const, n);
}

template <int C, Body F> static void run(int block, int guard) {
  const int n = 100;
  float x[n], dx[n], want[n];
  double sum = 0;
  for (int i = 0; i < n; i++) {
    x[i] = 0.3f + 0.013f * i;
    want[i] = (float)df(x[i]);
    sum += sin((double)x[i]) * x[i];
  }
  int grid = (n + block - 1) / block;
  float one = 1, zero = 0, *d_x = to_device(x, n), *d_dx, *d_out, *d_dout;
  CK(cudaMalloc(&d_dx, sizeof dx));
  CK(cudaMemset(d_dx, 0, sizeof dx));
  d_out = to_device(&zero, 1);
  d_dout = to_device(&one, 1);
  char what[160];
  primal<F><<<grid, block>>>(d_x, d_out, n);
  CK(cudaGetLastError());
  float out;
  to_host(&out, d_out, 1);
  snprintf(what, sizeof what, "%s, blocks of %d: primal", names[C], block);
  check_value(what, out, sum, 1e-5);
  gradient<F><<<grid, block>>>(d_x, d_dx, d_out, d_dout, n, guard);
  CK(cudaGetLastError());
  to_host(dx, d_dx, n);
  snprintf(what, sizeof what, "%s, blocks of %d%s: gradient", names[C], block,
           guard ? ", called below n" : "");
  check_array(what, dx, want, n, 1e-5);
  CK(cudaFree(d_x));
  CK(cudaFree(d_dx));
  CK(cudaFree(d_out));
  CK(cudaFree(d_dout));
}

int main() {
  for (int block : {32, 64, 128}) {
    run<TREE, tree>(block, 0);
    run<SHARED, shared>(block, 0);
  }
  /* Lanes that returned, and lanes that do not exist (partial warps). */
  for (int block : {32, 48, 64, 96, 128}) {
    run<LEAVE, leave>(block, 0);
    run<LEAVE, leave>(block, 1);
  }
  return gpu_report();
}
