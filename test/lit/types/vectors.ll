; types/vectors.ll - vectors are uniform: extractelement, insertelement and shufflevector share facts between lanes and vectors; vector loads and stores lay the lanes out at element-size steps in memory.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-types>' -disable-output %s 2>&1 | %FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

; A <2 x double> store covers bytes 0 and 8; a <4 x float> load covers
; 0, 4, 8 and 12 of its memory.
; CHECK-LABEL: types of 'lanes_in_memory':
; CHECK-NEXT:  <2 x double> %v : {[-1]:Float@double}
; CHECK-NEXT:  ptr %p : {[-1]:Pointer, [-1,0]:Float@double, [-1,8]:Float@double}
; CHECK-NEXT:  ptr %q : {[-1]:Pointer, [-1,0]:Float@float, [-1,4]:Float@float, [-1,8]:Float@float, [-1,12]:Float@float}
; CHECK-NEXT:  %w = load <4 x float>, ptr %q, align 16 : {[-1]:Float@float}
; CHECK-NOT:   {{^  }}
define <4 x float> @lanes_in_memory(<2 x double> %v, ptr %p, ptr %q) {
  store <2 x double> %v, ptr %p, align 16
  %w = load <4 x float>, ptr %q, align 16
  ret <4 x float> %w
}

; Integer vectors learn from their lanes: the lanes of %iv are bit patterns
; of doubles (bitcast back), so the scalar inserted into it is one too, and
; the extracted lane of the shuffle is as well.
; CHECK-LABEL: types of 'lane_ops':
; CHECK-NEXT:  <2 x i64> %iv : {[-1]:Float@double}
; CHECK-NEXT:  i64 %s : {[-1]:Float@double}
; CHECK-NEXT:  %ins = insertelement <2 x i64> %iv, i64 %s, i32 1 : {[-1]:Float@double}
; CHECK-NEXT:  %sh = shufflevector <2 x i64> %ins, <2 x i64> %iv, <2 x i32> <i32 1, i32 2> : {[-1]:Float@double}
; CHECK-NEXT:  %e = extractelement <2 x i64> %sh, i64 0 : {[-1]:Float@double}
; CHECK-NEXT:  %d = bitcast <2 x i64> %sh to <2 x double> : {[-1]:Float@double}
; CHECK-NOT:   {{^  }}
define i64 @lane_ops(<2 x i64> %iv, i64 %s) {
  %ins = insertelement <2 x i64> %iv, i64 %s, i32 1
  %sh = shufflevector <2 x i64> %ins, <2 x i64> %iv, <2 x i32> <i32 1, i32 2>
  %e = extractelement <2 x i64> %sh, i64 0
  %d = bitcast <2 x i64> %sh to <2 x double>
  ret i64 %e
}

; A vector of pointers: a lane is loaded from, so every lane points to float.
; CHECK-LABEL: types of 'ptr_lanes':
; CHECK-NEXT:  <2 x ptr> %ps : {[-1]:Pointer, [-1,0]:Float@float}
; CHECK-NEXT:  %p = extractelement <2 x ptr> %ps, i32 0 : {[-1]:Pointer, [-1,0]:Float@float}
; CHECK-NEXT:  %f = load float, ptr %p, align 4 : {[-1]:Float@float}
; CHECK-NOT:   {{^  }}
define float @ptr_lanes(<2 x ptr> %ps) {
  %p = extractelement <2 x ptr> %ps, i32 0
  %f = load float, ptr %p, align 4
  ret float %f
}

; Vector float arithmetic is typed by its element type.
; CHECK-LABEL: types of 'vec_arith':
; CHECK-NEXT:  <4 x float> %a : {[-1]:Float@float}
; CHECK-NEXT:  <2 x half> %h : {[-1]:Float@half}
; CHECK-NEXT:  %m = fmul <4 x float> %a, %a : {[-1]:Float@float}
; CHECK-NEXT:  %e = fpext <2 x half> %h to <2 x double> : {[-1]:Float@double}
; CHECK-NOT:   {{^  }}
define <2 x double> @vec_arith(<4 x float> %a, <2 x half> %h) {
  %m = fmul <4 x float> %a, %a
  %e = fpext <2 x half> %h to <2 x double>
  ret <2 x double> %e
}
