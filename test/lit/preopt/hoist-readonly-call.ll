; preopt/hoist-readonly-call.ll - the norm example: out[i] = in[i] / mag(in)
; with mag compiled at -O0 (optnone, no memory attributes, a sqrt that may
; write errno).  The pre-AD pipeline learns from mag's body that it only
; reads its argument (errno does not matter to AD), so LICM hoists the
; call out of the loop and the gradient calls mag's augmented forward and
; reverse once, not once per iteration: O(n) instead of O(n^2).
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-postopt %s -S | %FileCheck %s
; RUN: %zyopt -zymase-no-postopt %s -S | %FileCheck %s --check-prefix=REV

; The augmented forward call comes before the loop's iteration counter
; and is the only one; there is one reverse call.
; CHECK-LABEL: define internal void @__zymase_grad.normalize
; CHECK: call { double, ptr } @__zymase_aug.mag
; CHECK: %zymase.idx = load i64
; CHECK-NOT: @__zymase_aug.mag
; CHECK-LABEL: define internal { double, ptr } @__zymase_aug.mag
; REV-LABEL: define internal void @__zymase_grad.normalize
; REV-COUNT-1: @__zymase_rev.mag
; REV-NOT: @__zymase_rev.mag
; REV-LABEL: define internal { double, ptr } @__zymase_aug.mag

define double @mag(ptr %x, i32 %n) #0 {
entry:
  %x.addr = alloca ptr
  %n.addr = alloca i32
  %s = alloca double
  %i = alloca i32
  store ptr %x, ptr %x.addr
  store i32 %n, ptr %n.addr
  store double 0.0, ptr %s
  store i32 0, ptr %i
  br label %cond
cond:
  %iv = load i32, ptr %i
  %nv = load i32, ptr %n.addr
  %c = icmp slt i32 %iv, %nv
  br i1 %c, label %body, label %end
body:
  %xp = load ptr, ptr %x.addr
  %idx = sext i32 %iv to i64
  %p = getelementptr inbounds double, ptr %xp, i64 %idx
  %v = load double, ptr %p
  %sq = fmul double %v, %v
  %sv = load double, ptr %s
  %sn = fadd double %sv, %sq
  store double %sn, ptr %s
  %in = add nsw i32 %iv, 1
  store i32 %in, ptr %i
  br label %cond
end:
  %r = load double, ptr %s
  %root = call double @sqrt(double %r)
  ret double %root
}

define void @normalize(ptr noalias %out, ptr noalias %in, i32 %n) #0 {
entry:
  br label %cond
cond:
  %i = phi i32 [ 0, %entry ], [ %i.next, %body ]
  %c = icmp slt i32 %i, %n
  br i1 %c, label %body, label %end
body:
  %idx = sext i32 %i to i64
  %pi = getelementptr inbounds double, ptr %in, i64 %idx
  %v = load double, ptr %pi
  %m = call double @mag(ptr %in, i32 %n)
  %q = fdiv double %v, %m
  %po = getelementptr inbounds double, ptr %out, i64 %idx
  store double %q, ptr %po
  %i.next = add nsw i32 %i, 1
  br label %cond
end:
  ret void
}

declare double @sqrt(double)
declare void @__enzyme_autodiff(ptr, ...)

define void @caller(ptr %o, ptr %do, ptr %x, ptr %dx, i32 %n) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @normalize, ptr %o, ptr %do, ptr %x, ptr %dx, i32 %n)
  ret void
}

attributes #0 = { noinline nounwind optnone }
