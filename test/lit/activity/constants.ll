; activity/constants.ll - integers and floating-point values computed only from constants are constant; memory reached through pointer arguments is not.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-activity>' -disable-output %s 2>&1 | %FileCheck %s
;
; The printer makes every floating-point argument and the return active.

; CHECK-LABEL: activity of 'f':
; CHECK-NEXT:  active    double %x
; CHECK-NEXT:  constant  i32 %n
; Pointer arguments are shadowed (dup) by default, so what is loaded
; through them is active.
; CHECK-NEXT:  shadowed  ptr %p
; CHECK-NEXT:  constant  %k = fadd double 2.000000e+00, 3.000000e+00
; CHECK-NEXT:  constant  %i = add i32 %n, 1
; CHECK-NEXT:  constant  %nf = sitofp i32 %i to double
; CHECK-NEXT:  active    %l = load double, ptr %p
; CHECK-NEXT:  constant  %c = fmul double %k, %nf
; CHECK-NEXT:  active    %cl = fmul double %c, %l
; CHECK-NEXT:  active    %r = fmul double %x, %cl
; CHECK-NOT:   {{active|constant}}
define double @f(double %x, i32 %n, ptr %p) {
  %k = fadd double 2.0, 3.0
  %i = add i32 %n, 1
  %nf = sitofp i32 %i to double
  %l = load double, ptr %p
  %c = fmul double %k, %nf
  %cl = fmul double %c, %l
  %r = fmul double %x, %cl
  ret double %r
}

; Without a floating-point return nothing is active, not even the argument.
; CHECK-LABEL: activity of 'noret':
; CHECK-NEXT:  constant  double %x
; CHECK-NEXT:  constant  %m = fmul double %x, %x
; CHECK-NEXT:  constant  %i = fptosi double %m to i32
define i32 @noret(double %x) {
  %m = fmul double %x, %x
  %i = fptosi double %m to i32
  ret i32 %i
}

; A struct argument holding a double is differentiable.
; CHECK-LABEL: activity of 'agg':
; CHECK-NEXT:  active    { double, i32 } %s
; CHECK-NEXT:  active    %d = extractvalue { double, i32 } %s, 0
; CHECK-NEXT:  constant  %i = extractvalue { double, i32 } %s, 1
define double @agg({ double, i32 } %s) {
  %d = extractvalue { double, i32 } %s, 0
  %i = extractvalue { double, i32 } %s, 1
  ret double %d
}
