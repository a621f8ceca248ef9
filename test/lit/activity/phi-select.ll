; activity/phi-select.ll - phis and selects are active when an incoming value or chosen operand is; a varied condition alone does not make them active.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-activity>' -disable-output %s 2>&1 | %FileCheck %s

; CHECK-LABEL: activity of 'f':
; CHECK-NEXT:  active    double %x
; CHECK-NEXT:  active    double %y
; CHECK-NEXT:  constant  %c = fcmp olt double %x, %y
; CHECK-NEXT:  constant  %ks = select i1 %c, double 1.000000e+00, double 2.000000e+00
; CHECK-NEXT:  active    %s = select i1 %c, double %x, double 0.000000e+00
; CHECK-NEXT:  active    %a = fmul double %s, %ks
; CHECK-NEXT:  constant  %kp = phi double [ 1.000000e+00, %entry ], [ 3.000000e+00, %then ]
; CHECK-NEXT:  active    %p = phi double [ %a, %entry ], [ %y, %then ]
; CHECK-NEXT:  active    %r = fmul double %p, %kp
; CHECK-NOT:   {{active|constant}}
define double @f(double %x, double %y) {
entry:
  %c = fcmp olt double %x, %y
  %ks = select i1 %c, double 1.0, double 2.0
  %s = select i1 %c, double %x, double 0.0
  %a = fmul double %s, %ks
  br i1 %c, label %then, label %join
then:
  br label %join
join:
  %kp = phi double [ 1.0, %entry ], [ 3.0, %then ]
  %p = phi double [ %a, %entry ], [ %y, %then ]
  %r = fmul double %p, %kp
  ret double %r
}

; A phi fed from a later block (a loop) is found by the fixpoint.
; CHECK-LABEL: activity of 'loop':
; CHECK-NEXT:  active    double %x
; CHECK-NEXT:  constant  i32 %n
; CHECK-NEXT:  active    %acc = phi double [ 1.000000e+00, %entry ], [ %next, %body ]
; CHECK-NEXT:  constant  %i = phi i32 [ 0, %entry ], [ %i1, %body ]
; CHECK-NEXT:  constant  %done = icmp eq i32 %i, %n
; CHECK-NEXT:  active    %next = fmul double %acc, %x
; CHECK-NEXT:  constant  %i1 = add i32 %i, 1
define double @loop(double %x, i32 %n) {
entry:
  br label %head
head:
  %acc = phi double [ 1.0, %entry ], [ %next, %body ]
  %i = phi i32 [ 0, %entry ], [ %i1, %body ]
  %done = icmp eq i32 %i, %n
  br i1 %done, label %exit, label %body
body:
  %next = fmul double %acc, %x
  %i1 = add i32 %i, 1
  br label %head
exit:
  ret double %acc
}
