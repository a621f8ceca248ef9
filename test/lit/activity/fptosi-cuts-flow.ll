; activity/fptosi-cuts-flow.ll - conversion to an integer cuts the flow of derivatives: what is computed from the integer is constant.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-activity>' -disable-output %s 2>&1 | %FileCheck %s

; CHECK-LABEL: activity of 'f':
; CHECK-NEXT:  active    double %x
; CHECK-NEXT:  constant  %i = fptosi double %x to i32
; CHECK-NEXT:  constant  %u = fptoui double %x to i32
; CHECK-NEXT:  constant  %s = add i32 %i, %u
; CHECK-NEXT:  constant  %back = sitofp i32 %s to double
; CHECK-NEXT:  constant  %sq = fmul double %back, %back
; CHECK-NEXT:  active    %r = fadd double %sq, %x
; CHECK-NOT:   {{active|constant}}
define double @f(double %x) {
  %i = fptosi double %x to i32
  %u = fptoui double %x to i32
  %s = add i32 %i, %u
  %back = sitofp i32 %s to double
  %sq = fmul double %back, %back
  %r = fadd double %sq, %x
  ret double %r
}

; Only the integer path: nothing reaching the return is active, not even
; %x, whose only use converts it (its derivative is 0).
; CHECK-LABEL: activity of 'floor':
; CHECK-NEXT:  constant  double %x
; CHECK-NEXT:  constant  %i = fptosi double %x to i64
; CHECK-NEXT:  constant  %r = sitofp i64 %i to double
define double @floor(double %x) {
  %i = fptosi double %x to i64
  %r = sitofp i64 %i to double
  ret double %r
}
