; cache/shared-recompute.ll - a value recomputed in the reverse sweep is
; built once per reverse iteration: cos(x[i]) is needed by the reverse of
; %then, of %else and of %join (the merge %v, recomputed as a select of
; both sides, and %w); it is computed once, at the start of the reverse of
; %join (where each reverse iteration starts), not once per reverse block
; and per lookup.  The loads of x[i] are shared likewise.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt -zymase-recompute-math -zymase-print-cache %s -S -o /dev/null 2> %t.cache
; RUN: %FileCheck %s --check-prefix=CACHE < %t.cache

; CACHE-LABEL: zymase: cache of the gradient of 'f'
; CACHE-NOT: per iteration

; Before the post-AD simplification (which merges copies only where it
; can prove the loads equal: here x is noalias, in BA it is not), the
; reverse sweep holds one call of each, at the start of the reverse of
; %join, and the forward its own in %loop (split after the counters:
; %loop2); each lookup used to build its own (five cos, two sin).
; RUN: %zyopt -zymase-no-preopt -zymase-no-postopt -zymase-recompute-math %s -S -o - | %FileCheck %s
; RUN: %zyopt -zymase-no-preopt -zymase-no-postopt -zymase-recompute-math %s -S -o - | %FileCheck %s --check-prefix=SIN
; CHECK-LABEL: define {{.*}}@__zymase_grad.f
; CHECK-NOT: @cos(
; CHECK: {{^}}reverse.join:
; CHECK: call double @cos(
; CHECK-NOT: @cos(
; CHECK: %c = call double @cos(
; CHECK-NOT: @cos(
; CHECK: {{^}}}
; SIN-LABEL: define {{.*}}@__zymase_grad.f
; SIN-NOT: @sin(
; SIN: {{^}}reverse.join:
; SIN: call double @sin(
; SIN-NOT: @sin(
; SIN: %s = call double @sin(
; SIN-NOT: @sin(
; SIN: {{^}}}

define double @f(ptr noalias readonly %x, ptr noalias readonly %y, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %join ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %join ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %xi = load double, ptr %px
  %c = call double @cos(double %xi)
  %s = call double @sin(double %xi)
  %py = getelementptr inbounds double, ptr %y, i64 %i
  %yi = load double, ptr %py
  %pos = fcmp ogt double %yi, 0.0
  br i1 %pos, label %then, label %else

then:
  %t1 = fmul double %c, %s
  br label %join

else:
  %t2 = fmul double %c, %c
  br label %join

join:
  %v = phi double [ %t1, %then ], [ %t2, %else ]
  %w = fmul double %v, %c
  %acc.next = fadd double %acc, %w
  %i.next = add nuw nsw i64 %i, 1
  %cmp = icmp ult i64 %i.next, %n
  br i1 %cmp, label %loop, label %exit

exit:
  ret double %acc.next
}

declare double @cos(double)
declare double @sin(double)
@enzyme_const = external global i32
declare double @__enzyme_autodiff(ptr, ...)

define double @caller(ptr %x, ptr %dx, ptr %y, i64 %n) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, ptr @enzyme_const, ptr %y, i64 %n)
  ret double %r
}
