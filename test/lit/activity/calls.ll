; activity/calls.ll - a call is active when it has an active operand and its result reaches the return; calls on constants, unused results and void calls are constant.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-activity>' -disable-output %s 2>&1 | %FileCheck %s

declare double @sin(double)
declare double @llvm.pow.f64(double, double)
declare void @record(double)
declare i32 @lround(double)

; The analysis of a callee is its own: sq's argument is active in sq.
; CHECK-LABEL: activity of 'sq':
; CHECK-NEXT:  active    double %x
; CHECK-NEXT:  active    %r = fmul double %x, %x
define internal double @sq(double %x) {
  %r = fmul double %x, %x
  ret double %r
}

; %y only feeds an unused call, so it is constant.
; CHECK-LABEL: activity of 'f':
; CHECK-NEXT:  active    double %x
; CHECK-NEXT:  constant  double %y
; CHECK-NEXT:  active    %s = call double @sin(double %x)
; CHECK-NEXT:  constant  %k = call double @sin(double 1.000000e+00)
; CHECK-NEXT:  active    %p = call double @llvm.pow.f64(double %s, double %k)
; CHECK-NEXT:  constant  %unused = call double @sq(double %y)
; CHECK-NEXT:  active    %u = call double @sq(double %p)
; CHECK-NEXT:  constant  %i = call i32 @lround(double %x)
; CHECK-NEXT:  constant  %if = sitofp i32 %i to double
; CHECK-NEXT:  active    %r = fmul double %u, %if
; CHECK-NOT:   {{active|constant}}
define double @f(double %x, double %y) {
  %s = call double @sin(double %x)
  %k = call double @sin(double 1.0)
  %p = call double @llvm.pow.f64(double %s, double %k)
  %unused = call double @sq(double %y)
  call void @record(double %x)
  %u = call double @sq(double %p)
  %i = call i32 @lround(double %x)
  %if = sitofp i32 %i to double
  %r = fmul double %u, %if
  ret double %r
}
