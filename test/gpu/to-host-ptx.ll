; The inline PTX of CUDA's C++ libraries (CUB, Thrust, libcu++) made IR by
; the retargeting (lib/gpu/ptx_insn.c, ptx_ops.c): read-only and relaxed
; loads (a v2.u32 as one atomic 64-bit load, 128 bits through the
; runtime), relaxed stores, a shuffle with its lane predicate under a
; guard, a ballot, special registers, bmsk (folded for constants), a float
; literal, nanosleep and exit; a modifier it does not build (.sat) is
; refused, never dropped.
; RUN: sed '/add.sat/d' %s | %opt -passes=zymase-gpu-to-host -S | %FileCheck %s
; RUN: %not %opt -passes=zymase-gpu-to-host %s -disable-output 2>&1 | %FileCheck %s --check-prefix=SAT
target datalayout = "e-p6:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; CHECK-LABEL: define internal i64 @nc(
; CHECK: %{{.*}} = load i64, ptr %{{.*}}, align 8
define i64 @nc(i64 %p) {
  %v = call i64 asm sideeffect "ld.global.nc.u64 $0, [$1];", "=l,l"(i64 %p)
  ret i64 %v
}

; CHECK-LABEL: define internal { i32, i32 } @relaxed_pair(
; CHECK: load atomic i64, ptr %{{.*}} monotonic, align 8
define { i32, i32 } @relaxed_pair(ptr %p) {
  %v = call { i32, i32 } asm sideeffect "ld.relaxed.gpu.v2.u32 {$0, $1}, [$2];", "=r,=r,l,~{memory}"(ptr %p)
  ret { i32, i32 } %v
}

; CHECK-LABEL: define internal void @relaxed_store(
; CHECK: store atomic i64 %{{.*}}, ptr %{{.*}} monotonic, align 8
; CHECK: call void @__zy_gpu_st128(ptr %{{.*}}, ptr %{{.*}}, i32 0)
; CHECK: call void @__zy_gpu_ld128(ptr %{{.*}}, ptr %{{.*}}, i32 1)
define void @relaxed_store(ptr %p, i32 %a, i32 %b, i64 %c, i64 %d) {
  call void asm sideeffect "st.relaxed.gpu.v2.u32 [$0], {$1, $2};", "l,r,r,~{memory}"(ptr %p, i32 %a, i32 %b)
  call void asm sideeffect "st.relaxed.gpu.v2.u64 [$0], {$1, $2};", "l,l,l,~{memory}"(ptr %p, i64 %c, i64 %d)
  %v = call { i64, i64 } asm sideeffect "ld.acquire.gpu.v2.u64 {$0, $1}, [$2];", "=l,=l,l,~{memory}"(ptr %p)
  ret void
}

; CUB's inclusive warp scan step: shfl.sync.up with the predicate guarding
; the add.
; CHECK-LABEL: define internal i32 @scan_step(
; CHECK-DAG: call i32 @__zy_gpu_shfl_up_i32(i32 %mask, i32 %v, i32 %off, i32 %c)
; CHECK-DAG: call i32 @__zy_gpu_laneid()
; CHECK: select i1
define i32 @scan_step(i32 %v, i32 %off, i32 %c, i32 %x, i32 %mask) {
  %r = call i32 asm sideeffect "{  .reg .s32 r0;  .reg .pred p;  shfl.sync.up.b32 r0|p, $1, $2, $3, $5;  @p add.s32 r0, r0, $4;  mov.s32 $0, r0;}", "=r,r,r,r,r,r"(i32 %v, i32 %off, i32 %c, i32 %x, i32 %mask)
  ret i32 %r
}

; CHECK-LABEL: define internal i32 @ballot(
; CHECK: call i32 @__zy_gpu_vote_ballot(i32 -1, i1
define i32 @ballot(i32 %a, i32 %b) {
  %r = call i32 asm "{\0A .reg .pred p;\0A and.b32 $0, $1, $2; setp.ne.u32 p, $0, 0;\0A vote.ballot.sync.b32 $0, p, 0xffffffff;\0A @!p not.b32 $0, $0;\0A}\0A", "=r,r,r"(i32 %a, i32 %b)
  ret i32 %r
}

; CHECK-LABEL: define internal i32 @masks(
; CHECK: call i32 @__zy_gpu_lanemask_le()
; CHECK: ret i32 120
define i32 @masks() {
  %m = call i32 asm "mov.u32 $0, %lanemask_le;", "=r"()
  %k = call i32 asm "bmsk.clamp.b32 $0, $1, $2;", "=r,r,r"(i32 3, i32 4)
  ret i32 %k
}

; CHECK-LABEL: define internal float @literal(
; CHECK: fadd float %x, 1.000000e+00
define float @literal(float %x) {
  %r = call float asm "add.f32 $0, $1, 0f3F800000;", "=f,f"(float %x)
  ret float %r
}

; CHECK-LABEL: define internal void @waits(
; CHECK: call void @__zy_gpu_nanosleep(i32 100)
; CHECK: call void @__zy_gpu_exit()
define void @waits() {
  call void asm sideeffect "nanosleep.u32 $0;", "r"(i32 100)
  call void asm sideeffect "exit;", ""()
  ret void
}

; SAT: error: {{.*}}[zymase:gpu] 'saturated': inline PTX assembly 'add.sat.s32 $0, $1, $2;' cannot run on the CPU (in GPU-on-CPU mode)
define i32 @saturated(i32 %a, i32 %b) {
  %r = call i32 asm "add.sat.s32 $0, $1, $2;", "=r,r,r"(i32 %a, i32 %b)
  ret i32 0
}
