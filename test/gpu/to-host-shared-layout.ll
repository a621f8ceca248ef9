; Each kernel's __shared__ variables laid out on their own: variables no
; kernel uses together overlap (both kernels' first variable at offset 0),
; a variable two kernels reach (through a device function they both call)
; comes after both kernels' others, and each kernel is registered with
; the static bytes it reaches, not the sum of the file's.
; RUN: %opt -passes=zymase-gpu-to-host -zymase-gpu-module-id=u %s -S | %FileCheck %s
target datalayout = "e-p6:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@a = internal addrspace(3) global [100 x double] undef, align 8
@b = internal addrspace(3) global [10 x i32] undef, align 4
@both = internal addrspace(3) global i32 undef, align 4

; CHECK-LABEL: define internal void @helper(
; CHECK: %both = call ptr addrspace(3) @__zy_gpu_shared(i64 800)
define void @helper(i32 %v) {
  store i32 %v, ptr addrspace(3) @both, align 4
  ret void
}

; CHECK-LABEL: define internal void @ka(
; CHECK: %a = call ptr addrspace(3) @__zy_gpu_shared(i64 0)
define ptx_kernel void @ka(i32 %v) {
  store double 1.0, ptr addrspace(3) @a, align 8
  call void @helper(i32 %v)
  ret void
}

; CHECK-LABEL: define internal void @kb(
; CHECK: %b = call ptr addrspace(3) @__zy_gpu_shared(i64 0)
define ptx_kernel void @kb(i32 %v) {
  store i32 %v, ptr addrspace(3) @b, align 4
  call void @helper(i32 %v)
  ret void
}

; CHECK-LABEL: define internal void @__zy_gpu_register()
; CHECK: call void @__zy_gpu_register_kernel(ptr @{{[^,]+}}, ptr @{{.*}}, ptr @__zy_gpu_entry.ka, i64 804, i64 0)
; CHECK: call void @__zy_gpu_register_kernel(ptr @{{[^,]+}}, ptr @{{.*}}, ptr @__zy_gpu_entry.kb, i64 804, i64 0)
