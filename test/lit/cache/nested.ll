; cache/nested.ll - a triangular double loop: the inner loop's values are
; cached per inner iteration (loop 2, depth 2).  Its trip count i + 1
; varies with the outer iteration: it is expanded from the outer induction
; variable, so the buffer is reserved from it at each entry and the
; iteration the inner loop was left at is recomputed, not cached per outer
; iteration (loop 1).  Nothing is cached for the indices or addresses,
; which are recomputed.  x is never written, so its loads are recomputed
; too.
; (With math calls cached, -zymase-math-log-mb=0, as here; by default
; sin is recomputed, read back from its log.)
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt -zymase-math-log-mb=0 -zymase-print-cache %s -S -o /dev/null 2>&1 | %FileCheck %s
; RUN: %zyopt -zymase-no-preopt -zymase-print-cache %s -S -o /dev/null 2>&1 | %FileCheck %s --check-prefix=LOG
; LOG: %sin: double, 8 bytes, recomputed, read back from a log

; CHECK-LABEL: zymase: cache of the gradient of 'f'
; CHECK-DAG: %xi: double, 8 bytes, recomputed
; CHECK-DAG: %xj: double, 8 bytes, recomputed
; CHECK-DAG: %pj: ptr, 8 bytes, its shadow recomputed
; CHECK-DAG: %pi: ptr, 8 bytes, its shadow recomputed
; CHECK-DAG: %sin: double, 8 bytes, per iteration of loop 2 (%inner, depth 2), buffer reserved from the trip count
; CHECK-NOT: per iteration of loop 1
; CHECK-NOT: %xi: {{.*}} per iteration
; CHECK-NOT: %xj: {{.*}} per iteration

; s = sum_{i<n} sum_{j<=i} x[i] * sin(x[j])
define double @f(ptr %x, i64 %n) {
entry:
  br label %outer

outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]
  %s = phi double [ 0.0, %entry ], [ %s.inner, %outer.latch ]
  %pi = getelementptr inbounds double, ptr %x, i64 %i
  %xi = load double, ptr %pi
  br label %inner

inner:
  %j = phi i64 [ 0, %outer ], [ %j.next, %inner ]
  %t = phi double [ %s, %outer ], [ %t.next, %inner ]
  %pj = getelementptr inbounds double, ptr %x, i64 %j
  %xj = load double, ptr %pj
  %sin = call double @llvm.sin.f64(double %xj)
  %m = fmul double %xi, %sin
  %t.next = fadd double %t, %m
  %j.next = add nuw nsw i64 %j, 1
  %cj = icmp ule i64 %j.next, %i
  br i1 %cj, label %inner, label %outer.latch

outer.latch:
  %s.inner = phi double [ %t.next, %inner ]
  %i.next = add nuw nsw i64 %i, 1
  %ci = icmp ult i64 %i.next, %n
  br i1 %ci, label %outer, label %exit

exit:
  ret double %s.inner
}

declare double @llvm.sin.f64(double)
declare double @__enzyme_autodiff(ptr, ...)

define double @caller(ptr %x, ptr %dx, i64 %n) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, i64 %n)
  ret double %r
}
