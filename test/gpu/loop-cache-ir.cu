// The device IR of loop caches (cache/gpu_buffers.c): a loop of 8
// iterations keeps its values in a fixed-size alloca in the gradient's
// entry block, with no call to malloc, realloc or free; a loop whose trip
// count is a kernel argument gets its buffer from the device heap through
// zymase.gpu.cache.alloc (malloc, and CUDA's assert then a trap when the
// heap is full) and frees it, never realloc (device code has none).  The
// cache report says which; with -zymase-gpu-local-cache-bytes=32 the
// 64 bytes of the first loop come from the heap too.  A replayed
// recurrence's scratch is a fixed-size buffer too.
// REQUIRES: cuda
// RUN: %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O2 -S -emit-llvm %s -o %t2.ll -mllvm -zymase-print-cache 2> %t2.report
// RUN: %FileCheck %s --check-prefixes=CONST,DYN,ALLOC < %t2.ll
// RUN: %FileCheck %s --check-prefix=REPORT < %t2.report
// RUN: %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O0 -S -emit-llvm %s -o %t0.ll
// RUN: %FileCheck %s --check-prefixes=CONST,DYN < %t0.ll
// RUN: %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O2 -S -emit-llvm %s -o /dev/null -mllvm -zymase-print-cache -mllvm -zymase-gpu-local-cache-bytes=32 2>&1 | %FileCheck %s --check-prefix=SMALL

extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

// CONST-LABEL: define internal void @__zymase_grad._Z5cloopPKdPd
// CONST-NOT: {{^}}define
// CONST: alloca [8 x double]
// CONST-NOT: @malloc
// CONST-NOT: @realloc
// CONST-NOT: @free
// CONST-NOT: @zymase.gpu.cache.alloc
// CONST: {{^}}}
__device__ double cloop(const double *w, double *x) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double s = x[i];
#pragma unroll 1
  for (int k = 0; k < 8; k++)
    s = sin(s * w[k]) + 0.5 * s;
  return s;
}
__global__ void cgrad(const double *w, double *dw, double *x, double *dx) {
  __enzyme_autodiff((void *)cloop, enzyme_dup, w, dw, enzyme_dup, x, dx);
}

// DYN-LABEL: define internal void @__zymase_grad._Z5dloopPKdPdi
// DYN-NOT: @realloc
// DYN-DAG: call void @free
// DYN-DAG: call ptr @zymase.gpu.cache.alloc
// DYN-NOT: @realloc
// DYN: {{^}}}
// ALLOC-LABEL: define internal ptr @zymase.gpu.cache.alloc(i64
// ALLOC: call ptr @malloc
// ALLOC: icmp eq ptr
// ALLOC: call void @__assertfail
// ALLOC: call void @llvm.trap
__device__ double dloop(const double *w, double *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double s = x[i];
#pragma unroll 1
  for (int k = 0; k < n; k++)
    s = sin(s * w[k]) + 0.5 * s;
  return s;
}
__global__ void dgrad(const double *w, double *dw, double *x, double *dx,
                      int n) {
  __enzyme_autodiff((void *)dloop, enzyme_dup, w, dw, enzyme_dup, x, dx,
                    enzyme_const, n);
}

// REPORT-LABEL: cache of the gradient of '_Z5cloopPKdPd'
// REPORT: double, 8 bytes, per iteration of loop 1 (depth 1), fixed-size buffer in local memory (8 values per thread)
// REPORT-LABEL: cache of the gradient of '_Z5dloopPKdPdi'
// REPORT: double, 8 bytes, per iteration of loop 1 (depth 1), device malloc per thread, buffer reserved from the trip count
// SMALL-LABEL: cache of the gradient of '_Z5cloopPKdPd'
// SMALL: per iteration of loop 1 (depth 1), device malloc per thread, buffer reserved from the trip count

// A recurrence of an inner loop of 5 iterations, replayed in the reverse
// sweep into a fixed-size scratch buffer in local memory.
// REPORT-LABEL: cache of the gradient of '_Z5rloopPKdPdi'
// REPORT: replay scratch: fixed-size buffer in local memory (5 values per thread)
__device__ double rloop(const double *w, double *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double sum = 0;
#pragma unroll 1
  for (int a = 0; a < n; a++) {
    double t = x[i] + 0.05 * a, tj = 1, r = 1;
#pragma unroll 1
    for (int j = 0; j < 5; j++) {
      r -= w[j] * tj;
      tj *= t;
    }
    sum += r * r;
  }
  return sum;
}
__global__ void rgrad(const double *w, double *dw, double *x, double *dx,
                      int n) {
  __enzyme_autodiff((void *)rloop, enzyme_dup, w, dw, enzyme_dup, x, dx,
                    enzyme_const, n);
}
