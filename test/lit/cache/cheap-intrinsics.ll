; cache/cheap-intrinsics.ll - fdiv and pure arithmetic intrinsics (fmuladd,
; sqrt, maxnum) of a loop iteration are computed again in the reverse sweep
; from what is cached anyway: with math calls cached
; (-zymase-math-log-mb=0) only the sine is kept per iteration; the
; quotient, the fused multiply-add, the square root and the maximum are
; recomputed from it and from x[i] (read-only).  By default the sine is
; recomputed too, read back from its log (math-calls.ll), and nothing is
; cached per iteration.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt -zymase-math-log-mb=0 -zymase-print-cache %s -S -o /dev/null 2>&1 | %FileCheck %s
; RUN: %zyopt -zymase-no-preopt -zymase-print-cache %s -S -o /dev/null 2>&1 | %FileCheck %s --check-prefix=LOG
; LOG-LABEL: zymase: cache of the gradient of 'f' in __zymase_grad.f
; LOG-DAG: %s: double, 8 bytes, recomputed, read back from a log
; LOG-DAG: %q: double, 8 bytes, recomputed
; LOG-NOT: per iteration

; CHECK-LABEL: zymase: cache of the gradient of 'f' in __zymase_grad.f
; CHECK-DAG: %s: double, 8 bytes, per iteration of loop 1 (%loop, depth 1), buffer reserved from the trip count
; CHECK-DAG: %q: double, 8 bytes, recomputed
; CHECK-DAG: %r: double, 8 bytes, recomputed
; CHECK-DAG: %t: double, 8 bytes, recomputed
; CHECK-DAG: %m: double, 8 bytes, recomputed
; CHECK-NOT: per iteration

define double @f(ptr readonly %x, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %xi = load double, ptr %px
  %s = call double @llvm.sin.f64(double %xi)
  %q = fdiv double %s, %xi
  %r = call double @llvm.fmuladd.f64(double %q, double %q, double %s)
  %t = call double @llvm.sqrt.f64(double %r)
  %m = call double @llvm.maxnum.f64(double %t, double %s)
  %mr = fmul double %m, %r
  %acc.next = fadd double %acc, %mr
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit

exit:
  ret double %acc.next
}

declare double @llvm.sin.f64(double)
declare double @llvm.fmuladd.f64(double, double, double)
declare double @llvm.sqrt.f64(double)
declare double @llvm.maxnum.f64(double, double)
declare double @__enzyme_autodiff(ptr, ...)

define double @caller(ptr %x, ptr %dx, i64 %n) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, i64 %n)
  ret double %r
}
