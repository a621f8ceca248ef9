// HIP's shuffles (__shfl_down: the bits of a float through
// llvm.amdgcn.ds.bpermute) of an active value are refused with a located
// error: they are not differentiated yet, and the derivative must not be
// lost silently.
// REQUIRES: hip
// RUN: %not %gpu-clang -O0 %s -o %t0 2>&1 | %FileCheck %s
// RUN: %not %gpu-clang -O2 %s -o %t2 2>&1 | %FileCheck %s
#include <hip/hip_runtime.h>

extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

// CHECK: hip-shuffle-errors.hip:[[@LINE+3]]:{{.*}}error: [zymase:unsupported] cannot differentiate '{{.*}}': the bits of an active floating-point value move between lanes through 'llvm.amdgcn.ds.bpermute'; its derivative would be lost
// CHECK-NEXT: instruction: {{.*}}@llvm.amdgcn.ds.bpermute
// CHECK-NEXT: hint: HIP's shuffles of active values are not differentiated yet
__device__ float wsum(const float *x) {
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  v = v * v;
  for (int off = 32; off > 0; off /= 2)
    v += __shfl_down(v, off);
  return threadIdx.x == 0 ? v : 0;
}
__global__ void g(const float *x, float *dx) {
  __enzyme_autodiff((void *)wsum, enzyme_dup, x, dx);
}
