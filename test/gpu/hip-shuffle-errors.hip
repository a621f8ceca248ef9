// HIP's cross-lane moves other than its shuffles (__shfl*, ds_bpermute of
// a float or double, differentiated: hip-autodiff-shuffle.hip) are refused
// with a located error when they move the bits of an active float:
// ds_swizzle and readfirstlane here; the derivative must not be lost
// silently.
// REQUIRES: hip
// RUN: %not %gpu-clang -O0 %s -o %t0 2>&1 | %FileCheck %s
// RUN: %not %gpu-clang -O2 %s -o %t2 2>&1 | %FileCheck %s
#include <hip/hip_runtime.h>

extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

// CHECK: hip-shuffle-errors.hip:[[@LINE+3]]:{{.*}}error: [zymase:unsupported] cannot differentiate '{{.*}}': the bits of an active floating-point value move between lanes through 'llvm.amdgcn.ds.swizzle'; its derivative would be lost
// CHECK-NEXT: instruction: {{.*}}@llvm.amdgcn.ds.swizzle
// CHECK-NEXT: hint: HIP's __shfl, __shfl_up, __shfl_down, __shfl_xor and ds_bpermute of a float or double are differentiated; other cross-lane moves are not
__device__ float swz(const float *x) {
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  v = v * v;
  return __int_as_float(__builtin_amdgcn_ds_swizzle(__float_as_int(v), 0x1f));
}

// CHECK: hip-shuffle-errors.hip:[[@LINE+3]]:{{.*}}error: [zymase:unsupported] cannot differentiate '{{.*}}': the bits of an active floating-point value move between lanes through 'llvm.amdgcn.readfirstlane.{{i32|f32}}'; its derivative would be lost
// CHECK-NEXT: instruction: {{.*}}@llvm.amdgcn.readfirstlane
// CHECK-NEXT: hint: HIP's
__device__ float first(const float *x) {
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  v = v * v;
  return __int_as_float(__builtin_amdgcn_readfirstlane(__float_as_int(v)));
}

__global__ void g(const float *x, float *dx) {
  __enzyme_autodiff((void *)swz, enzyme_dup, x, dx);
  __enzyme_autodiff((void *)first, enzyme_dup, x, dx);
}
