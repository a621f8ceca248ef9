; zymase-gpu-to-host -zymase-gpu-count-atomics: a relaxed increment of the
; runtime's counter __zy_gpu_atomics before each atomicrmw and cmpxchg of
; device code (none before plain loads and stores); without the option
; nothing is added.
; RUN: %opt -passes=zymase-gpu-to-host -zymase-gpu-count-atomics %s -S | %FileCheck %s
; RUN: %opt -passes=zymase-gpu-to-host %s -S | %FileCheck %s --check-prefix=OFF
target datalayout = "e-p6:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; CHECK: @__zy_gpu_atomics = external global i64
; OFF-NOT: __zy_gpu_atomics

; CHECK-LABEL: define internal void @k(
; CHECK-NEXT: store double
; CHECK-NEXT: atomicrmw add ptr @__zy_gpu_atomics, i64 1 monotonic
; CHECK-NEXT: atomicrmw fadd ptr addrspace(1) %p, double 1.0
; CHECK-NEXT: atomicrmw add ptr @__zy_gpu_atomics, i64 1 monotonic
; CHECK-NEXT: cmpxchg ptr %q, i32 0, i32 1
; CHECK-NEXT: load i32
; CHECK-NEXT: ret void
define ptx_kernel void @k(ptr addrspace(1) %p, ptr %q) {
  store double 2.0, ptr addrspace(1) %p
  %a = atomicrmw fadd ptr addrspace(1) %p, double 1.0 seq_cst
  %b = cmpxchg ptr %q, i32 0, i32 1 seq_cst seq_cst
  %c = load i32, ptr %q
  ret void
}
