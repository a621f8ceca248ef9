// A launch that breaks the GPU's rules is reported with the kernel's name
// and ends the program (status 70), never hangs: __syncthreads reached by
// only part of a block (taken in a branch; after other threads returned),
// lanes of a warp meeting with different masks (or waiting for lanes
// held at a barrier), and a deadlock between a block barrier and a warp
// shuffle.
// NATIVE: skip, the emulator's reports of launches that break the GPU's rules
// REQUIRES: cuda
// RUN: %gpu-clang -O2 %s -o %t
// RUN: %not %t branch 2>&1 | %FileCheck %s --check-prefix=BRANCH
// RUN: %not %t early-return 2>&1 | %FileCheck %s --check-prefix=RETURN
// RUN: %not %t masks 2>&1 | %FileCheck %s --check-prefix=MASKS
// RUN: %not %t deadlock 2>&1 | %FileCheck %s --check-prefix=DEADLOCK
// RUN: %t none | %FileCheck %s --check-prefix=NONE
// BRANCH: zymase-gpu: barrier divergence in kernel 'branch(int*)', block (0,0,0), thread
// RETURN: zymase-gpu: barrier divergence in kernel 'early_return(int*, int)', block (0,0,0), thread
// The lower half may complete its own shuffle first and wait at the
// barrier, while the upper half's mask waits for it: a deadlock.  (Lanes
// that returned take no part in a shuffle, as on a GPU.)
// MASKS: zymase-gpu: {{kernel 'masks\(int\*\)', block \(0,0,0\), thread \([0-9]+,0,0\): lanes of warp 0 meet in __shfl_sync with different masks|deadlock in kernel 'masks\(int\*\)'}}
// DEADLOCK: zymase-gpu: deadlock in kernel 'deadlock(int*)'
// NONE: all good
#include "gpu-check.h"
#include <cstring>

__global__ void branch(int *p) {
  if (threadIdx.x < 16)
    __syncthreads();
  p[threadIdx.x] = 1;
}

__global__ void early_return(int *p, int n) {
  if (threadIdx.x >= n)
    return;
  __syncthreads();
  p[threadIdx.x] = 1;
}

__global__ void masks(int *p) {
  unsigned m = threadIdx.x < 16 ? 0x0000ffffu : 0xffffffffu;
  p[threadIdx.x] = __shfl_sync(m, (int)threadIdx.x, 0);
  __syncthreads();
}

__global__ void deadlock(int *p) {
  if (threadIdx.x < 16)
    p[threadIdx.x] = __shfl_sync(0xffffffffu, (int)threadIdx.x, 0);
  else
    __syncthreads();
}

int main(int argc, char **argv) {
  int *p;
  CK(cudaMalloc(&p, 64 * sizeof(int)));
  const char *what = argc > 1 ? argv[1] : "none";
  if (!strcmp(what, "branch"))
    branch<<<1, 64>>>(p);
  else if (!strcmp(what, "early-return"))
    early_return<<<1, 64>>>(p, 40);
  else if (!strcmp(what, "masks"))
    masks<<<1, 32>>>(p);
  else if (!strcmp(what, "deadlock"))
    deadlock<<<1, 64>>>(p);
  else
    early_return<<<1, 64>>>(p, 64);
  CK(cudaDeviceSynchronize());
  printf("all good\n");
  return 0;
}
