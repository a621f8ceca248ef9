; types/load-store.ll - loads and stores tie a value to the memory its pointer reaches, in both directions: double and float scalars, an i64 carrying a double's bits, a pointer to a pointer.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-types>' -disable-output %s 2>&1 | %FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

; A load of a double says what the pointer reaches.
; CHECK-LABEL: types of 'load_double':
; CHECK-NEXT:  ptr %p : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  %v = load double, ptr %p, align 8 : {[-1]:Float@double}
; CHECK-NOT:   {{^  }}
define double @load_double(ptr %p) {
  %v = load double, ptr %p, align 8
  ret double %v
}

; So does a store of a float.
; CHECK-LABEL: types of 'store_float':
; CHECK-NEXT:  ptr %p : {[-1]:Pointer, [-1,0]:Float@float}
; CHECK-NEXT:  float %x : {[-1]:Float@float}
; CHECK-NOT:   {{^  }}
define void @store_float(ptr %p, float %x) {
  store float %x, ptr %p, align 4
  ret void
}

; An i64 copied from %src to %dst holds a double: %dst is read as a double
; afterwards, so both memories and the i64 itself are Float@double.
; CHECK-LABEL: types of 'copy_bits':
; CHECK-NEXT:  ptr %src : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  ptr %dst : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  %bits = load i64, ptr %src, align 8 : {[-1]:Float@double}
; CHECK-NEXT:  %d = load double, ptr %dst, align 8 : {[-1]:Float@double}
; CHECK-NOT:   {{^  }}
define double @copy_bits(ptr %src, ptr %dst) {
  %bits = load i64, ptr %src, align 8
  store i64 %bits, ptr %dst, align 8
  %d = load double, ptr %dst, align 8
  ret double %d
}

; An i64 loaded and used for nothing but a copy stays unknown.
; CHECK-LABEL: types of 'copy_unknown':
; CHECK-NEXT:  ptr %src : {[-1]:Pointer}
; CHECK-NEXT:  ptr %dst : {[-1]:Pointer}
; CHECK-NEXT:  %bits = load i64, ptr %src, align 8 : {}
; CHECK-NOT:   {{^  }}
define void @copy_unknown(ptr %src, ptr %dst) {
  %bits = load i64, ptr %src, align 8
  store i64 %bits, ptr %dst, align 8
  ret void
}

; A pointer to a pointer to double: the facts nest one level per load.
; CHECK-LABEL: types of 'ptr_to_ptr':
; CHECK-NEXT:  ptr %pp : {[-1]:Pointer, [-1,0]:Pointer, [-1,0,0]:Float@double}
; CHECK-NEXT:  %p = load ptr, ptr %pp, align 8 : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  %v = load double, ptr %p, align 8 : {[-1]:Float@double}
; CHECK-NOT:   {{^  }}
define double @ptr_to_ptr(ptr %pp) {
  %p = load ptr, ptr %pp, align 8
  %v = load double, ptr %p, align 8
  ret double %v
}

; Storing a pointer whose memory is known tells the outer memory the same:
; %q holds a float, so *%pp is a pointer to float.
; CHECK-LABEL: types of 'store_ptr':
; CHECK-NEXT:  ptr %pp : {[-1]:Pointer, [-1,0]:Pointer, [-1,0,0]:Float@float}
; CHECK-NEXT:  ptr %q : {[-1]:Pointer, [-1,0]:Float@float}
; CHECK-NEXT:  float %x : {[-1]:Float@float}
; CHECK-NOT:   {{^  }}
define void @store_ptr(ptr %pp, ptr %q, float %x) {
  store float %x, ptr %q, align 4
  store ptr %q, ptr %pp, align 8
  ret void
}

; Three levels and an x86_fp80 at the bottom.
; CHECK-LABEL: types of 'three_levels':
; CHECK-NEXT:  ptr %ppp : {[-1]:Pointer, [-1,0]:Pointer, [-1,0,0]:Pointer, [-1,0,0,0]:Float@x86_fp80}
; CHECK-NEXT:  %pp = load ptr, ptr %ppp, align 8 : {[-1]:Pointer, [-1,0]:Pointer, [-1,0,0]:Float@x86_fp80}
; CHECK-NEXT:  %p = load ptr, ptr %pp, align 8 : {[-1]:Pointer, [-1,0]:Float@x86_fp80}
; CHECK-NEXT:  %v = load x86_fp80, ptr %p, align 16 : {[-1]:Float@x86_fp80}
; CHECK-NOT:   {{^  }}
define x86_fp80 @three_levels(ptr %ppp) {
  %pp = load ptr, ptr %ppp, align 8
  %p = load ptr, ptr %pp, align 8
  %v = load x86_fp80, ptr %p, align 16
  ret x86_fp80 %v
}
