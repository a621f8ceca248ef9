; types/gep-strided.ll - a GEP with a variable index moves memory facts modulo its stride (array elements share one type); -O2 style byte GEPs with constant offsets move them by that offset.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-types>' -disable-output %s 2>&1 | %FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

%struct.P = type { double, i64 }

; a[i] for a double array: the element fact reaches the base at offset 0,
; and the index is an integer.
; CHECK-LABEL: types of 'elem':
; CHECK-NEXT:  ptr %a : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  i64 %i : {[-1]:Integer}
; CHECK-NEXT:  %p = getelementptr inbounds double, ptr %a, i64 %i : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  %v = load double, ptr %p, align 8 : {[-1]:Float@double}
; CHECK-NOT:   {{^  }}
define double @elem(ptr %a, i64 %i) {
  %p = getelementptr inbounds double, ptr %a, i64 %i
  %v = load double, ptr %p, align 8
  ret double %v
}

; Known facts of the base reach the element pointer too: the store through
; %a says floats, so the i32 loaded from a[i] is a float.
; CHECK-LABEL: types of 'elem_down':
; CHECK-NEXT:  ptr %a : {[-1]:Pointer, [-1,0]:Float@float}
; CHECK-NEXT:  i64 %i : {[-1]:Integer}
; CHECK-NEXT:  float %x : {[-1]:Float@float}
; CHECK-NEXT:  %p = getelementptr inbounds float, ptr %a, i64 %i : {[-1]:Pointer, [-1,0]:Float@float}
; CHECK-NEXT:  %bits = load i32, ptr %p, align 4 : {[-1]:Float@float}
; CHECK-NOT:   {{^  }}
define i32 @elem_down(ptr %a, i64 %i, float %x) {
  store float %x, ptr %a, align 4
  %p = getelementptr inbounds float, ptr %a, i64 %i
  %bits = load i32, ptr %p, align 4
  ret i32 %bits
}

; An array of {double, i64} with a variable index: the field offset within
; the 16-byte element is kept (constant 8, stride 16), the layout of one
; element is shared by the base and both field pointers.
; CHECK-LABEL: types of 'struct_array':
; CHECK-NEXT:  ptr %a : {[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Integer}
; CHECK-NEXT:  i64 %i : {[-1]:Integer}
; CHECK-NEXT:  %px = getelementptr inbounds %struct.P, ptr %a, i64 %i, i32 0 : {[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Integer}
; CHECK-NEXT:  %x = load double, ptr %px, align 8 : {[-1]:Float@double}
; CHECK-NEXT:  %pn = getelementptr inbounds %struct.P, ptr %a, i64 %i, i32 1 : {[-1]:Pointer, [-1,0]:Integer, [-1,8]:Float@double}
; CHECK-NEXT:  %n = load i64, ptr %pn, align 8 : {[-1]:Integer}
; CHECK-NEXT:  %n3 = mul i64 %n, 3 : {[-1]:Integer}
; CHECK-NOT:   {{^  }}
define i64 @struct_array(ptr %a, i64 %i) {
  %px = getelementptr inbounds %struct.P, ptr %a, i64 %i, i32 0
  %x = load double, ptr %px, align 8
  %pn = getelementptr inbounds %struct.P, ptr %a, i64 %i, i32 1
  %n = load i64, ptr %pn, align 8
  %n3 = mul i64 %n, 3
  ret i64 %n3
}

; The same at -O2: the element pointer, then a byte GEP to the field.
; CHECK-LABEL: types of 'struct_array_o2':
; CHECK-NEXT:  ptr %a : {[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Integer}
; CHECK-NEXT:  i64 %i : {[-1]:Integer}
; CHECK-NEXT:  %pe = getelementptr inbounds %struct.P, ptr %a, i64 %i : {[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Integer}
; CHECK-NEXT:  %x = load double, ptr %pe, align 8 : {[-1]:Float@double}
; CHECK-NEXT:  %pn = getelementptr inbounds i8, ptr %pe, i64 8 : {[-1]:Pointer, [-1,0]:Integer}
; CHECK-NEXT:  %n = load i64, ptr %pn, align 8 : {[-1]:Integer}
; CHECK-NEXT:  %n3 = mul i64 %n, 3 : {[-1]:Integer}
; CHECK-NOT:   {{^  }}
define i64 @struct_array_o2(ptr %a, i64 %i) {
  %pe = getelementptr inbounds %struct.P, ptr %a, i64 %i
  %x = load double, ptr %pe, align 8
  %pn = getelementptr inbounds i8, ptr %pe, i64 8
  %n = load i64, ptr %pn, align 8
  %n3 = mul i64 %n, 3
  ret i64 %n3
}

; Byte GEPs with constant offsets into a double array: a[1] and a[2].
; CHECK-LABEL: types of 'byte_offsets':
; CHECK-NEXT:  ptr %a : {[-1]:Pointer, [-1,8]:Float@double, [-1,16]:Float@double}
; CHECK-NEXT:  %p1 = getelementptr inbounds i8, ptr %a, i64 8 : {[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Float@double}
; CHECK-NEXT:  %x = load double, ptr %p1, align 8 : {[-1]:Float@double}
; CHECK-NEXT:  %p2 = getelementptr inbounds i8, ptr %a, i64 16 : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  %y = load double, ptr %p2, align 8 : {[-1]:Float@double}
; CHECK-NEXT:  %s = fadd double %x, %y : {[-1]:Float@double}
; CHECK-NOT:   {{^  }}
define double @byte_offsets(ptr %a) {
  %p1 = getelementptr inbounds i8, ptr %a, i64 8
  %x = load double, ptr %p1, align 8
  %p2 = getelementptr inbounds i8, ptr %a, i64 16
  %y = load double, ptr %p2, align 8
  %s = fadd double %x, %y
  ret double %s
}

; A 2-D array: row stride 32, column stride 8, gcd 8; the element type
; reaches the base at offset 0.
; CHECK-LABEL: types of 'matrix':
; CHECK-NEXT:  ptr %m : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  i64 %i : {[-1]:Integer}
; CHECK-NEXT:  i64 %j : {[-1]:Integer}
; CHECK-NEXT:  %p = getelementptr inbounds [4 x double], ptr %m, i64 %i, i64 %j : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  %v = load double, ptr %p, align 8 : {[-1]:Float@double}
; CHECK-NOT:   {{^  }}
define double @matrix(ptr %m, i64 %i, i64 %j) {
  %p = getelementptr inbounds [4 x double], ptr %m, i64 %i, i64 %j
  %v = load double, ptr %p, align 8
  ret double %v
}

; -O2 loop over a double array by byte offsets (i * 8 computed by shl).
; CHECK-LABEL: types of 'shl_index':
; CHECK-NEXT:  ptr %a : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  i64 %i : {[-1]:Integer}
; CHECK-NEXT:  %off = shl nuw nsw i64 %i, 3 : {[-1]:Integer}
; CHECK-NEXT:  %p = getelementptr inbounds i8, ptr %a, i64 %off : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  %v = load double, ptr %p, align 8 : {[-1]:Float@double}
; CHECK-NOT:   {{^  }}
define double @shl_index(ptr %a, i64 %i) {
  %off = shl nuw nsw i64 %i, 3
  %p = getelementptr inbounds i8, ptr %a, i64 %off
  %v = load double, ptr %p, align 8
  ret double %v
}
