// GPU threads really run concurrently: a non-atomic `+=` from every thread
// into one global loses updates in at least one of several launches, while
// atomicAdd never does; a shared-memory reduction without its
// __syncthreads gives a wrong sum in at least one of several launches,
// while the one with the barrier is always right.  (A sequential emulation
// would pass the racy kernels and fail this test.)
// NATIVE: skip, a race's lost updates need not show on a real GPU in a few launches
// REQUIRES: cuda
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
#include "gpu-check.h"

#define BLOCK 256
#define REPS 2000

/* The read and the write of each update are some work apart, so that a
 * thread running beside it, or taking the core in between, loses it. */
__global__ void racy_add(int *p) {
  volatile int *v = p, spin = 0;
  for (int k = 0; k < REPS; k++) {
    int old = *v;
    for (int d = 0; d < 50; d++)
      spin = spin + d;
    *v = old + 1;
  }
}

__global__ void atomic_add(int *p) {
  for (int k = 0; k < REPS; k++)
    atomicAdd(p, 1);
}

template <bool Sync> __global__ void reduce(const int *x, int *out) {
  __shared__ int s[BLOCK];
  s[threadIdx.x] = x[blockIdx.x * BLOCK + threadIdx.x];
  if (Sync)
    __syncthreads();
  for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      s[threadIdx.x] += ((volatile int *)s)[threadIdx.x + stride];
    if (Sync)
      __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = s[0];
}

int main() {
  const int nb = 4, threads = nb * BLOCK;
  int *dp, got;
  CK(cudaMalloc(&dp, sizeof(int)));
  int lost_somewhere = 0, atomic_ok = 1;
  for (int t = 0; t < 20 && !lost_somewhere; t++) {
    CK(cudaMemset(dp, 0, sizeof(int)));
    racy_add<<<nb, BLOCK>>>(dp);
    to_host(&got, dp, 1);
    lost_somewhere |= got != threads * REPS;
  }
  for (int t = 0; t < 3; t++) {
    CK(cudaMemset(dp, 0, sizeof(int)));
    atomic_add<<<nb, BLOCK>>>(dp);
    to_host(&got, dp, 1);
    atomic_ok &= got == threads * REPS;
  }
  check_value("a non-atomic += from all threads lost updates", lost_somewhere, 1);
  check_value("atomicAdd from all threads lost none", atomic_ok, 1);

  const int rb = 64;
  int x[rb * BLOCK], want[rb], out[rb];
  for (int i = 0; i < rb * BLOCK; i++)
    x[i] = 1 + (i * 13) % 7;
  for (int b = 0; b < rb; b++) {
    want[b] = 0;
    for (int t = 0; t < BLOCK; t++)
      want[b] += x[b * BLOCK + t];
  }
  int *dx = to_device(x, rb * BLOCK), *dout;
  CK(cudaMalloc(&dout, sizeof out));
  int wrong_somewhere = 0, synced_ok = 1;
  for (int t = 0; t < 10 && !wrong_somewhere; t++) {
    reduce<false><<<rb, BLOCK>>>(dx, dout);
    to_host(out, dout, rb);
    for (int b = 0; b < rb; b++)
      wrong_somewhere |= out[b] != want[b];
  }
  for (int t = 0; t < 3; t++) {
    reduce<true><<<rb, BLOCK>>>(dx, dout);
    to_host(out, dout, rb);
    for (int b = 0; b < rb; b++)
      synced_ok &= out[b] == want[b];
  }
  check_value("a reduction missing __syncthreads went wrong", wrong_somewhere, 1);
  check_value("the reduction with __syncthreads is right", synced_ok, 1);
  return gpu_report();
}
