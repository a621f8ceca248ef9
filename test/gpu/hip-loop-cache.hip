// HIP device AD: the loop caches of autodiff-loop-cache.cu on amdgcn.
// Caches with a compile-time bound are allocas in the private address
// space (5) of each work-item; the others come from the device heap
// through ockl's dm_alloc and dm_dealloc (what HIP's malloc and free
// call), never realloc.  The numeric checks of the CUDA test (float and
// double, block sizes 32, 64, 100, 128, against central differences) run
// on warps of 64.
// REQUIRES: hip
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
// RUN: %if tsan %{ %gpu-clang -O1 -g -fsanitize=thread %s -o %tt && env TSAN_OPTIONS=halt_on_error=1:exitcode=66 %tt %}
// RUN: %clang -Xclang -load -Xclang %plugin -x hip --cuda-device-only --offload-arch=gfx90a -D__AMDGCN_WAVEFRONT_SIZE=64 -nogpulib -O2 -S -emit-llvm %s -o %t.ll -mllvm -zymase-print-cache 2> %t.report
// RUN: %FileCheck %s < %t.ll
// RUN: %FileCheck %s --check-prefix=REPORT < %t.report
#include "hip-check.h"

#define cudaGetLastError hipGetLastError
#define cudaDeviceSynchronize hipDeviceSynchronize
#define cudaFree hipFree
#include "autodiff-loop-cache.cu"

// CHECK-LABEL: define internal void @__zymase_grad._Z7d_constIdET_PKS0_S2_ii
// CHECK-NOT: {{^}}define
// CHECK: alloca [8 x double], align {{[0-9]+}}, addrspace(5)
// CHECK-NOT: @__ockl_dm_alloc
// CHECK-NOT: @malloc
// CHECK: {{^}}}
// CHECK-LABEL: define internal void @__zymase_grad._Z9d_dynamicIdET_PKS0_S2_ii
// CHECK-NOT: @realloc
// CHECK: call void @zymase.gpu.cache.free
// CHECK-NOT: @realloc
// CHECK: call ptr @zymase.gpu.cache.alloc
// CHECK-NOT: @realloc
// CHECK: {{^}}}
// CHECK-LABEL: define internal ptr @zymase.gpu.cache.alloc(i64
// CHECK: call i64 @__ockl_dm_alloc
// CHECK: call void @llvm.trap
// CHECK-LABEL: define internal void @zymase.gpu.cache.free(ptr
// CHECK: call void @__ockl_dm_dealloc
// REPORT-LABEL: cache of the gradient of '_Z7d_constIdET_PKS0_S2_ii'
// REPORT: fixed-size buffer in local memory (8 values per thread)
// REPORT-LABEL: cache of the gradient of '_Z9d_dynamicIdET_PKS0_S2_ii'
// REPORT: device malloc per thread, buffer reserved from the trip count
