// -zymase-gpu-no-device-malloc (for targets without a device heap): a
// loop cache of a device gradient that would need device malloc (a trip
// count that is a kernel argument) is refused with an error naming the
// function and the loop's line; a loop of 8 iterations (a fixed-size
// buffer in local memory) is accepted.
// REQUIRES: cuda
// RUN: %not %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O2 -g -S -emit-llvm %s -o /dev/null -mllvm -zymase-gpu-no-device-malloc 2>&1 | %FileCheck %s
// RUN: %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O0 -S -emit-llvm %s -o /dev/null -mllvm -zymase-gpu-no-device-malloc -DCONSTANT

extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

// CHECK: loop-cache-errors.cu:[[@LINE+11]]:{{[0-9]+}}: error: [zymase:unsupported] cannot differentiate '_Z4loopPKdPdi': the values this loop keeps for the reverse sweep have no compile-time bound within -zymase-gpu-local-cache-bytes=4096 per thread, and device malloc is turned off
// CHECK: hint: bound the loop's trip count by a constant
// CHECK-NOT: error:
__device__ double loop(const double *w, double *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double s = x[i];
#ifdef CONSTANT
  n = 8;
#endif
#pragma unroll 1
  for (int k = 0; k < n; k++)
    s = sin(s * w[k]) + 0.5 * s;
  return s;
}
__global__ void grad(const double *w, double *dw, double *x, double *dx,
                     int n) {
  __enzyme_autodiff((void *)loop, enzyme_dup, w, dw, enzyme_dup, x, dx,
                    enzyme_const, n);
}
