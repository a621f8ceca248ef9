; The pass zymase-gpu-to-host on HIP device IR (amdgcn): work-item
; intrinsics and ockl functions, s_barrier, ds_bpermute and the ballot
; (llvm.amdgcn.icmp) become runtime calls; private allocas (address space
; 5) become host allocas cast to it; an aggregate passed byref in the
; constant space is passed by pointer; their lifetime markers (which must
; name an alloca) are dropped; amdgpu_kernel kernels are
; registered with warps of 64 lanes (flags 3: synchronizes, wave64; 2:
; wave64 only); the hidden ockl declarations get default visibility.
; What cannot run is refused: an amdgcn intrinsic or ockl function
; without a CPU version, and inline AMDGPU assembly.
; RUN: %opt -passes=zymase-gpu-to-host -zymase-gpu-module-id=unit-9 %s -S | %FileCheck %s
; RUN: sed 's/;BAD //' %s | %not %opt -passes=zymase-gpu-to-host -disable-output 2>&1 | %FileCheck %s --check-prefix=BAD
; RUN: sed 's/;ASM //' %s | %not %opt -passes=zymase-gpu-to-host -disable-output 2>&1 | %FileCheck %s --check-prefix=ASM
target datalayout = "e-m:e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128:128:48-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"

%struct.P = type { i32, double }

; CHECK-NOT: target triple = "amdgcn
; CHECK-LABEL: define internal void @k(
; CHECK: %t = alloca i32, align 4
; CHECK-NEXT: addrspacecast ptr %t to ptr addrspace(5)
; CHECK-NOT: llvm.lifetime
; CHECK: call i32 @__zy_gpu_tid_x()
; CHECK: call i64 @__zy_gpu_ockl_local_size(i32 0)
; CHECK: call void @__zy_gpu_barrier()
; CHECK: call i32 @__zy_gpu_mbcnt_lo(i32 -1, i32 0)
; CHECK: call i32 @__zy_gpu_ds_bpermute(
; CHECK: call i64 @__zy_gpu_amd_icmp_i32(
define amdgpu_kernel void @k(ptr addrspace(1) %out, ptr addrspace(4) byref(%struct.P) align 8 %p) {
  %t = alloca i32, align 4, addrspace(5)
  call void @llvm.lifetime.start.p5(i64 4, ptr addrspace(5) %t)
  %x = call i32 @llvm.amdgcn.workitem.id.x()
  store i32 %x, ptr addrspace(5) %t, align 4
  %bd = call i64 @__ockl_get_local_size(i32 0)
  call void @llvm.amdgcn.s.barrier()
  %l = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)
  %a = shl i32 %l, 2
  %v = load i32, ptr addrspace(5) %t, align 4
  %s = call i32 @llvm.amdgcn.ds.bpermute(i32 %a, i32 %v)
  %b = call i64 @llvm.amdgcn.icmp.i64.i32(i32 %s, i32 0, i32 33)
  %pv = load i32, ptr addrspace(4) %p, align 8
  %r = add i32 %s, %pv
  store i32 %r, ptr addrspace(1) %out, align 4
  call void @llvm.lifetime.end.p5(i64 4, ptr addrspace(5) %t)
  ret void
}

; CHECK-LABEL: define internal void @plain(
define amdgpu_kernel void @plain(ptr addrspace(1) %out) {
  %x = call i32 @llvm.amdgcn.workgroup.id.x()
  store i32 %x, ptr addrspace(1) %out, align 4
  ret void
}

;BAD define void @halting() {
;BAD   call void @llvm.amdgcn.s.sethalt(i32 1)
;BAD   ret void
;BAD }
;BAD declare void @llvm.amdgcn.s.sethalt(i32)
;ASM define void @sleepy() {
;ASM   call void asm sideeffect "s_sleep 2", ""()
;ASM   ret void
;ASM }

; CHECK: declare i64 @__zy_gpu_ockl_local_size(i32)
; CHECK-LABEL: define internal void @__zy_gpu_register(
; CHECK: call void @__zy_gpu_register_kernel({{.*}}@__zy_gpu_entry.k, i64 0, i64 3)
; CHECK: call void @__zy_gpu_register_kernel({{.*}}@__zy_gpu_entry.plain, i64 0, i64 2)
; The byref aggregate: its pointer, cast to the constant space.
; CHECK-LABEL: define internal void @__zy_gpu_entry.k(
; CHECK: %[[P:[0-9]+]] = load ptr, ptr %4
; CHECK: addrspacecast ptr %[[P]] to ptr addrspace(4)
; BAD: error: {{.*}}[zymase:gpu] 'halting': llvm.amdgcn.s.sethalt has no CPU version (in GPU-on-CPU mode)
; ASM: error: {{.*}}[zymase:gpu] 'sleepy': inline AMDGPU assembly 's_sleep 2' cannot run on the CPU (in GPU-on-CPU mode)

declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.workgroup.id.x()
declare hidden i64 @__ockl_get_local_size(i32)
declare void @llvm.amdgcn.s.barrier()
declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)
declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)
declare i64 @llvm.amdgcn.icmp.i64.i32(i32, i32, i32 immarg)
declare void @llvm.lifetime.start.p5(i64, ptr addrspace(5))
declare void @llvm.lifetime.end.p5(i64, ptr addrspace(5))
