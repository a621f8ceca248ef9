; types/issue-ptrtoint-int-op.ll - shifting or truncating a pointer's integer value (hashing, alignment checks) must not turn the pointer into Anything (KNOWN BUG: the integer rule marks the operand Integer, which meets Pointer through ptrtoint; this test fails until fixed).
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-types>' -disable-output %s 2>&1 | %FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

; (uintptr_t)p >> 4.  Expected: %p stays a pointer to double.
; Observed: ptr %p : {[-1]:Anything, [-1,0]:Float@double}.
; CHECK-LABEL: types of 'hash':
; CHECK-NEXT:  ptr %p : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  %v = load double, ptr %p, align 8 : {[-1]:Float@double}
; CHECK-NEXT:  %i = ptrtoint ptr %p to i64 : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  %h = lshr i64 %i, 4 : {[-1]:Integer}
define i64 @hash(ptr %p) {
  %v = load double, ptr %p, align 8
  %i = ptrtoint ptr %p to i64
  %h = lshr i64 %i, 4
  ret i64 %h
}

; (unsigned)(uintptr_t)p.  Expected: %p is a pointer.
; Observed: ptr %p : {[-1]:Anything}.
; CHECK-LABEL: types of 'low_bits':
; CHECK-NEXT:  ptr %p : {[-1]:Pointer}
; CHECK-NEXT:  %i = ptrtoint ptr %p to i64 : {[-1]:Pointer}
; CHECK-NEXT:  %lo = trunc i64 %i to i32 : {[-1]:Integer}
define i32 @low_bits(ptr %p) {
  %i = ptrtoint ptr %p to i64
  %lo = trunc i64 %i to i32
  ret i32 %lo
}
