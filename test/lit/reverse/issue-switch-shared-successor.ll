; reverse/issue-switch-shared-successor.ll - a block reached by two edges from one switch (two cases with the same destination): the recorded-predecessor phi needs one entry per edge.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes=zymase,verify -zymase-no-preopt -zymase-no-postopt %s -S | %FileCheck %s
; RUN: %opt -passes=zymase -zymase-no-preopt -zymase-verify -disable-output %s 2>&1 | %FileCheck %s --check-prefix=STEPS --allow-empty
;
; Regression: the forward sweep gave `zymase.from` one entry per distinct
; predecessor ([ 0, %entry ], [ 1, %other ]) while %join has three incoming
; edges; the post-AD pipeline then ran on invalid IR and produced a wrong
; gradient (see integration/issue-switch-shared-case.c).

define double @f(double %x, i32 %k) {
entry:
  switch i32 %k, label %other [
    i32 0, label %join
    i32 1, label %join
  ]
other:
  %n = fneg double %x
  br label %join
join:
  %p = phi double [ %x, %entry ], [ %x, %entry ], [ %n, %other ]
  ret double %p
}

declare double @__enzyme_autodiff(ptr, ...)

define double @caller(double %x, i32 %k) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, i32 %k)
  ret double %r
}

; CHECK-LABEL: define internal { double } @__zymase_grad.f.{{[0-9a-f]+}}r(
; CHECK: {{^}}join:
; CHECK-NEXT: phi i32 [ [[E:[0-9]+]], %entry ], [ [[E]], %entry ], [ {{[0-9]+}}, %other ]

; STEPS-NOT: invalid IR
