; What cannot run on the CPU is refused with located errors naming the
; function: inline PTX assembly the interpreter does not know (ptx_insn.c),
; and a GPU intrinsic without a CPU version;
; host IR given to the pass is refused too.
; RUN: sed '/asm/d' %s | %not %opt -passes=zymase-gpu-to-host -disable-output 2>&1 | %FileCheck %s
; RUN: sed '/match.any/d' %s | %not %opt -passes=zymase-gpu-to-host -disable-output 2>&1 | %FileCheck %s --check-prefix=ASM
; RUN: sed 's/nvptx64-nvidia-cuda/x86_64-pc-linux-gnu/' %s | %not %opt -passes=zymase-gpu-to-host -disable-output 2>&1 | %FileCheck %s --check-prefix=HOST
; ASM: error: {{.*}}[zymase:gpu] 'trapper': inline PTX assembly 'trap;' cannot run on the CPU (in GPU-on-CPU mode)
; CHECK: error: {{.*}}[zymase:gpu] 'matcher': llvm.nvvm.match.any.sync.i32 has no CPU version (in GPU-on-CPU mode)
; HOST: [zymase:gpu] zymase-gpu-to-host expects device IR (nvptx64 or amdgcn), not 'x86_64-pc-linux-gnu'
target triple = "nvptx64-nvidia-cuda"

define void @trapper() {
  call void asm sideeffect "trap;", ""()
  ret void
}

define void @matcher(i32 %v) {
  %m = call i32 @llvm.nvvm.match.any.sync.i32(i32 -1, i32 %v)
  ret void
}

declare i32 @llvm.nvvm.match.any.sync.i32(i32, i32)
