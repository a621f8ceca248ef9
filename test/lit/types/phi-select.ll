; types/phi-select.ll - a phi or select has the facts of every incoming value or chosen operand, and passes its own facts back to them.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-types>' -disable-output %s 2>&1 | %FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

; A phi of two pointers: a load of double through one arm tells the phi,
; and the phi's load of a double at 8 tells both arms.
; CHECK-LABEL: types of 'phi_ptr':
; CHECK-NEXT:  ptr %a : {[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Float@double}
; CHECK-NEXT:  ptr %b : {[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Float@double}
; CHECK-NEXT:  i1 %c : {}
; CHECK-NEXT:  %x = load double, ptr %a, align 8 : {[-1]:Float@double}
; CHECK-NEXT:  %p = phi ptr [ %a, %entry ], [ %b, %other ] : {[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Float@double}
; CHECK-NEXT:  %p8 = getelementptr inbounds i8, ptr %p, i64 8 : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  %y = load double, ptr %p8, align 8 : {[-1]:Float@double}
; CHECK-NEXT:  %s = fadd double %x, %y : {[-1]:Float@double}
; CHECK-NOT:   {{^  }}
define double @phi_ptr(ptr %a, ptr %b, i1 %c) {
entry:
  %x = load double, ptr %a, align 8
  br i1 %c, label %join, label %other
other:
  br label %join
join:
  %p = phi ptr [ %a, %entry ], [ %b, %other ]
  %p8 = getelementptr inbounds i8, ptr %p, i64 8
  %y = load double, ptr %p8, align 8
  %s = fadd double %x, %y
  ret double %s
}

; A phi in a loop learns from its back edge: %cur is an integer only
; because %next, defined later in the loop, is a product; the fact then
; reaches the entry value %start.
; CHECK-LABEL: types of 'phi_loop':
; CHECK-NEXT:  i64 %start : {[-1]:Integer}
; CHECK-NEXT:  i64 %k : {[-1]:Integer}
; CHECK-NEXT:  i1 %c : {}
; CHECK-NEXT:  %cur = phi i64 [ %start, %entry ], [ %next, %loop ] : {[-1]:Integer}
; CHECK-NEXT:  %next = mul i64 %k, 3 : {[-1]:Integer}
; CHECK-NOT:   {{^  }}
define i64 @phi_loop(i64 %start, i64 %k, i1 %c) {
entry:
  br label %loop
loop:
  %cur = phi i64 [ %start, %entry ], [ %next, %loop ]
  %next = mul i64 %k, 3
  br i1 %c, label %exit, label %loop
exit:
  ret i64 %cur
}

; A select of two i64s: one is the bits of a double loaded from memory, so
; the select and the other arm are doubles, and so is the memory the other
; arm was loaded from.
; CHECK-LABEL: types of 'select_bits':
; CHECK-NEXT:  ptr %p : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  ptr %q : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  i1 %c : {}
; CHECK-NEXT:  %a = load i64, ptr %p, align 8 : {[-1]:Float@double}
; CHECK-NEXT:  %b = load i64, ptr %q, align 8 : {[-1]:Float@double}
; CHECK-NEXT:  %s = select i1 %c, i64 %a, i64 %b : {[-1]:Float@double}
; CHECK-NEXT:  %d = bitcast i64 %s to double : {[-1]:Float@double}
; CHECK-NOT:   {{^  }}
define double @select_bits(ptr %p, ptr %q, i1 %c) {
  %a = load i64, ptr %p, align 8
  %b = load i64, ptr %q, align 8
  %s = select i1 %c, i64 %a, i64 %b
  %d = bitcast i64 %s to double
  ret double %d
}

; A select of pointers: a store through the select reaches both operands.
; CHECK-LABEL: types of 'select_ptr':
; CHECK-NEXT:  ptr %p : {[-1]:Pointer, [-1,0]:Float@float}
; CHECK-NEXT:  ptr %q : {[-1]:Pointer, [-1,0]:Float@float}
; CHECK-NEXT:  float %x : {[-1]:Float@float}
; CHECK-NEXT:  %c = fcmp olt float %x, 0.000000e+00 : {}
; CHECK-NEXT:  %s = select i1 %c, ptr %p, ptr %q : {[-1]:Pointer, [-1,0]:Float@float}
; CHECK-NOT:   {{^  }}
define void @select_ptr(ptr %p, ptr %q, float %x) {
  %c = fcmp olt float %x, 0.0
  %s = select i1 %c, ptr %p, ptr %q
  store float %x, ptr %s, align 4
  ret void
}
