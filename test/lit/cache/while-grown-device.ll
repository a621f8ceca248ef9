; cache/while-grown-device.ll - the while loop of while-grown.ll in device
; code (nvptx64): the device heap has malloc and free but no realloc, so
; the geometrically grown buffer is reallocated by the device heap's
; allocation helper (malloc, trapping when the heap is full), a copy of the
; old capacity and free (with no local budget: the heap alone).  By
; default the buffer starts in local memory, 4096 bytes per thread (512
; doubles), its capacity 512, and the heap is called beyond: the local
; buffer is copied, and never freed (a select of null where it is freed).
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt -zymase-gpu-local-cache-bytes=0 %s -S | %FileCheck %s
; RUN: %zyopt -zymase-no-preopt %s -S | %FileCheck %s --check-prefix=LOCAL
target datalayout = "e-p6:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; s = x; while (s < 100) s = s * x + s * s;  (a data-dependent exit)
define double @f(double %x) {
entry:
  br label %loop

loop:
  %s = phi double [ %x, %entry ], [ %s.next, %loop ]
  %a = fmul double %s, %x
  %b = fmul double %s, %s
  %s.next = fadd double %a, %b
  %c = fcmp olt double %s.next, 100.0
  br i1 %c, label %loop, label %exit

exit:
  ret double %s.next
}

declare double @__enzyme_autodiff(ptr, ...)

define double @caller(double %x) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %r
}

; CHECK-LABEL: define internal { double } @__zymase_grad.f
; CHECK-NOT: @realloc
; CHECK: zymase.grow:
; CHECK: [[NEW:%.*]] = {{.*}}call ptr @zymase.gpu.cache.alloc(i64
; CHECK: call void @llvm.memcpy.p0.p0.i64(ptr align 8 [[NEW]], ptr align 8 [[OLD:%.*]], i64
; CHECK: call void @free(ptr [[OLD]])
; CHECK-NOT: @realloc

; LOCAL-LABEL: define internal { double } @__zymase_grad.f
; LOCAL: %zymase.stack.buffer = alloca [512 x double]
; LOCAL: phi i64 [ 512, %entry ]
; LOCAL: [[EQ:%.*]] = icmp eq ptr [[BUF:%.*]], %zymase.stack.buffer
; LOCAL-NEXT: [[P:%.*]] = select i1 [[EQ]], ptr null, ptr [[BUF]]
; LOCAL-NEXT: call void @free(ptr [[P]])
; LOCAL: zymase.grow:
; LOCAL: [[NEW:%.*]] = {{.*}}call ptr @zymase.gpu.cache.alloc(i64
; LOCAL: call void @llvm.memcpy.p0.p0.i64(ptr align 8 [[NEW]], ptr {{.*}}align 8 [[OLD:%.*]], i64
; LOCAL: [[EQ2:%.*]] = icmp eq ptr [[OLD]], %zymase.stack.buffer
; LOCAL-NEXT: [[P2:%.*]] = select i1 [[EQ2]], ptr null, ptr [[OLD]]
; LOCAL-NEXT: call void @free(ptr [[P2]])
