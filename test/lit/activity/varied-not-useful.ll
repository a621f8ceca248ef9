; activity/varied-not-useful.ll - values that depend on an active argument but do not reach the return are constant.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-activity>' -disable-output %s 2>&1 | %FileCheck %s

; y reaches only dead code, so even the argument is constant.
; CHECK-LABEL: activity of 'f':
; CHECK-NEXT:  active    double %x
; CHECK-NEXT:  constant  double %y
; CHECK-NEXT:  constant  %dead = fmul double %x, %y
; CHECK-NEXT:  constant  %dead2 = fadd double %dead, 1.000000e+00
; CHECK-NEXT:  constant  %v = insertelement <2 x double> undef, double %y, i32 0
; CHECK-NEXT:  active    %r = fmul double %x, 2.000000e+00
; CHECK-NOT:   {{active|constant}}
define double @f(double %x, double %y) {
  %dead = fmul double %x, %y
  %dead2 = fadd double %dead, 1.0
  %v = insertelement <2 x double> undef, double %y, i32 0
  %r = fmul double %x, 2.0
  ret double %r
}

; y only reaches memory without a shadow (a constant global's memory is
; never written; here a global marked inactive), not the return value.
; CHECK-LABEL: activity of 'stored':
; CHECK-NEXT:  active    double %x
; CHECK-NEXT:  constant  double %y
; CHECK-NEXT:  constant  %t = fmul double %y, %y
; CHECK-NEXT:  active    %r = fadd double %x, %x
@out = global double 0.0
@__enzyme_inactive_global = global [1 x ptr] [ptr @out]

define double @stored(double %x, double %y) {
  %t = fmul double %y, %y
  store double %t, ptr @out
  %r = fadd double %x, %x
  ret double %r
}

; Stored into memory that has a shadow (a pointer argument is dup by
; default), y's square is an output: active.
; CHECK-LABEL: activity of 'stored_dup':
; CHECK-NEXT:  active    double %x
; CHECK-NEXT:  active    double %y
; CHECK-NEXT:  shadowed  ptr %p
; CHECK-NEXT:  active    %t = fmul double %y, %y
; CHECK-NEXT:  active    %r = fadd double %x, %x
define double @stored_dup(double %x, double %y, ptr %p) {
  %t = fmul double %y, %y
  store double %t, ptr %p
  %r = fadd double %x, %x
  ret double %r
}
