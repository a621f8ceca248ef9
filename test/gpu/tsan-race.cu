// ThreadSanitizer in GPU-on-CPU mode (-fsanitize=thread instruments the
// retargeted kernels): a kernel adding into one address without an atomic
// is reported as a data race (exit status 66), the same kernel with
// atomicAdd, and a shared-memory reduction whose __syncthreads order its
// accesses, are not.
// REQUIRES: cuda, tsan
// RUN: %gpu-clang -O1 -g -fsanitize=thread %s -o %t
// RUN: env TSAN_OPTIONS=halt_on_error=1:exitcode=66 %t atomic | %FileCheck %s --check-prefix=CLEAN
// RUN: env TSAN_OPTIONS=halt_on_error=1:exitcode=66 %not %t racy 2>&1 | %FileCheck %s --check-prefix=RACE
// CLEAN: sum 2048, reduction 8256
// RACE: WARNING: ThreadSanitizer: data race
// RACE: racy_add
#include "gpu-check.h"
#include <cstring>

__global__ void racy_add(int *p) { *p += 1; }
__global__ void atomic_add(int *p) { atomicAdd(p, 1); }
__global__ void reduce(int *out) {
  __shared__ int s[128];
  s[threadIdx.x] = threadIdx.x + 1;
  __syncthreads();
  for (int stride = 64; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      s[threadIdx.x] += s[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    *out = s[0];
}

int main(int argc, char **argv) {
  int *p, *r, h, hr;
  CK(cudaMalloc(&p, sizeof(int)));
  CK(cudaMalloc(&r, sizeof(int)));
  CK(cudaMemset(p, 0, sizeof(int)));
  if (argc > 1 && !strcmp(argv[1], "racy"))
    racy_add<<<8, 256>>>(p);
  else
    atomic_add<<<8, 256>>>(p);
  reduce<<<1, 128>>>(r);
  to_host(&h, p, 1), to_host(&hr, r, 1);
  printf("sum %d, reduction %d\n", h, hr);
  return 0;
}
