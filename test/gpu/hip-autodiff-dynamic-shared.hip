// HIP device AD through dynamic (extern) __shared__ memory: the kernels
// and checks of autodiff-dynamic-shared.cu (a stencil on a tile with a
// halo in float and double, a tree reduction, two extern arrays of one
// function; closed forms and central differences of the primal kernels)
// on warps of 64, blocks of 48 (a partial wavefront), 96 and 128.  The
// shadow's size is code object v5's hidden_dynamic_lds_size (byte 120 of
// the hidden arguments), its buffer from ockl's dm_alloc through
// zymase.gpu.cache.alloc, freed by dm_dealloc; at -O2 HIP's optimizer
// has made the accesses shared-space (address space 3) pointers, which
// the pass makes generic again before AD, so the shadow's atomics are
// generic too.
// REQUIRES: hip
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
// RUN: %if tsan %{ %gpu-clang -O1 -g -fsanitize=thread %s -o %tt && env TSAN_OPTIONS=halt_on_error=1:exitcode=66 %tt %}
// RUN: %clang -Xclang -load -Xclang %plugin -x hip --cuda-device-only --offload-arch=gfx90a -D__AMDGCN_WAVEFRONT_SIZE=64 -nogpulib -O2 -S -emit-llvm %s -o %t.ll
// RUN: %FileCheck %s < %t.ll
#include "hip-check.h"

#define cudaGetLastError hipGetLastError
#define cudaMemset hipMemset
#define cudaFree hipFree
#define BLOCK_SIZES 48, 96, 128
#include "autodiff-dynamic-shared.cu"

// CHECK-LABEL: define internal void @__zymase_grad._Z9block_sumPKdPd
// CHECK: [[IMP:%.*]] = tail call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()
// CHECK-NEXT: [[AT:%.*]] = getelementptr i8, ptr addrspace(4) [[IMP]], i64 120
// CHECK-NEXT: load i32, ptr addrspace(4) [[AT]], align 4
// CHECK-NOT: atomicrmw {{.*}}addrspace(3)
// CHECK: [[SH:%.*]] = load ptr, ptr addrspace(3) @zymase.dynshared.shadow
// CHECK-NOT: atomicrmw {{.*}}addrspace(3)
// CHECK: call void @zymase.gpu.cache.free(ptr nonnull [[SH]])
// CHECK-NOT: atomicrmw {{.*}}addrspace(3)
// CHECK: [[BUF:%.*]] = tail call ptr @zymase.gpu.cache.alloc(i64 {{.*}}, ptr nonnull @zymase.gpu.heap.msg
// CHECK-NEXT: store ptr [[BUF]], ptr addrspace(3) @zymase.dynshared.shadow
// CHECK: {{^}}}
// CHECK-LABEL: define internal ptr @zymase.gpu.cache.alloc(
// CHECK: call i64 @__ockl_dm_alloc
// CHECK-LABEL: define internal void @zymase.gpu.cache.free(
// CHECK: call void @__ockl_dm_dealloc
