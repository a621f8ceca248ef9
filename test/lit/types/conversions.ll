; types/conversions.ll - sitofp/uitofp make their operand an integer, fptosi/fptoui make their result one; the float side keeps its own type.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-types>' -disable-output %s 2>&1 | %FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

; int -> float: the operand is an integer, and so is the memory it came from.
; CHECK-LABEL: types of 'to_float':
; CHECK-NEXT:  ptr %p : {[-1]:Pointer, [-1,0]:Integer}
; CHECK-NEXT:  i32 %u : {[-1]:Integer}
; CHECK-NEXT:  %n = load i64, ptr %p, align 8 : {[-1]:Integer}
; CHECK-NEXT:  %d = sitofp i64 %n to double : {[-1]:Float@double}
; CHECK-NEXT:  %f = uitofp i32 %u to float : {[-1]:Float@float}
; CHECK-NEXT:  %fe = fpext float %f to double : {[-1]:Float@double}
; CHECK-NEXT:  %s = fadd double %d, %fe : {[-1]:Float@double}
; CHECK-NOT:   {{^  }}
define double @to_float(ptr %p, i32 %u) {
  %n = load i64, ptr %p, align 8
  %d = sitofp i64 %n to double
  %f = uitofp i32 %u to float
  %fe = fpext float %f to double
  %s = fadd double %d, %fe
  ret double %s
}

; float -> int: the result is an integer, and so is the memory it is
; stored to.
; CHECK-LABEL: types of 'to_int':
; CHECK-NEXT:  double %x : {[-1]:Float@double}
; CHECK-NEXT:  half %h : {[-1]:Float@half}
; CHECK-NEXT:  ptr %out : {[-1]:Pointer, [-1,0]:Integer}
; CHECK-NEXT:  %i = fptosi double %x to i64 : {[-1]:Integer}
; CHECK-NEXT:  %j = fptoui half %h to i8 : {[-1]:Integer}
; CHECK-NOT:   {{^  }}
define i8 @to_int(double %x, half %h, ptr %out) {
  %i = fptosi double %x to i64
  store i64 %i, ptr %out, align 8
  %j = fptoui half %h to i8
  ret i8 %j
}

; The round trip double -> i32 -> float: the integer in the middle is an
; integer, both ends keep their float kinds.
; CHECK-LABEL: types of 'round_trip':
; CHECK-NEXT:  double %x : {[-1]:Float@double}
; CHECK-NEXT:  %i = fptosi double %x to i32 : {[-1]:Integer}
; CHECK-NEXT:  %f = sitofp i32 %i to float : {[-1]:Float@float}
; CHECK-NOT:   {{^  }}
define float @round_trip(double %x) {
  %i = fptosi double %x to i32
  %f = sitofp i32 %i to float
  ret float %f
}

; fptrunc and fpext are typed by their own LLVM types only.
; CHECK-LABEL: types of 'fp_resize':
; CHECK-NEXT:  fp128 %x : {[-1]:Float@fp128}
; CHECK-NEXT:  %d = fptrunc fp128 %x to double : {[-1]:Float@double}
; CHECK-NEXT:  %b = fptrunc double %d to bfloat : {[-1]:Float@bfloat}
; CHECK-NEXT:  %e = fpext bfloat %b to x86_fp80 : {[-1]:Float@x86_fp80}
; CHECK-NOT:   {{^  }}
define x86_fp80 @fp_resize(fp128 %x) {
  %d = fptrunc fp128 %x to double
  %b = fptrunc double %d to bfloat
  %e = fpext bfloat %b to x86_fp80
  ret x86_fp80 %e
}
