; types/issue-narrow-load-of-wide-float.ll - a load narrower than the float stored at its offset (the low half of a double, one byte of it) is not that float (KNOWN BUG: the load rule keeps every fact at offsets below the load size, so an i32 or i8 comes out Float@double; this test fails until fixed).
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-types>' -disable-output %s 2>&1 | %FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

; Expected: %lo is not Float@double (4 bytes cannot hold a double).
; Observed: %lo = load i32 ... : {[-1]:Float@double}.
; CHECK-LABEL: types of 'low_half':
; CHECK:       %lo = load i32, ptr %p, align 8 :
; CHECK-NOT:   Float@double
; CHECK-LABEL: types of 'byte_copy':
define i32 @low_half(ptr %p, double %x) {
  store double %x, ptr %p, align 8
  %lo = load i32, ptr %p, align 8
  ret i32 %lo
}

; A byte-wise copy of a double: neither the byte nor the destination's
; byte 0 is a whole double.  Observed: %b {[-1]:Float@double} and %d
; {[-1]:Pointer, [-1,0]:Float@double}.
; CHECK:       ptr %d :
; CHECK-NOT:   Float@double
; CHECK:       ptr %s :
; CHECK:       %b = load i8, ptr %s, align 1 :
; CHECK-NOT:   Float@double
define void @byte_copy(ptr %d, ptr %s) {
  %x = load double, ptr %s, align 8
  %b = load i8, ptr %s, align 1
  store i8 %b, ptr %d, align 1
  ret void
}
