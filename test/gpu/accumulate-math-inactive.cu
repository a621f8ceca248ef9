// Accumulation classes (parallel/gpu_accumulate.c, ownership.c) are not
// lost to a device math call or to an inactive input, without
// `__restrict__`: a call of libdevice's `__nv_exp` writes no user memory
// (a parameter read before it keeps its per-thread sum and one atomic per
// block), and a load from an `enzyme_const` input that may overlap the
// thread's element adds no adjoint (the element stays plain). A second
// active input that may overlap the element still makes it atomic.
// REQUIRES: cuda
// RUN: %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O2 -S -emit-llvm %s -o /dev/null -mllvm -zymase-print-cache 2>&1 | %FileCheck %s
// RUN: %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O0 -S -emit-llvm %s -o /dev/null -mllvm -zymase-print-cache 2>&1 | %FileCheck %s

extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

// CHECK-LABEL: gradient of '_Z5decay
// CHECK-NOT: shadow atomically
// CHECK: summed per thread, then at the return by warp and block sums and one atomic add per block
// CHECK-NOT: shadow atomically
// CHECK: zymase: cache
__device__ double decay(const double *p, const double *t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double r = p[0] * exp(-p[1] * t[i]) - 1;
  return r * r;
}
__global__ void k_decay(const double *p, double *dp, const double *t) {
  __enzyme_autodiff((void *)decay, enzyme_dup, p, dp, enzyme_const, t);
}

// CHECK-LABEL: gradient of '_Z5scale
// CHECK: plainly (an element only this thread reads
// CHECK-NOT: shadow atomically
// CHECK: zymase: cache
__device__ void scale(const double *x, double *y, const double *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = sin(x[i]) * c[i] * c[i + 1];
}
__global__ void k_scale(const double *x, double *dx, double *y, double *dy,
                        const double *c, int n) {
  __enzyme_autodiff((void *)scale, enzyme_dup, x, dx, enzyme_dup, y, dy,
                    enzyme_const, c, enzyme_const, n);
}

// CHECK-LABEL: gradient of '_Z6scale2
// CHECK: shadow atomically
__device__ void scale2(const double *x, double *y, const double *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = sin(x[i]) * c[i + 1];
}
__global__ void k_scale2(const double *x, double *dx, double *y, double *dy,
                         const double *c, double *dc, int n) {
  __enzyme_autodiff((void *)scale2, enzyme_dup, x, dx, enzyme_dup, y, dy,
                    enzyme_dup, c, dc, enzyme_const, n);
}
