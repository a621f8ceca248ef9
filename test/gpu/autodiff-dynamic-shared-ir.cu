// The device IR of a gradient through dynamic (extern) __shared__ memory
// (parallel/gpu_dynamic_shared.c): after the entry's barrier, thread 0
// allocates the shadow (the launch's %dynamic_smem_size in 8-byte words,
// through zymase.gpu.cache.alloc, whose failure message names the
// function) and stores it in a __shared__ slot; after a barrier every
// thread loads it and the block zeroes it, then a barrier; the shadow's
// updates are generic (never shared-space) atomics; before the return a
// barrier, then thread 0 frees it.  Two extern arrays of one function are
// one in the gradient.  The cache report says where the shadow lives.
// REQUIRES: cuda
// RUN: %clang -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudalib --cuda-path=/usr/local/cuda -Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version -O2 -S -emit-llvm %s -o %t.ll -mllvm -zymase-print-cache 2> %t.report
// RUN: %FileCheck %s --check-prefix=ENTRY < %t.ll
// RUN: %FileCheck %s --check-prefix=FREE < %t.ll
// RUN: %FileCheck %s --check-prefix=ATOMIC < %t.ll
// RUN: %FileCheck %s --check-prefix=MSG < %t.ll
// RUN: %FileCheck %s --check-prefix=TWO < %t.ll
// RUN: %FileCheck %s --check-prefix=REPORT < %t.report

extern __device__ int enzyme_dup, enzyme_const;
extern __device__ void __enzyme_autodiff(void *, ...);

// MSG: @zymase.gpu.heap.msg{{.*}} = {{.*}}c"zymase: device malloc for the shadow of the dynamic __shared__ memory in the gradient of '_Z4tilePKdPd' failed (raise cudaLimitMallocHeapSize)\00"

// ENTRY-LABEL: define internal void @__zymase_grad._Z4tilePKdPd
// ENTRY-NEXT: tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
// ENTRY: [[BYTES:%.*]] = tail call i32 @llvm.nvvm.read.ptx.sreg.dynamic_smem_size()
// ENTRY: [[WORDS:%.*]] = lshr i64 {{.*}}, 3
// ENTRY: [[T0:%.*]] = icmp eq i32 {{.*}}, 0
// ENTRY-NEXT: br i1 [[T0]], label %[[ALLOC:[0-9]+]], label %[[SYNC:[0-9]+]]
// ENTRY: {{^}}[[SYNC]]:
// ENTRY-NEXT: tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
// ENTRY-NEXT: [[SH:%.*]] = load ptr, ptr addrspace(3) @zymase.dynshared.shadow
// ENTRY: {{^}}[[ALLOC]]:
// ENTRY-NEXT: [[ONE:%.*]] = tail call i64 @llvm.umax.i64(i64 [[WORDS]], i64 1)
// ENTRY-NEXT: [[SIZE:%.*]] = shl nuw nsw i64 [[ONE]], 3
// ENTRY-NEXT: [[BUF:%.*]] = tail call ptr @zymase.gpu.cache.alloc(i64 [[SIZE]], ptr nonnull @zymase.gpu.heap.msg)
// ENTRY-NEXT: store ptr [[BUF]], ptr addrspace(3) @zymase.dynshared.shadow
// ENTRY-NEXT: br label %[[SYNC]]
// ENTRY: getelementptr i64, ptr [[SH]], i64
// ENTRY-NEXT: store i64 0
// ENTRY: icmp {{.*}} i64 {{.*}}, [[WORDS]]

// FREE-LABEL: define internal void @__zymase_grad._Z4tilePKdPd
// FREE: [[T0:%.*]] = icmp eq i32 {{.*}}, 0
// FREE: [[SH:%.*]] = load ptr, ptr addrspace(3) @zymase.dynshared.shadow
// FREE: tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
// FREE-NEXT: load double
// FREE: tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
// FREE-NEXT: br i1 [[T0]], label %[[DEL:[0-9]+]], label %[[DONE:[0-9]+]]
// FREE: {{^}}[[DEL]]:
// FREE-NEXT: tail call void @free(ptr nonnull [[SH]])
// FREE: {{^}}[[DONE]]:
// FREE-NEXT: ret void

// ATOMIC-LABEL: define internal void @__zymase_grad._Z4tilePKdPd
// ATOMIC-NOT: atomicrmw {{.*}}addrspace(3)
// ATOMIC: [[SH:%.*]] = load ptr, ptr addrspace(3) @zymase.dynshared.shadow
// ATOMIC-NOT: atomicrmw {{.*}}addrspace(3)
// ATOMIC: [[AT:%.*]] = getelementptr inbounds nuw double, ptr [[SH]], i64
// ATOMIC-NEXT: atomicrmw fadd ptr [[AT]], double
// ATOMIC-NOT: atomicrmw {{.*}}addrspace(3)
// ATOMIC: {{^}}}
__device__ void tile(const double *x, double *y) {
  extern __shared__ double s[];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = x[i];
  __syncthreads();
  y[i] = s[t] * s[(t + 1) % blockDim.x];
}
__global__ void tile_gradient(const double *x, double *dx, double *y,
                              double *dy) {
  __enzyme_autodiff((void *)tile, enzyme_dup, x, dx, enzyme_dup, y, dy);
}

// TWO-LABEL: define internal void @__zymase_grad._Z3twoPKdPKfPd
// TWO-NOT: @b
// TWO: addrspacecast (ptr addrspace(3) @a to ptr)
// TWO-NOT: @b
// TWO: {{^}}}
__device__ void two(const double *x, const float *v, double *y) {
  extern __shared__ double a[];
  extern __shared__ float b[];
  int t = threadIdx.x, n = blockDim.x, i = blockIdx.x * n + t;
  a[t] = x[i];
  b[2 * n + t] = v[i];
  __syncthreads();
  y[i] = a[(t + 1) % n] * b[2 * n + (t + n - 1) % n];
}
__global__ void two_gradient(const double *x, double *dx, const float *v,
                             float *dv, double *y, double *dy) {
  __enzyme_autodiff((void *)two, enzyme_dup, x, dx, enzyme_dup, v, dv,
                    enzyme_dup, y, dy);
}

// REPORT-LABEL: gradient of '_Z4tilePKdPd'
// REPORT: @s: its shadow (all dynamic __shared__ memory) in device malloc per block, the launch's dynamic shared bytes, zeroed on entry and freed at the return
