// Refused with a located error, never a wrong gradient: __shared__ memory
// holding derivatives in a function without __syncthreads (its shadow
// could not be zeroed by the block), and dynamic (extern) __shared__
// memory holding derivatives.
// REQUIRES: cuda
// RUN: %not %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O0 -S -emit-llvm %s -o /dev/null -DNOSYNC 2>&1 | %FileCheck %s --check-prefix=NOSYNC
// RUN: %not %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O2 -S -emit-llvm %s -o /dev/null 2>&1 | %FileCheck %s --check-prefix=DYN

extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

#ifdef NOSYNC
// NOSYNC: error: {{.*}}the __shared__ variable '{{.*}}' holds derivatives in a function without __syncthreads
__device__ void f(const double *x, double *y) {
  __shared__ double s[64];
  int t = threadIdx.x;
  s[t] = x[t];
  y[t] = s[t] * s[t];
}
#else
// DYN: error: {{.*}}the dynamic (extern) __shared__ array '{{.*}}' holds derivatives
__device__ void f(const double *x, double *y) {
  extern __shared__ double s[];
  int t = threadIdx.x;
  s[t] = x[t];
  __syncthreads();
  y[t] = s[t] * s[(t + 1) % blockDim.x];
}
#endif
__global__ void g(const double *x, double *dx, double *y, double *dy) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, y, dy);
}
