; cache/sum-overwritten.ll - the example of the caching issue:
;   for i: sum = x[i] + y[i]; acc += sum * sum; x[i] = y[i] = 0
; The reverse sweep needs only sum (for the derivative of sum * sum): one
; double per iteration, in a buffer reserved from the trip count; x[i] and
; y[i] are not cached (their loads have no use in the reverse sweep), and
; the index and the shadow addresses are recomputed from the iteration
; number.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt -zymase-print-cache %s -S -o /dev/null 2>&1 | %FileCheck %s

; CHECK-LABEL: zymase: cache of the gradient of 'f' in __zymase_grad.f
; CHECK-NOT: %xi
; CHECK-NOT: %yi
; CHECK-DAG: %sum: double, 8 bytes, per iteration of loop 1 (%loop, depth 1), buffer reserved from the trip count
; CHECK-DAG: %i: i64, 8 bytes, recomputed
; CHECK-DAG: %px: ptr, 8 bytes, its shadow recomputed
; CHECK-DAG: %py: ptr, 8 bytes, its shadow recomputed
; CHECK-NOT: %xi
; CHECK-NOT: %yi
; CHECK-NOT: per iteration

define double @f(ptr %x, ptr %y, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %py = getelementptr inbounds double, ptr %y, i64 %i
  %xi = load double, ptr %px
  %yi = load double, ptr %py
  %sum = fadd double %xi, %yi
  %sq = fmul double %sum, %sum
  %acc.next = fadd double %acc, %sq
  store double 0.0, ptr %px
  store double 0.0, ptr %py
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit

exit:
  ret double %acc.next
}

declare double @__enzyme_autodiff(ptr, ...)

define double @caller(ptr %x, ptr %dx, ptr %y, ptr %dy, i64 %n) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, ptr %y, ptr %dy, i64 %n)
  ret double %r
}
