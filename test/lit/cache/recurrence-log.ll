; cache/recurrence-log.ll - a recurrence of an inner loop (LLSQ's tj *= t)
; that the reverse sweep replays is also logged by the forward sweep: its
; header stores tj at the iteration's index in the call while the log is
; on, into a buffer grown where the loop's buffers grow (here once, before
; the nest: its trip count is known).  The log is on while the largest need
; of room fits in it (2 Mi doubles in the default 16 MiB; 1 MiB: 131072);
; the reverse reads an entry from the log when that need fitted, else
; replays it.  -zymase-replay-log-mb=0 leaves the replay alone.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt -zymase-no-postopt %s -S | %FileCheck %s
; RUN: %zyopt -zymase-no-preopt -zymase-no-postopt -zymase-replay-log-mb=1 %s -S | %FileCheck %s --check-prefix=ONE
; RUN: %zyopt -zymase-no-preopt -zymase-no-postopt -zymase-replay-log-mb=0 %s -S | %FileCheck %s --check-prefix=OFF
; RUN: %zyopt -zymase-no-preopt -zymase-verify %s -S -o /dev/null

; CHECK-LABEL: define internal {{.*}} @__zymase_grad.llsq
; The reverse entry of the inner loop: from the log, or replayed.
; CHECK:      reverse.replay:
; CHECK-NEXT: [[NEED:%.*]] = load i64, ptr %zymase.replay.log.need
; CHECK-NEXT: %zymase.logged = icmp ule i64 [[NEED]], 2097152
; CHECK-NEXT: br i1 %zymase.logged, label %reverse.replay.log, label %reverse.replay.run
; Before the nest: the largest need, whether it fits, the growth.
; CHECK:      zymase.hook:
; CHECK-NEXT: [[OLD:%.*]] = load i64, ptr %zymase.replay.log.need
; CHECK-NEXT: [[GT:%.*]] = icmp ugt i64 [[N:%.*]], [[OLD]]
; CHECK-NEXT: [[MAX:%.*]] = select i1 [[GT]], i64 [[N]], i64 [[OLD]]
; CHECK-NEXT: [[FITS:%.*]] = icmp ule i64 [[MAX]], 2097152
; CHECK-NEXT: store i64 [[MAX]], ptr %zymase.replay.log.need
; CHECK-NEXT: [[ON:%.*]] = zext i1 [[FITS]] to i64
; CHECK-NEXT: store i64 [[ON]], ptr %zymase.replay.log.on
; CHECK-NEXT: [[WANT:%.*]] = select i1 [[FITS]], i64 [[MAX]], i64 0
; CHECK:      zymase.log.grow:
; CHECK:      call ptr @realloc(
; CHECK:      store ptr {{.*}}, ptr %zymase.replay.log,
; The forward header: tj stored at idx while the log is on.
; CHECK:      zymase.hook{{[0-9]+}}:
; CHECK-NEXT: [[O:%.*]] = load i64, ptr %zymase.replay.log.on
; CHECK-NEXT: %zymase.log.on = icmp ne i64 [[O]], 0
; CHECK-NEXT: br i1 %zymase.log.on, label %zymase.log, label %inner
; CHECK:      zymase.log:
; CHECK-NEXT: [[LOG:%.*]] = load ptr, ptr %zymase.replay.log
; CHECK-NEXT: [[AT:%.*]] = getelementptr inbounds double, ptr [[LOG]], i64 %zymase.idx
; CHECK-NEXT: store double %tj, ptr [[AT]]
; CHECK:      reverse.replay.log:
; CHECK-NEXT: [[CNT:%.*]] = load i64, ptr %zymase.count
; CHECK-NEXT: [[LAST:%.*]] = load i64, ptr %zymase.rc
; CHECK-NEXT: [[ITERS:%.*]] = add i64 [[LAST]], 1
; CHECK-NEXT: [[FIRST:%.*]] = sub i64 [[CNT]], [[ITERS]]
; CHECK-NEXT: [[L:%.*]] = load ptr, ptr %zymase.replay.log
; CHECK-NEXT: [[P:%.*]] = getelementptr inbounds double, ptr [[L]], i64 [[FIRST]]
; CHECK-NEXT: store ptr [[P]], ptr %zymase.replay.at
; CHECK-NEXT: br label %reverse.replay.done
; CHECK:      reverse.replay.run:
; CHECK:      reverse.replay.pre:
; CHECK:      store ptr {{.*}}, ptr %zymase.replay.at

; ONE: %zymase.logged = icmp ule i64 {{.*}}, 131072
; ONE: icmp ule i64 {{.*}}, 131072

; OFF-LABEL: define internal {{.*}} @__zymase_grad.llsq
; OFF-NOT:   zymase.replay.log
; OFF-NOT:   zymase.logged
; OFF:       reverse.replay.loop:
; OFF-NOT:   zymase.replay.log

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

declare double @__enzyme_autodiff(ptr, ...)

define double @caller(ptr %x, ptr %dx, i64 %m, i64 %n) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @llsq, ptr %x, ptr %dx, i64 %m, i64 %n)
  ret double %r
}
