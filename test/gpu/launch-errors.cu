// Launches the GPU refuses are refused here too, with a message naming the
// kernel and the error returned by cudaGetLastError (the program goes on):
// a block of more than 1024 threads, more dynamic shared memory than the
// 48 KiB default (accepted after cudaFuncSetAttribute raises the limit),
// an empty grid; a failed device assert ends the program with its message.
// NATIVE: skip, the emulator's messages for refused launches
// REQUIRES: cuda
// RUN: %gpu-clang -O0 %s -o %t
// RUN: %t 2>&1 | %FileCheck %s
// RUN: %not %t assert 2>&1 | %FileCheck %s --check-prefix=ASSERT
// CHECK: zymase-gpu: launch of kernel 'fill(int*)': a block of 2048 x 1 x 1 threads (the limit is 1024, and 64 in z)
// CHECK: block 2048: invalid configuration argument
// CHECK: zymase-gpu: launch of kernel 'fill(int*)': 65536 bytes of shared memory per block (0 static, 65536 dynamic; the limit is 49152)
// CHECK: too much shared memory: invalid argument
// CHECK: opted in: no error, 64
// CHECK: zymase-gpu: launch of kernel 'fill(int*)': empty grid or block
// CHECK: empty grid: invalid configuration argument
// CHECK: last error cleared: no error
// ASSERT: launch-errors.cu:[[#]]: void check_positive(const int *): block [1,0,0], thread [3,0,0] Assertion `x[blockIdx.x * blockDim.x + threadIdx.x] > 0` failed (kernel 'check_positive(int const*)')
#include "gpu-check.h"
#include <cassert>
#include <cstring>

__global__ void fill(int *p) {
  extern __shared__ int dyn[];
  dyn[threadIdx.x] = 1;
  p[threadIdx.x] = dyn[threadIdx.x] + 63;
}

__global__ void check_positive(const int *x) {
  assert(x[blockIdx.x * blockDim.x + threadIdx.x] > 0);
}

int main(int argc, char **argv) {
  int *p, h = 0;
  setvbuf(stdout, nullptr, _IONBF, 0);
  CK(cudaMalloc(&p, 2048 * sizeof(int)));
  if (argc > 1 && !strcmp(argv[1], "assert")) {
    int x[8] = {1, 2, 3, 4, 5, 6, 7, -8};
    int *dx = to_device(x, 8);
    check_positive<<<2, 4>>>(dx);
    cudaDeviceSynchronize();
    return 0;
  }
  fill<<<1, 2048>>>(p);
  printf("block 2048: %s\n", cudaGetErrorString(cudaGetLastError()));
  fill<<<1, 32, 64 * 1024>>>(p);
  printf("too much shared memory: %s\n", cudaGetErrorString(cudaGetLastError()));
  CK(cudaFuncSetAttribute(fill, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          64 * 1024));
  fill<<<1, 32, 64 * 1024>>>(p);
  cudaError_t e = cudaGetLastError();
  to_host(&h, p, 1);
  printf("opted in: %s, %d\n", cudaGetErrorString(e), h);
  fill<<<0, 32>>>(p);
  printf("empty grid: %s\n", cudaGetErrorString(cudaGetLastError()));
  printf("last error cleared: %s\n", cudaGetErrorString(cudaGetLastError()));
  fflush(stdout);
  return 0;
}
