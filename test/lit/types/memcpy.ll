; types/memcpy.ll - llvm.memcpy and llvm.memmove make the destination memory and the source memory the same, in both directions; the length is an integer.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-types>' -disable-output %s 2>&1 | %FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
declare void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1)

; Forward: the source is known to hold {double, pointer to float}; after
; the copy, the destination does too, and the load from it is a pointer.
; CHECK-LABEL: types of 'forward':
; CHECK-NEXT:  ptr %dst : {[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Pointer, [-1,8,0]:Float@float}
; CHECK-NEXT:  ptr %src : {[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Pointer, [-1,8,0]:Float@float}
; CHECK-NEXT:  double %x : {[-1]:Float@double}
; CHECK-NEXT:  ptr %f : {[-1]:Pointer, [-1,0]:Float@float}
; CHECK-NEXT:  float %y : {[-1]:Float@float}
; CHECK-NEXT:  %src8 = getelementptr inbounds i8, ptr %src, i64 8 : {[-1]:Pointer, [-1,0]:Pointer, [-1,0,0]:Float@float}
; CHECK-NEXT:  %dst8 = getelementptr inbounds i8, ptr %dst, i64 8 : {[-1]:Pointer, [-1,0]:Pointer, [-1,0,0]:Float@float}
; CHECK-NEXT:  %g = load i64, ptr %dst8, align 8 : {[-1]:Pointer, [-1,0]:Float@float}
; CHECK-NOT:   {{^  }}
define i64 @forward(ptr %dst, ptr %src, double %x, ptr %f, float %y) {
  store double %x, ptr %src, align 8
  store float %y, ptr %f, align 4
  %src8 = getelementptr inbounds i8, ptr %src, i64 8
  store ptr %f, ptr %src8, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 16, i1 false)
  %dst8 = getelementptr inbounds i8, ptr %dst, i64 8
  %g = load i64, ptr %dst8, align 8
  ret i64 %g
}

; Backward: only the destination is read after the copy (as floats); the
; source learns it, and so does the i32 loaded from the source before.
; The variable length is an integer.
; CHECK-LABEL: types of 'backward':
; CHECK-NEXT:  ptr %dst : {[-1]:Pointer, [-1,0]:Float@float, [-1,4]:Float@float}
; CHECK-NEXT:  ptr %src : {[-1]:Pointer, [-1,0]:Float@float, [-1,4]:Float@float}
; CHECK-NEXT:  i64 %n : {[-1]:Integer}
; CHECK-NEXT:  %early = load i32, ptr %src, align 4 : {[-1]:Float@float}
; CHECK-NEXT:  %a = load float, ptr %dst, align 4 : {[-1]:Float@float}
; CHECK-NEXT:  %d4 = getelementptr inbounds i8, ptr %dst, i64 4 : {[-1]:Pointer, [-1,0]:Float@float}
; CHECK-NEXT:  %b = load float, ptr %d4, align 4 : {[-1]:Float@float}
; CHECK-NEXT:  %s = fadd float %a, %b : {[-1]:Float@float}
; CHECK-NOT:   {{^  }}
define float @backward(ptr %dst, ptr %src, i64 %n) {
  %early = load i32, ptr %src, align 4
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 %n, i1 false)
  %a = load float, ptr %dst, align 4
  %d4 = getelementptr inbounds i8, ptr %dst, i64 4
  %b = load float, ptr %d4, align 4
  %s = fadd float %a, %b
  ret float %s
}

; memmove follows the same rule.
; CHECK-LABEL: types of 'move':
; CHECK-NEXT:  ptr %dst : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  ptr %src : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  %v = load double, ptr %src, align 8 : {[-1]:Float@double}
; CHECK-NEXT:  %w = load i64, ptr %dst, align 8 : {[-1]:Float@double}
; CHECK-NOT:   {{^  }}
define i64 @move(ptr %dst, ptr %src) {
  %v = load double, ptr %src, align 8
  call void @llvm.memmove.p0.p0.i64(ptr %dst, ptr %src, i64 8, i1 false)
  %w = load i64, ptr %dst, align 8
  ret i64 %w
}
