// Device math around AD (gpu/device_math.c), in the device IR.  With
// libdevice linked (a build for a real GPU): the gradient applies sin's
// and pow's rules (libdevice's bodies are not differentiated), the cos
// that sin's derivative needs is linked from libdevice, every libdevice
// function is inlined afterwards and gets its linkage back.  Without
// libdevice (-nocudalib, GPU on CPU): the derivative's cos is __nv_cos, not
// llvm.cos.f64, which the nvptx backend cannot select.
// REQUIRES: cuda-native
// RUN: %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O2 -S -emit-llvm %s -o - | %FileCheck %s --check-prefix=LIB
// RUN: %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O0 -S -emit-llvm %s -o - | %FileCheck %s --check-prefix=LIB
// RUN: %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -nocudalib -O2 -S -emit-llvm %s -o - | %FileCheck %s --check-prefix=NOLIB

extern __device__ int enzyme_dup;
extern __device__ void __enzyme_autodiff(void *, ...);

__device__ double f(const double *x) {
  int i = threadIdx.x;
  return sin(x[i]) * pow(x[i], 1.5);
}
__global__ void k(const double *x, double *dx) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
}

// LIB-LABEL: define {{.*}} @_Z1kPKdPd
// LIB-NOT: call {{.*}} @__nv_
// LIB-NOT: @llvm.cos.f64
// LIB-NOT: zymase-device-math
// LIB-NOT: define {{.*}}@__nv_
// LIB: attributes

// NOLIB-DAG: call {{.*}}double @__nv_cos(
// NOLIB-DAG: call {{.*}}double @__nv_sin(
// NOLIB-NOT: @llvm.cos.f64
