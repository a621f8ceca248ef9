// Separate compilation: two parts of this file compiled with -c (each
// object holds its host and retargeted device code), linked by
// zymase-clang --gpu-on-cpu; the two kernels, a __device__ helper of the
// same name in both parts and a __constant__ array in each, stay apart.
// REQUIRES: cuda
// RUN: %gpu-clang -O2 -DPART=1 -c %s -o %t1.o
// RUN: %gpu-clang -O2 -DPART=2 -c %s -o %t2.o
// RUN: %gpu-clang %t1.o %t2.o -o %t && %t
#include "gpu-check.h"

#if PART == 1
__constant__ int k[1];
__device__ int twice(int v) { return 2 * v + k[0]; }
__global__ void first(int *p) { p[threadIdx.x] = twice(threadIdx.x); }
void run_second(int *p);
int main() {
  int *p, h[64], w[64];
  int one = 1;
  CK(cudaMemcpyToSymbol(k, &one, sizeof one));
  CK(cudaMalloc(&p, sizeof h));
  first<<<1, 32>>>(p);
  run_second(p + 32);
  to_host(h, p, 64);
  for (int i = 0; i < 64; i++)
    w[i] = i < 32 ? 2 * i + 1 : 3 * (i - 32) + 5;
  check_array("kernels of two objects", h, w, 64);
  return gpu_report();
}
#else
__constant__ int k[1];
__device__ int twice(int v) { return 3 * v + k[0]; }
__global__ void second(int *p) { p[threadIdx.x] = twice(threadIdx.x); }
void run_second(int *p) {
  int five = 5;
  CK(cudaMemcpyToSymbol(k, &five, sizeof five));
  second<<<1, 32>>>(p);
}
#endif
