; cache/load-clobbered.ll - alias analysis decides whether a load is
; recomputed or cached: x[i] is recomputed when nothing writes memory x
; may point to (x and out are noalias), and cached per iteration when the
; loop stores through a pointer that may alias x.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt -zymase-print-cache %s -S -o /dev/null 2>&1 | %FileCheck %s

; CHECK-LABEL: zymase: cache of the gradient of 'noalias_out'
; CHECK: %xi: double, 8 bytes, recomputed
; CHECK-NOT: %xi: {{.*}} per iteration
; CHECK-LABEL: zymase: cache of the gradient of 'may_alias_out'
; CHECK: %xi: double, 8 bytes, per iteration of loop 1
; out[i] = x[i] * x[i]; returns the sum of x[i]^3
define double @noalias_out(ptr noalias %x, ptr noalias %out, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %xi = load double, ptr %px
  %sq = fmul double %xi, %xi
  %po = getelementptr inbounds double, ptr %out, i64 %i
  store double %sq, ptr %po
  %cu = fmul double %sq, %xi
  %acc.next = fadd double %acc, %cu
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret double %acc.next
}

define double @may_alias_out(ptr %x, ptr %out, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %xi = load double, ptr %px
  %sq = fmul double %xi, %xi
  %po = getelementptr inbounds double, ptr %out, i64 %i
  store double %sq, ptr %po
  %cu = fmul double %sq, %xi
  %acc.next = fadd double %acc, %cu
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit
exit:
  ret double %acc.next
}

declare double @__enzyme_autodiff(ptr, ...)

define void @caller(ptr %x, ptr %dx, ptr %o, ptr %do, i64 %n) {
  %a = call double (ptr, ...) @__enzyme_autodiff(ptr @noalias_out, ptr %x, ptr %dx, ptr %o, ptr %do, i64 %n)
  %b = call double (ptr, ...) @__enzyme_autodiff(ptr @may_alias_out, ptr %x, ptr %dx, ptr %o, ptr %do, i64 %n)
  ret void
}
