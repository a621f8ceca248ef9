// The device IR of each accumulation class (parallel/gpu_accumulate.c) and
// the cache report's line for it: a thread-owned element (x[i], i the
// grid's thread number) gets a plain add behind the one-dimensional
// launch test; one address for every thread (w[0], w[1], a grid-stride
// loop's scalar) is summed per thread and, where the gradient returns,
// across the warp by shuffles and the block in shared memory between two
// barriers (no second barrier after the gradient's last sum), then added
// by one atomic per block (where it is read when the
// memory is also written); a neighbour (x[i+1]) or a
// per-thread index passed from the kernel gets an atomic add, and so does
// an element of a kernel making two gradient calls.
// REQUIRES: cuda
// RUN: %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O2 -S -emit-llvm %s -o %t.ll -mllvm -zymase-print-cache 2> %t.report
// RUN: %FileCheck %s --check-prefix=OWNED < %t.ll
// RUN: %FileCheck %s --check-prefix=WARP < %t.ll
// RUN: %FileCheck %s --check-prefix=SHARED < %t.ll
// RUN: %FileCheck %s --check-prefix=ARG < %t.ll
// RUN: %FileCheck %s --check-prefix=BLOCK < %t.ll
// RUN: %FileCheck %s --check-prefix=OTHER < %t.ll
// RUN: %FileCheck %s --check-prefix=REPORT < %t.report
// -zymase-gpu-all-atomic (for comparisons): atomic adds only.
// RUN: %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O2 -S -emit-llvm %s -o - -mllvm -zymase-gpu-all-atomic | %FileCheck %s --check-prefix=ALL
// RUN: %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O0 -S -emit-llvm %s -o %t0.ll
// RUN: %FileCheck %s --check-prefix=OWNED < %t0.ll
// RUN: %FileCheck %s --check-prefix=WARP < %t0.ll
// RUN: %FileCheck %s --check-prefix=SHARED < %t0.ll
// RUN: %FileCheck %s --check-prefix=ARG < %t0.ll
// RUN: %FileCheck %s --check-prefix=BLOCK < %t0.ll
// RUN: %FileCheck %s --check-prefix=OTHER < %t0.ll

extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

// ALL-NOT: @llvm.nvvm.shfl.sync
// ALL-NOT: @llvm.nvvm.read.ptx.sreg.nctaid.z
// ALL: atomicrmw fadd
// ALL-NOT: @llvm.nvvm.shfl.sync
// ALL-NOT: @llvm.nvvm.read.ptx.sreg.nctaid.z
// OWNED-LABEL: define internal void @__zymase_grad._Z5owned
// OWNED: call i32 @llvm.nvvm.read.ptx.sreg.nctaid.z()
// OWNED-NEXT: mul
// OWNED-NEXT: [[ONE:%.*]] = icmp eq i32 %{{.*}}, 1
// OWNED-NEXT: br i1 [[ONE]], label %[[PLAIN:.*]], label %[[ATOMIC:.*]]
// OWNED: [[PLAIN]]:
// OWNED-NOT: atomicrmw
// OWNED: store double
// OWNED: [[ATOMIC]]:
// OWNED-NEXT: atomicrmw fadd ptr {{.*}}, double
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

// WARP-LABEL: define internal {{.*}} @__zymase_grad._Z3fit
// WARP: [[MASK:%.*]] = {{.*}}call i32 @llvm.nvvm.activemask()
// WARP: @llvm.ctpop.i32(i32 [[MASK]])
// WARP: call i32 @llvm.nvvm.shfl.sync.down.i32(i32 [[MASK]], i32 {{.*}}, i32 16, i32 31)
// WARP: call i32 @llvm.nvvm.shfl.sync.down.i32(i32 [[MASK]], i32 {{.*}}, i32 1, i32 31)
// WARP: atomicrmw fadd ptr {{.*}}, double
// WARP: store double {{.*}}, ptr addrspace(3)
// WARP: call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
// WARP: load double, ptr addrspace(3)
// WARP: atomicrmw fadd ptr {{.*}}, double
// WARP: call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
// The second sum, the gradient's last: no barrier after its atomic.
// WARP: store double {{.*}}, ptr addrspace(3)
// WARP: call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
// WARP: load double, ptr addrspace(3)
// WARP: atomicrmw fadd ptr {{.*}}, double
// WARP-NOT: @llvm.nvvm.barrier
// WARP: ret
// REPORT-LABEL: gradient of '_Z3fit
// REPORT: shadow summed per thread, then at the return by warp and block sums and one atomic add per block
__device__ double fit(const double *w, const double *t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double r = w[0] * t[i] + w[1] - t[i] * t[i];
  return r * r;
}
__global__ void k_fit(const double *w, double *dw, const double *t) {
  __enzyme_autodiff((void *)fit, enzyme_dup, w, dw, enzyme_const, t);
}

// SHARED-LABEL: define internal void @__zymase_grad._Z9neighbour
// SHARED-NOT: nctaid.z
// SHARED-NOT: shfl.sync
// SHARED: atomicrmw fadd ptr {{.*}}, double
// SHARED: ret void
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

// w is written too (by thread 0): the adjoints of w[0], w[1] cannot wait
// for the return (the reverse of the store reads the shadow), so they are
// summed where they are read.
// BLOCK-LABEL: define internal {{.*}} @__zymase_grad._Z4fitw
// BLOCK: call i32 @llvm.nvvm.shfl.sync.down.i32(i32 {{.*}}, i32 16, i32 31)
// BLOCK: call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
// BLOCK: atomicrmw fadd ptr {{.*}}, double
// REPORT-LABEL: gradient of '_Z4fitw
// REPORT: shadow by warp and block sums, then one atomic add per block
__device__ double fitw(double *w, const double *t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double r = w[0] * t[i] + w[1] - t[i] * t[i];
  if (i == 0)
    w[2] = 0;
  return r * r;
}
__global__ void k_fitw(double *w, double *dw, const double *t) {
  __enzyme_autodiff((void *)fitw, enzyme_dup, w, dw, enzyme_const, t);
}

// Threads past n return early: w[0], w[1] read under the bounds test are
// still summed at the return, where every thread passes.
// REPORT-LABEL: gradient of '_Z5fit_n
// REPORT: shadow summed per thread, then at the return by warp and block sums
// REPORT: shadow summed per thread, then at the return by warp and block sums
__device__ double fit_n(const double *w, const double *t, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return 0;
  double r = w[0] * t[i] + w[1] - t[i] * t[i];
  return r * r;
}
__global__ void k_fit_n(const double *w, double *dw, const double *t, int n) {
  __enzyme_autodiff((void *)fit_n, enzyme_dup, w, dw, enzyme_const, t,
                    enzyme_const, n);
}

// The scalar of a grid-stride loop: summed over the thread's iterations.
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

// The index comes from the kernel: nothing is known inside.
// ARG-LABEL: define internal void @__zymase_grad._Z6by_arg
// ARG-NOT: nctaid.z
// ARG: atomicrmw fadd ptr {{.*}}, double
// ARG: ret void
// REPORT-LABEL: gradient of '_Z6by_arg
// REPORT: shadow atomically
__device__ void by_arg(const double *x, double *y, int i) {
  y[i] = sin(x[i]);
}
__global__ void k_by_arg(const double *x, double *dx, double *y, double *dy,
                         int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    __enzyme_autodiff((void *)by_arg, enzyme_dup, x, dx, enzyme_dup, y, dy,
                      enzyme_const, i);
}

// A kernel that also makes another gradient call (here through a helper)
// may add to the same shadows at the same time: atomic.
// OTHER-LABEL: define internal void @__zymase_grad._Z6owned2
// OTHER-NOT: nctaid.z
// OTHER: atomicrmw fadd ptr {{.*}}, double
// REPORT-LABEL: gradient of '_Z6owned2
// REPORT: shadow atomically
__device__ void owned2(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = sin(x[i]) * x[i];
}
__device__ void helper(const double *x, double *dx, double *y, double *dy,
                       int n) {
  __enzyme_autodiff((void *)neighbour, enzyme_dup, x, dx, enzyme_dup, y, dy,
                    enzyme_const, n);
}
__global__ void k_owned2(const double *x, double *dx, double *y, double *dy,
                         int n) {
  __enzyme_autodiff((void *)owned2, enzyme_dup, x, dx, enzyme_dup, y, dy,
                    enzyme_const, n);
  helper(x, dx, y, dy, n);
}
