; types/casts.ll - bitcast, ptrtoint, inttoptr (and freeze) keep the bytes, so the result and the operand share all their facts, including what the pointer reaches.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-types>' -disable-output %s 2>&1 | %FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

; double -> i64 -> double: the integer holds a double.
; CHECK-LABEL: types of 'bits_round_trip':
; CHECK-NEXT:  double %x : {[-1]:Float@double}
; CHECK-NEXT:  %i = bitcast double %x to i64 : {[-1]:Float@double}
; CHECK-NEXT:  %f = freeze i64 %i : {[-1]:Float@double}
; CHECK-NEXT:  %y = bitcast i64 %f to double : {[-1]:Float@double}
; CHECK-NOT:   {{^  }}
define double @bits_round_trip(double %x) {
  %i = bitcast double %x to i64
  %f = freeze i64 %i
  %y = bitcast i64 %f to double
  ret double %y
}

; An i32 argument turned into a float: the argument is a float.
; CHECK-LABEL: types of 'int_to_float_bits':
; CHECK-NEXT:  i32 %b : {[-1]:Float@float}
; CHECK-NEXT:  %f = bitcast i32 %b to float : {[-1]:Float@float}
; CHECK-NOT:   {{^  }}
define float @int_to_float_bits(i32 %b) {
  %f = bitcast i32 %b to float
  ret float %f
}

; ptr -> i64 -> ptr: the integer is a pointer, and the load through the
; round trip tells all three what the memory holds.
; CHECK-LABEL: types of 'ptr_round_trip':
; CHECK-NEXT:  ptr %p : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  %i = ptrtoint ptr %p to i64 : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  %q = inttoptr i64 %i to ptr : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  %v = load double, ptr %q, align 8 : {[-1]:Float@double}
; CHECK-NOT:   {{^  }}
define double @ptr_round_trip(ptr %p) {
  %i = ptrtoint ptr %p to i64
  %q = inttoptr i64 %i to ptr
  %v = load double, ptr %q, align 8
  ret double %v
}

; An i64 argument used as a pointer to float is a pointer.
; CHECK-LABEL: types of 'int_as_ptr':
; CHECK-NEXT:  i64 %addr : {[-1]:Pointer, [-1,0]:Float@float}
; CHECK-NEXT:  float %x : {[-1]:Float@float}
; CHECK-NEXT:  %p = inttoptr i64 %addr to ptr : {[-1]:Pointer, [-1,0]:Float@float}
; CHECK-NOT:   {{^  }}
define void @int_as_ptr(i64 %addr, float %x) {
  %p = inttoptr i64 %addr to ptr
  store float %x, ptr %p, align 4
  ret void
}

; A pointer stored as an i64 (ptrtoint, then an integer store): the memory
; holds a pointer, and the pointee facts move with it.
; CHECK-LABEL: types of 'ptr_stored_as_int':
; CHECK-NEXT:  ptr %slot : {[-1]:Pointer, [-1,0]:Pointer, [-1,0,0]:Float@double}
; CHECK-NEXT:  ptr %p : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  %i = ptrtoint ptr %p to i64 : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  %v = load double, ptr %p, align 8 : {[-1]:Float@double}
; CHECK-NOT:   {{^  }}
define double @ptr_stored_as_int(ptr %slot, ptr %p) {
  %i = ptrtoint ptr %p to i64
  store i64 %i, ptr %slot, align 8
  %v = load double, ptr %p, align 8
  ret double %v
}

; Two floats packed in an i64 (the x86-64 way of passing {float, float}):
; the vector's lanes land at bytes 0 and 4 of the memory.
; CHECK-LABEL: types of 'vector_bits':
; CHECK-NEXT:  <2 x float> %v : {[-1]:Float@float}
; CHECK-NEXT:  ptr %p : {[-1]:Pointer, [-1,0]:Float@float, [-1,4]:Float@float}
; CHECK-NEXT:  %i = bitcast <2 x float> %v to i64 : {[-1]:Float@float}
; CHECK-NOT:   {{^  }}
define void @vector_bits(<2 x float> %v, ptr %p) {
  %i = bitcast <2 x float> %v to i64
  store i64 %i, ptr %p, align 8
  ret void
}
