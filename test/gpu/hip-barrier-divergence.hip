// HIP launches that break the GPU's rules are reported with the kernel's
// name (status 70), never hang, as for CUDA: __syncthreads reached by part
// of a block (in a branch; after other threads returned), and a deadlock
// between a barrier and a shuffle of half a 64-lane warp.  HIP's shuffles
// have no mask: after some lanes of a warp returned, the others still
// shuffle among themselves (the "none" run checks their values).  Device
// printf (ockl's hostcall printf) and assert (HIP's: a message, then a
// trap, which ends the program with SIGILL).
// REQUIRES: hip
// RUN: %gpu-clang -O2 -I%S %s -o %t
// RUN: %not %t branch 2>&1 | %FileCheck %s --check-prefix=BRANCH
// RUN: %not %t early-return 2>&1 | %FileCheck %s --check-prefix=RETURN
// RUN: %not %t deadlock 2>&1 | %FileCheck %s --check-prefix=DEADLOCK
// RUN: %t none | %FileCheck %s --check-prefix=NONE
// RUN: %not --crash %t assert 2>&1 | %FileCheck %s --check-prefix=ASSERT
// The same built from a .cpp file with -x hip, at -O0.
// RUN: cp %s %t.cpp && %gpu-clang -O0 -I%S -x hip %t.cpp -o %t0
// RUN: %t0 none | %FileCheck %s --check-prefix=NONE
// BRANCH: zymase-gpu: barrier divergence in kernel 'branch(int*)', block (0,0,0), thread
// RETURN: zymase-gpu: barrier divergence in kernel 'early_return(int*, int)', block (0,0,0), thread
// DEADLOCK: zymase-gpu: deadlock in kernel 'deadlock(int*)'
// NONE: lane 3 of 64: 1.50 str 1099511627776
// NONE: all good
// ASSERT: Device-side assertion `threadIdx.x != 5' failed.
#include "hip-check.h"
#include <cassert>
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

__global__ void deadlock(int *p) {
  if (threadIdx.x < 32)
    p[threadIdx.x] = __shfl((int)threadIdx.x, 0);
  else
    __syncthreads();
}

/* Lanes 40-63 return; lanes 0-39 shuffle down by one. */
__global__ void partial(int *p) {
  if (threadIdx.x >= 40)
    return;
  p[threadIdx.x] = __shfl_down((int)threadIdx.x * 3, 1);
  if (threadIdx.x == 3)
    printf("lane %d of %u: %.2f %s %ld\n", (int)threadIdx.x,
           (unsigned)blockDim.x, 1.5, "str", (long)1 << 40);
}

__global__ void asserts(int *p) { assert(threadIdx.x != 5); }

int main(int argc, char **argv) {
  int *p;
  CK(hipMalloc(&p, 64 * sizeof(int)));
  const char *what = argc > 1 ? argv[1] : "none";
  if (!strcmp(what, "branch"))
    branch<<<1, 64>>>(p);
  else if (!strcmp(what, "early-return"))
    early_return<<<1, 64>>>(p, 40);
  else if (!strcmp(what, "deadlock"))
    deadlock<<<1, 64>>>(p);
  else if (!strcmp(what, "assert"))
    asserts<<<1, 64>>>(p);
  else {
    early_return<<<1, 64>>>(p, 64);
    partial<<<1, 64>>>(p);
  }
  CK(hipDeviceSynchronize());
  int h[64];
  CK(hipMemcpy(h, p, sizeof h, hipMemcpyDeviceToHost));
  for (int i = 0; i < 39; i++)
    if (h[i] != 3 * (i + 1)) {
      printf("FAIL lane %d: %d\n", i, h[i]);
      return 1;
    }
  printf("all good\n");
  return 0;
}
