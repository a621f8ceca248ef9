; types/issue-memcpy-length.ll - llvm.memcpy with a constant length must only relate the copied bytes (KNOWN BUG: the length is ignored, so facts past it leak between source and destination; this test fails until fixed).
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-types>' -disable-output %s 2>&1 | %FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

; Only bytes 0..7 are copied; byte 8 is an integer in %src and a pointer in
; %dst.  Expected: %src {0: double, 8: Integer}, %dst {0: double, 8: Pointer},
; %q a pointer.  Observed: [-1,8]:Anything in both, %q {[-1]:Anything}.
; CHECK-LABEL: types of 'partial':
; CHECK-NEXT:  ptr %dst : {[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Pointer}
; CHECK-NEXT:  ptr %src : {[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Integer}
; CHECK-NEXT:  %s8 = getelementptr inbounds i8, ptr %src, i64 8 : {[-1]:Pointer, [-1,0]:Integer}
; CHECK-NEXT:  %n = load i64, ptr %s8, align 8 : {[-1]:Integer}
; CHECK-NEXT:  %n2 = mul i64 %n, 2 : {[-1]:Integer}
; CHECK-NEXT:  %x = load double, ptr %dst, align 8 : {[-1]:Float@double}
; CHECK-NEXT:  %d8 = getelementptr inbounds i8, ptr %dst, i64 8 : {[-1]:Pointer, [-1,0]:Pointer}
; CHECK-NEXT:  %q = load ptr, ptr %d8, align 8 : {[-1]:Pointer}
define ptr @partial(ptr %dst, ptr %src) {
  %s8 = getelementptr inbounds i8, ptr %src, i64 8
  %n = load i64, ptr %s8, align 8
  %n2 = mul i64 %n, 2
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 8, i1 false)
  %x = load double, ptr %dst, align 8
  %d8 = getelementptr inbounds i8, ptr %dst, i64 8
  %q = load ptr, ptr %d8, align 8
  ret ptr %q
}
