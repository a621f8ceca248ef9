// The amdgcn (HIP) device IR of the accumulation classes
// (parallel/gpu_accumulate.c, gpu_target.c) and the cache report's line
// for each: a thread-owned element (x[i], i = blockIdx.x * blockDim.x +
// threadIdx.x, which HIP 5.2's headers make of ockl calls) gets a plain
// add behind the one-dimensional launch test (the dispatch packet's grid
// sizes in y and z); one address for every thread (w[0], w[1], a
// grid-stride loop's scalar) is summed per thread and, where the gradient
// returns, across the wavefront of 64 by six ds_bpermute shuffles under
// the exec mask (a ballot of true), in LDS between two barriers, and by
// one atomic per block; a neighbour gets atomic adds, and
// -zymase-gpu-all-atomic makes every add atomic.
// REQUIRES: hip
// RUN: %clang -x hip --cuda-device-only --offload-arch=gfx90a -D__AMDGCN_WAVEFRONT_SIZE=64 -nogpulib -O2 -S -emit-llvm %s -o %t.ll -Xclang -load -Xclang %plugin -mllvm -zymase-print-cache 2> %t.report
// RUN: %FileCheck %s --check-prefix=OWNED < %t.ll
// RUN: %FileCheck %s --check-prefix=WAVE < %t.ll
// RUN: %FileCheck %s --check-prefix=REPORT < %t.report
// RUN: %clang -x hip --cuda-device-only --offload-arch=gfx90a -D__AMDGCN_WAVEFRONT_SIZE=64 -nogpulib -O0 -S -emit-llvm %s -o %t0.ll -Xclang -load -Xclang %plugin -mllvm -zymase-print-cache 2> %t0.report
// RUN: %FileCheck %s --check-prefix=OWNED < %t0.ll
// RUN: %FileCheck %s --check-prefix=WAVE < %t0.ll
// RUN: %FileCheck %s --check-prefix=NEIGHBOUR < %t0.ll
// RUN: %FileCheck %s --check-prefix=REPORT < %t0.report
// -zymase-gpu-all-atomic (for comparisons): atomic adds only.
// RUN: %clang -x hip --cuda-device-only --offload-arch=gfx90a -D__AMDGCN_WAVEFRONT_SIZE=64 -nogpulib -O2 -S -emit-llvm %s -o - -Xclang -load -Xclang %plugin -mllvm -zymase-gpu-all-atomic | %FileCheck %s --check-prefix=ALL

#include <hip/hip_runtime.h>

extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

// ALL-NOT: @llvm.amdgcn.ds.bpermute
// ALL-NOT: @llvm.amdgcn.ballot
// ALL-NOT: @llvm.amdgcn.dispatch.ptr
// ALL: atomicrmw fadd
// ALL-NOT: @llvm.amdgcn.ds.bpermute
// ALL-NOT: @llvm.amdgcn.ballot
// ALL-NOT: @llvm.amdgcn.dispatch.ptr

// OWNED-LABEL: define internal void @__zymase_grad._Z5owned
// OWNED: call {{.*}}ptr addrspace(4) @llvm.amdgcn.dispatch.ptr()
// OWNED: [[ONE:%.*]] = icmp eq i32 %{{.*}}, 1
// OWNED-NEXT: br i1 [[ONE]], label %[[PLAIN:.*]], label %[[ATOMIC:.*]]
// OWNED: [[PLAIN]]:
// OWNED-NOT: atomicrmw
// OWNED: store double
// OWNED: [[ATOMIC]]:
// OWNED-NEXT: atomicrmw fadd ptr {{.*}}, double
// OWNED-LABEL: define
// REPORT-LABEL: gradient of '_Z5owned
// REPORT: shadow plainly (an element only this thread reads
__device__ void owned(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = sin(x[i]) * x[i];
}
__global__ void k_owned(const double *x, double *dx, double *y, double *dy,
                        int n) {
  __enzyme_autodiff((void *)owned, enzyme_dup, x, dx, enzyme_dup, y, dy,
                    enzyme_const, n);
}

// WAVE-LABEL: define internal {{.*}} @__zymase_grad._Z3fit
// WAVE: [[MASK:%.*]] = {{.*}}call i64 @llvm.amdgcn.ballot.i64(i1 true)
// WAVE: @llvm.ctpop.i64(i64 [[MASK]])
// WAVE: @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)
// WAVE: @llvm.amdgcn.mbcnt.hi(i32 -1,
// WAVE-COUNT-12: call i32 @llvm.amdgcn.ds.bpermute(
// WAVE-NOT: @llvm.amdgcn.ds.bpermute(
// WAVE: atomicrmw fadd ptr {{.*}}, double
// WAVE: store double {{.*}}, ptr addrspace(3)
// WAVE: fence release
// WAVE-NEXT: call void @llvm.amdgcn.s.barrier()
// WAVE-NEXT: fence acquire
// WAVE: load double, ptr addrspace(3)
// WAVE: atomicrmw fadd ptr {{.*}}, double
// WAVE: call void @llvm.amdgcn.s.barrier()
// REPORT-LABEL: gradient of '_Z3fit
// REPORT: shadow summed per thread, then at the return by warp and block sums and one atomic add per block
// REPORT: shadow summed per thread, then at the return by warp and block sums and one atomic add per block
__device__ double fit(const double *w, const double *t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double r = w[0] * t[i] + w[1] - t[i] * t[i];
  return r * r;
}
__global__ void k_fit(const double *w, double *dw, const double *t) {
  __enzyme_autodiff((void *)fit, enzyme_dup, w, dw, enzyme_const, t);
}

// The scalar and the elements of a grid-stride loop (its step,
// blockDim.x * gridDim.x, is __ockl_get_global_size(0) computed in the
// loop).
// REPORT-LABEL: gradient of '_Z6strideP
// REPORT-DAG: shadow plainly (an element only this thread reads
// REPORT-DAG: shadow summed per thread, then at the return by warp and block sums
__device__ void stride(const double *__restrict__ x, double *__restrict__ y,
                       const double *__restrict__ a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += blockDim.x * gridDim.x)
    y[i] = a[0] * x[i];
}
__global__ void k_stride(const double *x, double *dx, double *y, double *dy,
                         const double *a, double *da, int n) {
  __enzyme_autodiff((void *)stride, enzyme_dup, x, dx, enzyme_dup, y, dy,
                    enzyme_dup, a, da, enzyme_const, n);
}

// (At -O2 this gradient is inlined into its kernel: checked at -O0.)
// NEIGHBOUR-LABEL: define internal void @__zymase_grad._Z9neighbour
// NEIGHBOUR-NOT: ds.bpermute
// NEIGHBOUR-NOT: dispatch.ptr
// NEIGHBOUR: atomicrmw fadd ptr {{.*}}, double
// NEIGHBOUR: atomicrmw fadd ptr {{.*}}, double
// NEIGHBOUR: {{^}$}}
// REPORT-LABEL: gradient of '_Z9neighbour
// REPORT: shadow atomically
__device__ void neighbour(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 < n)
    y[i] = x[i] * x[i + 1];
}
__global__ void k_neighbour(const double *x, double *dx, double *y,
                            double *dy, int n) {
  __enzyme_autodiff((void *)neighbour, enzyme_dup, x, dx, enzyme_dup, y, dy,
                    enzyme_const, n);
}
