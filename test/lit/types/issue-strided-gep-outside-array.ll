; types/issue-strided-gep-outside-array.ll - a variable-index GEP folds ALL of the base's memory facts modulo the stride, including bytes outside the indexed array (KNOWN BUG: a `load double` comes out Anything; this test fails until fixed).
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-types>' -disable-output %s 2>&1 | %FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

%struct.A = type { [4 x double], i64 }

; struct A { double a[4]; long n; };  p->n * 2 and p->a[i].
; The count at byte 32 is folded modulo 8 onto offset 0 of &p->a[i] and
; meets the doubles.  Expected: %v and the element memory are doubles.
; Observed: %s {[-1,0]:Anything, [-1,32]:Integer}, %p {[-1,0]:Anything},
; %v {[-1]:Anything}.
; CHECK-LABEL: types of 'member_array':
; CHECK-NEXT:  ptr %s : {[-1]:Pointer, [-1,0]:Float@double, [-1,32]:Integer}
; CHECK-NEXT:  i64 %i : {[-1]:Integer}
; CHECK-NEXT:  %pn = getelementptr inbounds i8, ptr %s, i64 32 : {[-1]:Pointer, [-1,0]:Integer}
; CHECK-NEXT:  %n = load i64, ptr %pn, align 8 : {[-1]:Integer}
; CHECK-NEXT:  %n2 = mul i64 %n, 2 : {[-1]:Integer}
; CHECK-NEXT:  %p = getelementptr inbounds %struct.A, ptr %s, i64 0, i32 0, i64 %i : {[-1]:Pointer, [-1,0]:Float@double
; CHECK-NEXT:  %v = load double, ptr %p, align 8 : {[-1]:Float@double}
define double @member_array(ptr %s, i64 %i) {
  %pn = getelementptr inbounds i8, ptr %s, i64 32
  %n = load i64, ptr %pn, align 8
  %n2 = mul i64 %n, 2
  %p = getelementptr inbounds %struct.A, ptr %s, i64 0, i32 0, i64 %i
  %v = load double, ptr %p, align 8
  ret double %v
}

; The -O2 form of an array of struct { double x; long n; } indexed by bytes
; (i * 16 computed by shl): the byte GEP has stride 1, so x at 0 and n at 8
; meet at 0.  Expected: %x is a double.  Observed: %x {[-1]:Anything}.
; CHECK-LABEL: types of 'byte_index':
; CHECK:       %x = load double, ptr %pe, align 8 : {[-1]:Float@double}
define double @byte_index(ptr %a, i64 %i) {
  %off = shl nuw nsw i64 %i, 4
  %pe = getelementptr inbounds i8, ptr %a, i64 %off
  %x = load double, ptr %pe, align 8
  %pn = getelementptr inbounds i8, ptr %pe, i64 8
  %n = load i64, ptr %pn, align 8
  %n3 = mul i64 %n, 3
  ret double %x
}
