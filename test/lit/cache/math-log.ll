; cache/math-log.ll - a math call of a loop iteration (sin) is computed
; again in the reverse sweep, and also logged: the forward sweep stores it
; at the iteration's index in the call while the log is on (else into a
; stack slot: no branch), the log grown where the loop's buffers grow (up
; to -zymase-math-log-mb per loop: 2 Mi doubles in 16 MiB, 131072 in 1);
; the reverse reads it back when every iteration fitted, else calls sin
; again.  Both are cache accesses (the cache alias scope).
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt -zymase-no-postopt %s -S | %FileCheck %s
; RUN: %zyopt -zymase-no-preopt -zymase-no-postopt -zymase-math-log-mb=1 %s -S | %FileCheck %s --check-prefix=ONE
; RUN: %zyopt -zymase-no-preopt -zymase-no-postopt -zymase-math-log-mb=0 %s -S | %FileCheck %s --check-prefix=OFF
; RUN: %zyopt -zymase-no-preopt -zymase-verify %s -S -o /dev/null

; CHECK-LABEL: define internal {{.*}} @__zymase_grad.f
; The reverse iteration: read back, or call sin again.
; CHECK:      reverse.loop:
; CHECK-NEXT: [[NEED:%.*]] = load i64, ptr %zymase.math.log.need
; CHECK-NEXT: %zymase.logged = icmp ule i64 [[NEED]], 2097152
; CHECK-NEXT: [[N:%.*]] = load i64, ptr %zymase.count
; CHECK-NEXT: [[I:%.*]] = sub i64 [[N]], 1
; CHECK-NEXT: [[LOG:%.*]] = load ptr, ptr %zymase.math.log,
; CHECK-NEXT: [[AT:%.*]] = getelementptr double, ptr [[LOG]], i64 [[I]]
; CHECK:      br i1 %zymase.logged, label %[[READ:.*]], label %[[AGAIN:.*]]
; CHECK:      [[READ]]:
; CHECK-NEXT: [[R:%.*]] = load double, ptr [[AT]], align 8, !alias.scope
; CHECK:      [[AGAIN]]:
; CHECK-NEXT: [[C:%.*]] = call double @sin(
; CHECK:      phi double [ [[R]], %[[READ]] ], [ [[C]], %[[AGAIN]] ]
; The forward iteration: sin stored in the log, or in a stack slot.
; CHECK:      %s = call double @sin(double %xi)
; CHECK-NEXT: [[O:%.*]] = load i64, ptr %zymase.math.log.on
; CHECK-NEXT: %zymase.log.on = icmp ne i64 [[O]], 0
; CHECK-NEXT: [[B:%.*]] = load ptr, ptr %zymase.math.log,
; CHECK-NEXT: [[E:%.*]] = getelementptr double, ptr [[B]], i64 %zymase.idx
; CHECK-NEXT: [[P:%.*]] = select i1 %zymase.log.on, ptr [[E]], ptr %zymase.math.log.off
; CHECK-NEXT: store double %s, ptr [[P]], align 8, !alias.scope
; Before the loop: the largest need, whether it fits, the growth.
; CHECK:      load i64, ptr %zymase.math.log.need
; CHECK:      icmp ule i64 {{.*}}, 2097152
; CHECK:      store i64 {{.*}}, ptr %zymase.math.log.on
; CHECK:      call ptr @realloc(
; ONE:        %zymase.logged = icmp ule i64 {{.*}}, 131072
; OFF-NOT:    zymase.math.log
; OFF:        call ptr @realloc(

define double @f(ptr readonly %x, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %xi = load double, ptr %px
  %s = call double @sin(double %xi)
  %p = fmul double %s, %s
  %acc.next = fadd double %acc, %p
  %i.next = add nuw i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit

exit:
  ret double %acc.next
}

declare double @sin(double) nounwind memory(none)

define void @g(ptr %x, ptr %dx, i64 %n) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, i64 %n)
  ret void
}

declare void @__enzyme_autodiff(ptr, ...)
