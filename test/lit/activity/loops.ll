; activity/loops.ll - activity through a loop: the accumulator phi and its
; update are active (varied from %x, useful for the return), the
; induction variable, its compare and a product of integers are constant,
; and a value computed in the loop that never reaches the return is not
; useful, so not active.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-activity>' -disable-output %s 2>&1 | %FileCheck %s

; CHECK-LABEL: activity of 'f':
; CHECK-DAG: constant  %i = phi i64
; CHECK-DAG: active    %acc = phi double
; CHECK-DAG: constant  %unused = fmul double
; CHECK-DAG: active    %acc.next = fadd double
; CHECK-DAG: constant  %k = mul i64
; CHECK-DAG: constant  %c = icmp ult i64
define double @f(double %x, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 1.0, %entry ], [ %acc.next, %loop ]
  %k = mul i64 %i, 3
  %kf = sitofp i64 %k to double
  %t = fmul double %acc, %x
  %unused = fmul double %t, %t
  %acc.next = fadd double %t, %kf
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit

exit:
  ret double %acc.next
}
