; types/gep-constant.ll - a GEP with constant indices moves memory facts by the field's byte offset, from the struct pointer to the field pointer and back.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-types>' -disable-output %s 2>&1 | %FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

%struct.S = type { double, i32, float, ptr }

; Uses of the fields give the struct pointer its layout: double at 0, an
; integer at 8 (multiplied), float at 12, a pointer to double at 16.
; CHECK-LABEL: types of 'fields':
; CHECK-NEXT:  ptr %s : {[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Integer, [-1,12]:Float@float, [-1,16]:Pointer, [-1,16,0]:Float@double}
; CHECK-NEXT:  %a = load double, ptr %s, align 8 : {[-1]:Float@double}
; CHECK-NEXT:  %pn = getelementptr inbounds %struct.S, ptr %s, i64 0, i32 1 : {[-1]:Pointer, [-1,0]:Integer, [-1,4]:Float@float, [-1,8]:Pointer, [-1,8,0]:Float@double}
; CHECK-NEXT:  %n = load i32, ptr %pn, align 8 : {[-1]:Integer}
; CHECK-NEXT:  %n2 = mul i32 %n, 2 : {[-1]:Integer}
; CHECK-NEXT:  %pf = getelementptr inbounds %struct.S, ptr %s, i64 0, i32 2 : {[-1]:Pointer, [-1,0]:Float@float, [-1,4]:Pointer, [-1,4,0]:Float@double}
; CHECK-NEXT:  %f = load float, ptr %pf, align 4 : {[-1]:Float@float}
; CHECK-NEXT:  %pq = getelementptr inbounds %struct.S, ptr %s, i64 0, i32 3 : {[-1]:Pointer, [-1,0]:Pointer, [-1,0,0]:Float@double}
; CHECK-NEXT:  %q = load ptr, ptr %pq, align 8 : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  %b = load double, ptr %q, align 8 : {[-1]:Float@double}
; CHECK-NOT:   {{^  }}
define i32 @fields(ptr %s) {
  %a = load double, ptr %s, align 8
  %pn = getelementptr inbounds %struct.S, ptr %s, i64 0, i32 1
  %n = load i32, ptr %pn, align 8
  %n2 = mul i32 %n, 2
  %pf = getelementptr inbounds %struct.S, ptr %s, i64 0, i32 2
  %f = load float, ptr %pf, align 4
  %pq = getelementptr inbounds %struct.S, ptr %s, i64 0, i32 3
  %q = load ptr, ptr %pq, align 8
  %b = load double, ptr %q, align 8
  ret i32 %n2
}

; The facts also flow from the struct pointer down to a field pointer: the
; store through %s says field 1 holds a float, so a load of it as i32 is a float.
; CHECK-LABEL: types of 'down':
; CHECK-NEXT:  ptr %s : {[-1]:Pointer, [-1,8]:Float@float}
; CHECK-NEXT:  float %x : {[-1]:Float@float}
; CHECK-NEXT:  %p8 = getelementptr inbounds i8, ptr %s, i64 8 : {[-1]:Pointer, [-1,0]:Float@float}
; CHECK-NEXT:  %p8b = getelementptr inbounds %struct.S, ptr %s, i64 0, i32 1 : {[-1]:Pointer, [-1,0]:Float@float}
; CHECK-NEXT:  %bits = load i32, ptr %p8b, align 8 : {[-1]:Float@float}
; CHECK-NOT:   {{^  }}
define i32 @down(ptr %s, float %x) {
  %p8 = getelementptr inbounds i8, ptr %s, i64 8
  store float %x, ptr %p8, align 4
  %p8b = getelementptr inbounds %struct.S, ptr %s, i64 0, i32 1
  %bits = load i32, ptr %p8b, align 8
  ret i32 %bits
}

; Nested structs and a second array element add up their offsets: element 1
; of a [2 x {float, double}] field at 8 is at 8 + 16 + 8 = 32.
; CHECK-LABEL: types of 'nested':
; CHECK-NEXT:  ptr %p : {[-1]:Pointer, [-1,32]:Float@double}
; CHECK-NEXT:  %q = getelementptr inbounds { i64, [2 x { float, double }] }, ptr %p, i64 0, i32 1, i64 1, i32 1 : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  %v = load double, ptr %q, align 8 : {[-1]:Float@double}
; CHECK-NOT:   {{^  }}
define double @nested(ptr %p) {
  %q = getelementptr inbounds { i64, [2 x { float, double }] }, ptr %p, i64 0, i32 1, i64 1, i32 1
  %v = load double, ptr %q, align 8
  ret double %v
}

; Facts the field pointer holds below its own offset stay behind: from the
; pointer to byte 16, the double at byte 8 of the base is not visible.
; CHECK-LABEL: types of 'window':
; CHECK-NEXT:  ptr %p : {[-1]:Pointer, [-1,8]:Float@double, [-1,16]:Float@float}
; CHECK-NEXT:  %p8 = getelementptr inbounds i8, ptr %p, i64 8 : {[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Float@float}
; CHECK-NEXT:  %a = load double, ptr %p8, align 8 : {[-1]:Float@double}
; CHECK-NEXT:  %p16 = getelementptr inbounds i8, ptr %p, i64 16 : {[-1]:Pointer, [-1,0]:Float@float}
; CHECK-NEXT:  %b = load float, ptr %p16, align 4 : {[-1]:Float@float}
; CHECK-NOT:   {{^  }}
define float @window(ptr %p) {
  %p8 = getelementptr inbounds i8, ptr %p, i64 8
  %a = load double, ptr %p8, align 8
  %p16 = getelementptr inbounds i8, ptr %p, i64 16
  %b = load float, ptr %p16, align 4
  ret float %b
}
