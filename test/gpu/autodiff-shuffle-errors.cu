// Refused with a located error, never a lost derivative: an active float
// moved between lanes through an integer shuffle of its bits (the plugin
// differentiates shuffles of the float or double itself).
// REQUIRES: cuda
// RUN: %not %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O0 -S -emit-llvm %s -o /dev/null 2>&1 | %FileCheck %s
// RUN: %not %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O2 -S -emit-llvm %s -o /dev/null 2>&1 | %FileCheck %s

extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

// CHECK: autodiff-shuffle-errors.cu:[[@LINE+3]]:{{.*}}error: [zymase:unsupported] cannot differentiate '{{.*}}': the bits of an active floating-point value move between lanes through 'llvm.nvvm.shfl.sync.down.i32'; its derivative would be lost
// CHECK-NEXT: instruction: {{.*}}call {{.*}}@llvm.nvvm.shfl.sync.down.i32
// CHECK: hint: shuffle the float or double itself
__device__ float bits(const float *x) {
  float v = x[threadIdx.x] * 2;
  int b;
  memcpy(&b, &v, 4);
  b = __shfl_down_sync(0xffffffffu, b, 1);
  float w;
  memcpy(&w, &b, 4);
  return v * w;
}
__global__ void g(const float *x, float *dx) {
  __enzyme_autodiff((void *)bits, enzyme_dup, x, dx);
}
