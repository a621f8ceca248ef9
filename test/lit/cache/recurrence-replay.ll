; cache/recurrence-replay.ll - LLSQ's polynomial: for i: t = f(i);
; for j: r -= x[j] * tj; tj *= t.  The reverse of the inner loop needs tj
; in every iteration.  tj is a recurrence (computed from itself and t, from
; outside the inner loop), so rather than caching m*n values the reverse
; sweep replays it, from 1, at each entry of the inner loop, into a scratch
; buffer of one entry's values; t, outside the inner loop, is recomputed
; from the outer induction variable.  Nothing is cached per iteration of
; the inner loop.  The same for Horner's rule, whose update clang
; contracts into llvm.fmuladd.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt -zymase-print-cache %s -S -o /dev/null 2>&1 | %FileCheck %s
; RUN: %zyopt -zymase-no-preopt -zymase-no-postopt %s -S | %FileCheck %s --check-prefix=IR

; CHECK-LABEL: zymase: cache of the gradient of 'llsq' in __zymase_grad.llsq
; CHECK-DAG: %tj: double, 8 bytes, recomputed: the recurrence is replayed at each entry of its loop
; CHECK-DAG: %t: double, 8 bytes, recomputed
; CHECK-NOT: per iteration of loop 2

; The replay: a loop storing tj into the scratch, multiplying by t.
; IR-LABEL: define internal {{.*}} @__zymase_grad.llsq
; IR:       reverse.replay.loop:
; IR-NEXT:  %zymase.replay.iv = phi i64 [ 0, %reverse.replay.pre ], [ [[NEXTIV:%.*]], %reverse.replay.loop ]
; IR-NEXT:  %zymase.replay = phi double [ 1.000000e+00, %reverse.replay.pre ], [ [[NEXT:%.*]], %reverse.replay.loop ]
; IR:       store double %zymase.replay, ptr
; IR:       [[NEXT]] = fmul double %zymase.replay, %

define double @llsq(ptr %x, i64 %m, i64 %n) {
entry:
  %nm1 = sub i64 %n, 1
  %nf = sitofp i64 %nm1 to double
  br label %outer

outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]
  %sum = phi double [ 0.0, %entry ], [ %sum.next, %outer.latch ]
  %if = sitofp i64 %i to double
  %q = fdiv double %if, %nf
  %t = fsub double %q, 5.000000e-01
  br label %inner

inner:
  %j = phi i64 [ 0, %outer ], [ %j.next, %inner ]
  %tj = phi double [ 1.0, %outer ], [ %tj.next, %inner ]
  %r = phi double [ 0.0, %outer ], [ %r.next, %inner ]
  %px = getelementptr inbounds double, ptr %x, i64 %j
  %xj = load double, ptr %px
  %p = fmul double %xj, %tj
  %r.next = fsub double %r, %p
  %tj.next = fmul double %tj, %t
  %j.next = add nuw nsw i64 %j, 1
  %c = icmp ult i64 %j.next, %m
  br i1 %c, label %inner, label %outer.latch

outer.latch:
  %r.lcssa = phi double [ %r.next, %inner ]
  %sq = fmul double %r.lcssa, %r.lcssa
  %sum.next = fadd double %sum, %sq
  %i.next = add nuw nsw i64 %i, 1
  %c2 = icmp ult i64 %i.next, %n
  br i1 %c2, label %outer, label %exit

exit:
  %res = phi double [ %sum.next, %outer.latch ]
  ret double %res
}

; Horner's rule as clang contracts it at -O2: h = fmuladd(h, t, c).
; CHECK-LABEL: zymase: cache of the gradient of 'horner'
; CHECK: %h: double, 8 bytes, recomputed: the recurrence is replayed at each entry of its loop
; CHECK-NOT: per iteration of loop 2
define double @horner(ptr %x, i64 %m, i64 %n) {
entry:
  br label %outer

outer:
  %i = phi i64 [ 0, %entry ], [ %i.next, %outer.latch ]
  %sum = phi double [ 0.0, %entry ], [ %sum.next, %outer.latch ]
  %pt = getelementptr inbounds double, ptr %x, i64 %i
  %t = load double, ptr %pt
  br label %inner

inner:
  %j = phi i64 [ 0, %outer ], [ %j.next, %inner ]
  %h = phi double [ %t, %outer ], [ %h.next, %inner ]
  %h.next = call double @llvm.fmuladd.f64(double %h, double %t, double 5.000000e-01)
  %j.next = add nuw nsw i64 %j, 1
  %c = icmp ult i64 %j.next, %m
  br i1 %c, label %inner, label %outer.latch

outer.latch:
  %h.lcssa = phi double [ %h.next, %inner ]
  %sq = fmul double %h.lcssa, %h.lcssa
  %sum.next = fadd double %sum, %sq
  store double 0.0, ptr %pt
  %i.next = add nuw nsw i64 %i, 1
  %c2 = icmp ult i64 %i.next, %n
  br i1 %c2, label %outer, label %exit

exit:
  ret double %sum.next
}

declare double @llvm.fmuladd.f64(double, double, double)

declare double @__enzyme_autodiff(ptr, ...)

define double @caller(ptr %x, ptr %dx, i64 %m, i64 %n) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @llsq, ptr %x, ptr %dx, i64 %m, i64 %n)
  %r2 = call double (ptr, ...) @__enzyme_autodiff(ptr @horner, ptr %x, ptr %dx, i64 %m, i64 %n)
  %s = fadd double %r, %r2
  ret double %s
}
