; cache/math-calls.ll - with -zymase-recompute-math, math library calls
; (exp, sin) of a loop iteration are computed again in the reverse sweep
; when their arguments are (%e1,
; from x[i], which nothing writes); between caching a call and caching
; as many bytes of its argument, the call is cached (%e2: y[i] is
; overwritten after the load, caching exp(y[i]) saves computing it).
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt -zymase-recompute-math -zymase-print-cache %s -S -o /dev/null 2>&1 | %FileCheck %s
; By default (without -zymase-recompute-math) the same choice, and the
; recomputed %e1 is also logged by the forward sweep, read back while the
; call's iterations fit in -zymase-math-log-mb (cache/math-log.ll).  With
; -zymase-math-log-mb=0, both calls are cached.
; RUN: %zyopt -zymase-no-preopt -zymase-print-cache %s -S -o /dev/null 2>&1 | %FileCheck %s --check-prefix=LOG
; LOG-DAG: %e1: double, 8 bytes, recomputed, read back from a log
; LOG-DAG: %e2: double, 8 bytes, per iteration
; RUN: %zyopt -zymase-no-preopt -zymase-math-log-mb=0 -zymase-print-cache %s -S -o /dev/null 2>&1 | %FileCheck %s --check-prefix=OFF
; OFF-DAG: %e1: double, 8 bytes, per iteration
; OFF-DAG: %e2: double, 8 bytes, per iteration

; CHECK-LABEL: zymase: cache of the gradient of 'f' in __zymase_grad.f
; CHECK-DAG: %xi: double, 8 bytes, recomputed
; CHECK-DAG: %e1: double, 8 bytes, recomputed
; CHECK-DAG: %e2: double, 8 bytes, per iteration of loop 1 (%loop, depth 1), buffer reserved from the trip count
; CHECK-NOT: %yi: {{.*}}per iteration

define double @f(ptr noalias readonly %x, ptr noalias %y, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %xi = load double, ptr %px
  %e1 = call double @exp(double %xi)
  %py = getelementptr inbounds double, ptr %y, i64 %i
  %yi = load double, ptr %py
  %e2 = call double @exp(double %yi)
  store double 0.0, ptr %py
  %m = fmul double %e1, %e2
  %acc.next = fadd double %acc, %m
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit

exit:
  ret double %acc.next
}

declare double @exp(double)
declare double @__enzyme_autodiff(ptr, ...)

define double @caller(ptr %x, ptr %dx, ptr %y, ptr %dy, i64 %n) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, ptr %y, ptr %dy, i64 %n)
  ret double %r
}
