; The pass zymase-gpu-to-host on device IR: special registers, barriers and
; shuffles become runtime calls, __shared__ variables offsets into the
; block's arena (the extern one offset ~0: the runtime puts it after the
; running kernel's static ones, 16-byte aligned; each kernel registered
; with the static bytes it reaches),
; kernels (ptx_kernel, or named in !nvvm.annotations) C functions with an
; entry taking the argument array (byval arguments passed by pointer),
; __constant__ memory writable, every definition internal, and a
; constructor registers kernels and variables.  The module gets the host's
; triple.  %dynamic_smem_size reads the launch's dynamic shared bytes.
; RUN: %opt -passes=zymase-gpu-to-host -zymase-gpu-module-id=unit-7 %s -S | %FileCheck %s
target datalayout = "e-p6:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

%struct.P = type { i32, double }

@small = internal addrspace(3) global i32 undef, align 4
@tile = internal addrspace(3) global [10 x double] undef, align 8
@dyn = external addrspace(3) global [0 x float], align 4
@coef = addrspace(4) externally_initialized constant [4 x double] zeroinitializer, align 8
@count = addrspace(1) externally_initialized global i32 0, align 4

; CHECK-NOT: target triple = "nvptx
; CHECK-DAG: @coef = internal addrspace(4) externally_initialized global [4 x double]
; CHECK-DAG: @count = internal addrspace(1) externally_initialized global i32 0
; CHECK-DAG: @llvm.global_ctors = {{.*}} @__zy_gpu_register
; CHECK-DAG: = private unnamed_addr constant [7 x i8] c"unit-7\00"

; CHECK-LABEL: define internal void @k(
; CHECK-DAG: %small = call ptr addrspace(3) @__zy_gpu_shared(i64 0)
; CHECK-DAG: %tile = call ptr addrspace(3) @__zy_gpu_shared(i64 8)
; CHECK-DAG: %dyn = call ptr addrspace(3) @__zy_gpu_shared(i64 -1)
; CHECK: call i32 @__zy_gpu_tid_x()
; CHECK: call void @__zy_gpu_barrier_n(i32 0)
; CHECK: call float @__zy_gpu_shfl_down_f32(i32 -1, float %v, i32 1, i32 31)
define ptx_kernel void @k(ptr %out, i32 %n, ptr byval(%struct.P) %p) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  store i32 %t, ptr addrspace(3) @small, align 4
  %e = getelementptr [10 x double], ptr addrspace(3) @tile, i32 0, i32 3
  store double 1.0, ptr addrspace(3) %e, align 8
  %d = addrspacecast ptr addrspace(3) @dyn to ptr
  %f = load float, ptr %d, align 4
  call void @llvm.nvvm.barrier.sync(i32 0)
  %v = fadd float %f, 1.0
  %s = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %v, i32 1, i32 31)
  store float %s, ptr %out, align 4
  ret void
}

; LLVM 22 reads barrier0 as barrier.cta.sync.aligned.all(0).
; CHECK-LABEL: define internal void @old_style(
; CHECK: call void @__zy_gpu_barrier{{(_n\(i32 0\)|\(\))}}
define void @old_style(ptr %x) {
  call void @llvm.nvvm.barrier0()
  ret void
}

; The launch's dynamic shared bytes (%dynamic_smem_size; the size of the
; shadow of extern __shared__ memory in device gradients).
; CHECK-LABEL: define internal i32 @dynamic_bytes(
; CHECK: call i32 @__zy_gpu_dynamic_smem_size()
define i32 @dynamic_bytes() {
  %n = call i32 @llvm.nvvm.read.ptx.sreg.dynamic_smem_size()
  ret i32 %n
}

; A kernel that synchronizes nothing is registered as such (flag 0).
define ptx_kernel void @plain(ptr %o) {
  store i32 1, ptr %o, align 4
  ret void
}

; CHECK: declare void @__zy_gpu_barrier_n(i32) #[[SYNC:[0-9]+]]

; CHECK-LABEL: define internal void @__zy_gpu_register()
; CHECK: call void @__zy_gpu_register_kernel(ptr @[[UNIT:[^,]+]], ptr @{{.*}}, ptr @__zy_gpu_entry.k, i64 88, i64 1)
; CHECK: call void @__zy_gpu_register_kernel(ptr @[[UNIT]], ptr @{{.*}}, ptr @__zy_gpu_entry.old_style, i64 0, i64 1)
; CHECK: call void @__zy_gpu_register_kernel(ptr @[[UNIT]], ptr @{{.*}}, ptr @__zy_gpu_entry.plain, i64 0, i64 0)
; CHECK: call void @__zy_gpu_register_var(ptr @[[UNIT]], ptr @{{.*}}, ptr addrspacecast (ptr addrspace(4) @coef to ptr), i64 32)
; CHECK: call void @__zy_gpu_register_var(ptr @[[UNIT]], ptr @{{.*}}, ptr addrspacecast (ptr addrspace(1) @count to ptr), i64 4)

; CHECK-LABEL: define internal void @__zy_gpu_entry.k(ptr %0)
; CHECK: %[[A0:[0-9]+]] = load ptr, ptr
; CHECK: %[[OUT:[0-9]+]] = load ptr, ptr %[[A0]]
; CHECK: %[[A1:[0-9]+]] = load ptr, ptr
; CHECK: %[[N:[0-9]+]] = load i32, ptr %[[A1]]
; CHECK: %[[A2:[0-9]+]] = load ptr, ptr
; CHECK: call void @k(ptr %[[OUT]], i32 %[[N]], ptr %[[A2]])

; CHECK: attributes #[[SYNC]] = { convergent nounwind }

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.dynamic_smem_size()
declare void @llvm.nvvm.barrier.sync(i32)
declare void @llvm.nvvm.barrier0()
declare float @llvm.nvvm.shfl.sync.down.f32(i32, float, i32, i32)

!nvvm.annotations = !{!0}
!0 = !{ptr @old_style, !"kernel", i32 1}
