; cache/scopes.ll - the gradient's caches are heap blocks that only its
; own loads and stores reach, so their accesses get the alias scope
; `zymase.cache` and every other load and store of the gradient !noalias
; of it: the optimizer no longer checks at run time (or gives up on
; vectorizing) that a cache buffer and a shadow overlap.  Here a loop
; caches sin(x[i]) and x[i] (overwritten after the load) per iteration;
; in @llsq, tj is logged and replayed (cache/recurrence-log.ll).
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt -zymase-no-postopt %s -S | %FileCheck %s
; RUN: %zyopt -zymase-no-preopt -zymase-verify %s -S | %FileCheck %s --check-prefix=OPT

; CHECK-LABEL: define internal {{.*}} @__zymase_grad.sines
; The reverse reads the caches in their scope ...
; CHECK:     load double, ptr %{{.*}}, align 8, !alias.scope ![[S:[0-9]+]]
; ... the forward sweep's own accesses are apart from it ...
; CHECK:     %xi = load double, ptr %px, align 8, !noalias ![[S]]
; CHECK:     store double %xi, ptr %{{.*}}, align 8, !alias.scope ![[S]]
; CHECK:     store double %s, ptr %{{.*}}, align 8, !alias.scope ![[S]]
; CHECK:     store double 0.000000e+00, ptr %px, align 8, !noalias ![[S]]
; CHECK-LABEL: define internal {{.*}} @__zymase_grad.llsq
; CHECK-DAG: %xj = load double, ptr %px, align 8, !noalias ![[S]]
; CHECK-DAG: store double %tj, ptr %{{.*}}, align 8, !alias.scope ![[S]]
; CHECK:     reverse.replay.loop:
; CHECK:     store double %zymase.replay, ptr %{{.*}}, align 8, !alias.scope ![[S]]
; An access already in the scope (copied from a gradient that is
; differentiated again) stays in it, with no !noalias of it.
; CHECK-LABEL: define internal {{.*}} @__zymase_grad.tagged
; CHECK:     %v = load double, ptr %p, align 8, !alias.scope ![[S]]{{$}}
; CHECK:     ![[S]] = !{![[SCOPE:[0-9]+]]}
; CHECK:     ![[SCOPE]] = !{!"zymase.cache", ![[DOMAIN:[0-9]+]]}
; CHECK:     ![[DOMAIN]] = !{!"zymase.cache.domain"}

; The user's function keeps no such metadata.
; OPT-LABEL: define double @sines(
; OPT-NOT:   zymase.cache
; OPT:       ret double

define double @sines(ptr %x, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %sum = phi double [ 0.0, %entry ], [ %sum.next, %loop ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %xi = load double, ptr %px
  %s = call double @sin(double %xi)
  %sq = fmul double %s, %s
  %sum.next = fadd double %sum, %sq
  store double 0.0, ptr %px
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit

exit:
  ret double %sum.next
}

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

define double @tagged(ptr %x, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %sum = phi double [ 0.0, %entry ], [ %sum.next, %loop ]
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %p, align 8, !alias.scope !0
  %sq = fmul double %v, %v
  %sum.next = fadd double %sum, %sq
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit

exit:
  ret double %sum.next
}

!0 = !{!1}
!1 = !{!"zymase.cache", !2}
!2 = !{!"zymase.cache.domain"}

declare double @sin(double)
declare double @__enzyme_autodiff(ptr, ...)

define double @caller(ptr %x, ptr %dx, i64 %n, i64 %m) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @sines, ptr %x, ptr %dx, i64 %n)
  %r2 = call double (ptr, ...) @__enzyme_autodiff(ptr @llsq, ptr %x, ptr %dx, i64 %m, i64 %n)
  %r3 = call double (ptr, ...) @__enzyme_autodiff(ptr @tagged, ptr %x, ptr %dx, i64 %n)
  %s2 = fadd double %r, %r2
  %s = fadd double %s2, %r3
  ret double %s
}
