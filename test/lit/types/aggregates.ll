; types/aggregates.ll - struct values carry facts per byte offset; extractvalue and insertvalue move them between a member and its offset in the aggregate, and aggregate loads and stores keep the layout in memory.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-types>' -disable-output %s 2>&1 | %FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

%T = type { double, i32, ptr }

; An aggregate argument has its LLVM layout (double at 0, pointer at 16;
; the i32 at 8 is unknown until used); members extracted from it learn
; what the pointer reaches and that the i32 is an integer, and hand it back.
; CHECK-LABEL: types of 'extract':
; CHECK-NEXT:  %T %t : {[0]:Float@double, [8]:Integer, [16]:Pointer, [16,0]:Float@float}
; CHECK-NEXT:  %x = extractvalue %T %t, 0 : {[-1]:Float@double}
; CHECK-NEXT:  %n = extractvalue %T %t, 1 : {[-1]:Integer}
; CHECK-NEXT:  %n2 = mul i32 %n, 2 : {[-1]:Integer}
; CHECK-NEXT:  %p = extractvalue %T %t, 2 : {[-1]:Pointer, [-1,0]:Float@float}
; CHECK-NEXT:  %f = load float, ptr %p, align 4 : {[-1]:Float@float}
; CHECK-NOT:   {{^  }}
define float @extract(%T %t) {
  %x = extractvalue %T %t, 0
  %n = extractvalue %T %t, 1
  %n2 = mul i32 %n, 2
  %p = extractvalue %T %t, 2
  %f = load float, ptr %p, align 4
  ret float %f
}

; Building the struct member by member: each insertvalue places the member's
; facts at its offset; facts of members inserted later do not flow back to
; the earlier aggregates.
; CHECK-LABEL: types of 'insert':
; CHECK-NEXT:  double %x : {[-1]:Float@double}
; CHECK-NEXT:  i32 %n : {[-1]:Integer}
; CHECK-NEXT:  ptr %p : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  %n2 = mul i32 %n, 3 : {[-1]:Integer}
; CHECK-NEXT:  %v = load double, ptr %p, align 8 : {[-1]:Float@double}
; CHECK-NEXT:  %t0 = insertvalue %T poison, double %x, 0 : {[0]:Float@double, [16]:Pointer}
; CHECK-NEXT:  %t1 = insertvalue %T %t0, i32 %n2, 1 : {[0]:Float@double, [8]:Integer, [16]:Pointer}
; CHECK-NEXT:  %t2 = insertvalue %T %t1, ptr %p, 2 : {[0]:Float@double, [8]:Integer, [16]:Pointer, [16,0]:Float@double}
; CHECK-NOT:   {{^  }}
define %T @insert(double %x, i32 %n, ptr %p) {
  %n2 = mul i32 %n, 3
  %v = load double, ptr %p, align 8
  %t0 = insertvalue %T poison, double %x, 0
  %t1 = insertvalue %T %t0, i32 %n2, 1
  %t2 = insertvalue %T %t1, ptr %p, 2
  ret %T %t2
}

; A member inserted as an i64 learns from the aggregate what it is: the
; struct is later stored and its bytes 0..7 read back as a double.
; CHECK-LABEL: types of 'insert_bits':
; CHECK-NEXT:  i64 %bits : {[-1]:Float@double}
; CHECK-NEXT:  ptr %out : {[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Float@double}
; CHECK-NEXT:  %s = insertvalue { i64, double } poison, i64 %bits, 0 : {[0]:Float@double, [8]:Float@double}
; CHECK-NEXT:  %d = load double, ptr %out, align 8 : {[-1]:Float@double}
; CHECK-NOT:   {{^  }}
define double @insert_bits(i64 %bits, ptr %out) {
  %s = insertvalue { i64, double } poison, i64 %bits, 0
  store { i64, double } %s, ptr %out, align 8
  %d = load double, ptr %out, align 8
  ret double %d
}

; A nested path: member 1 of member 1 of { float, { i32, double } } is at
; byte 8 + 8 = 16.
; CHECK-LABEL: types of 'nested':
; CHECK-NEXT:  { float, { i32, double } } %a : {[0]:Float@float, [16]:Float@double}
; CHECK-NEXT:  %d = extractvalue { float, { i32, double } } %a, 1, 1 : {[-1]:Float@double}
; CHECK-NEXT:  %in = extractvalue { float, { i32, double } } %a, 1 : {[8]:Float@double}
; CHECK-NOT:   {{^  }}
define double @nested({ float, { i32, double } } %a) {
  %d = extractvalue { float, { i32, double } } %a, 1, 1
  %in = extractvalue { float, { i32, double } } %a, 1
  ret double %d
}

; An array member: element 2 of [3 x float] is at byte 8; and an aggregate
; load takes the memory's layout.
; CHECK-LABEL: types of 'array_member':
; CHECK-NEXT:  ptr %p : {[-1]:Pointer, [-1,0]:Float@float, [-1,4]:Float@float, [-1,8]:Float@float}
; CHECK-NEXT:  %a = load [3 x float], ptr %p, align 4 : {[0]:Float@float, [4]:Float@float, [8]:Float@float}
; CHECK-NEXT:  %e = extractvalue [3 x float] %a, 2 : {[-1]:Float@float}
; CHECK-NOT:   {{^  }}
define float @array_member(ptr %p) {
  %a = load [3 x float], ptr %p, align 4
  %e = extractvalue [3 x float] %a, 2
  ret float %e
}
