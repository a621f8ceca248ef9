// Out-of-bounds accesses are found with -fsanitize=address: the retargeted
// kernels are instrumented and cudaMalloc gives buffers of their exact
// size, so a kernel writing one element past a buffer is reported as a
// heap-buffer-overflow naming the kernel; the in-bounds run is clean.
// REQUIRES: cuda
// UNSUPPORTED: sanitizer
// RUN: %gpu-clang -O1 -g -fsanitize=address %s -o %t
// RUN: %t 100 | %FileCheck %s --check-prefix=CLEAN
// RUN: %not %t 101 2>&1 | %FileCheck %s --check-prefix=OOB
// CLEAN: sum 4950
// OOB: ERROR: AddressSanitizer: heap-buffer-overflow
// OOB: fill(int*, int)
#include "gpu-check.h"

__global__ void fill(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = i;
}

int main(int argc, char **argv) {
  int n = atoi(argv[1]), *p, h[100], s = 0;
  CK(cudaMalloc(&p, 100 * sizeof(int)));
  fill<<<4, 32>>>(p, n);
  to_host(h, p, 100);
  for (int i = 0; i < 100; i++)
    s += h[i];
  printf("sum %d\n", s);
  cudaFree(p);
  return 0;
}
