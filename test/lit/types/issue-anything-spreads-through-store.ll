; types/issue-anything-spreads-through-store.ll - a conflict in one memory location must not spread, through a value stored there, to other memory that only ever holds that value (KNOWN BUG: the store rule joins the value with the memory both ways, so Anything flows into the stored double and on to its other location; this test fails until fixed).
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-types>' -disable-output %s 2>&1 | %FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

; Byte 0 of %p holds a double then a float (a conflict); byte 8 only ever
; holds the double %x.  Expected: [-1,8]:Float@double (Enzyme purges
; Anything before passing memory facts to a stored value).  Observed:
; [-1,8]:Anything, and `double %x` and `float %f` are Anything too.
; CHECK-LABEL: types of 'neighbour':
; CHECK-NEXT:  ptr %p : {[-1]:Pointer, [-1,0]:Anything, [-1,8]:Float@double}
; CHECK-NEXT:  double %x : {[-1]:Float@double}
; CHECK-NEXT:  float %f : {[-1]:Float@float}
; CHECK-NEXT:  %p8 = getelementptr inbounds i8, ptr %p, i64 8 : {[-1]:Pointer, [-1,0]:Float@double}
define void @neighbour(ptr %p, double %x, float %f) {
  store double %x, ptr %p, align 8
  store float %f, ptr %p, align 4
  %p8 = getelementptr inbounds i8, ptr %p, i64 8
  store double %x, ptr %p8, align 8
  ret void
}
