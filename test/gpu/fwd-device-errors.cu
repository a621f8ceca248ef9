// Forward mode in device code refuses with a located error what it cannot
// differentiate: in vector mode (enzyme_width), dynamic (extern) __shared__
// memory with derivatives, whose one device-heap shadow cannot hold
// several directions (static __shared__ memory has a shadow per
// direction); a float's bits moved between lanes by an integer shuffle;
// __shared__ memory with derivatives in a function without __syncthreads
// (the block zeroes its shadow on entry).
// REQUIRES: cuda
// RUN: %not %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O0 -S -emit-llvm %s -o /dev/null 2>&1 | %FileCheck %s
// RUN: %not %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O2 -S -emit-llvm %s -o /dev/null 2>&1 | %FileCheck %s

extern __device__ int enzyme_dup, enzyme_const, enzyme_width;
extern __device__ void __enzyme_fwddiff(void *, ...);
extern __device__ float __enzyme_fwddiff_f(void *, ...);

// CHECK-DAG: fwd-device-errors.cu:[[@LINE+1]]:{{.*}}error: [zymase:unsupported] cannot differentiate '{{.*}}': vector forward mode (enzyme_width 2): the dynamic (extern) __shared__ array '{{.*}}' holds derivatives; its one shadow cannot hold several directions
__device__ void dynamic(const double *x, double *y) {
  extern __shared__ double tile[];
  int t = threadIdx.x;
  tile[t] = x[t];
  __syncthreads();
  y[t] = tile[(t + 1) % blockDim.x] * tile[t];
}
__global__ void dynamic_tangents(const double *x, const double *v0,
                                 const double *v1, double *y, double *d0,
                                 double *d1) {
  __enzyme_fwddiff((void *)dynamic, enzyme_width, 2, enzyme_dup, x, v0, v1,
                   enzyme_dup, y, d0, d1);
}

// CHECK-DAG: fwd-device-errors.cu:[[@LINE+1]]:{{.*}}error: [zymase:unsupported] cannot differentiate '{{.*}}': the bits of an active floating-point value move between lanes through 'llvm.nvvm.shfl.sync.down.i32'
__device__ float bits(const float *x) {
  float v = x[threadIdx.x] * 2;
  int b;
  memcpy(&b, &v, 4);
  b = __shfl_down_sync(0xffffffffu, b, 1);
  float w;
  memcpy(&w, &b, 4);
  return v * w;
}
__global__ void bits_tangent(const float *x, const float *v, float *t) {
  t[threadIdx.x] = __enzyme_fwddiff_f((void *)bits, enzyme_dup, x, v);
}

// CHECK-DAG: fwd-device-errors.cu:[[@LINE+1]]:{{.*}}error: [zymase:unsupported] cannot differentiate '{{.*}}': the __shared__ variable '{{.*}}' holds derivatives in a function without __syncthreads
__device__ void nosync(const double *x, double *y) {
  __shared__ double s[64];
  s[threadIdx.x] = x[threadIdx.x] * 2;
  y[threadIdx.x] = s[threadIdx.x] * s[threadIdx.x];
}
__global__ void nosync_tangent(const double *x, const double *v, double *y,
                               double *dy) {
  __enzyme_fwddiff((void *)nosync, enzyme_dup, x, v, enzyme_dup, y, dy);
}
