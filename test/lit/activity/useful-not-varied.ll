; activity/useful-not-varied.ll - values that reach the return but do not depend on an active argument are constant.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-activity>' -disable-output %s 2>&1 | %FileCheck %s

; CHECK-LABEL: activity of 'f':
; CHECK-NEXT:  active    double %x
; CHECK-NEXT:  constant  i32 %n
; CHECK-NEXT:  shadowed  ptr %p
; CHECK-NEXT:  constant  %nf = sitofp i32 %n to double
; CHECK-NEXT:  constant  %sq = fmul double %nf, %nf
; CHECK-NEXT:  constant  %l = load double, ptr @g
; CHECK-NEXT:  constant  %c = fadd double %sq, %l
; CHECK-NEXT:  active    %m = fmul double %x, %c
; CHECK-NEXT:  active    %r = fadd double %m, %c
; CHECK-NOT:   {{active|constant}}
; Memory of a constant global has no shadow: what is loaded from it is constant.
@g = constant double 4.0

define double @f(double %x, i32 %n, ptr %p) {
  %nf = sitofp i32 %n to double
  %sq = fmul double %nf, %nf
  %l = load double, ptr @g
  %c = fadd double %sq, %l
  %m = fmul double %x, %c
  %r = fadd double %m, %c
  ret double %r
}

; A function that returns a constant has nothing active.
; CHECK-LABEL: activity of 'k':
; CHECK-NEXT:  constant  double %x
; CHECK-NEXT:  constant  %c = fadd double 1.000000e+00, 2.000000e+00
define double @k(double %x) {
  %c = fadd double 1.0, 2.0
  ret double %c
}
