; types/issue-vector-int-arith.ll - integer arithmetic and int/float conversions on vectors of integers give Integer like their scalar forms (KNOWN BUG: mark_int only accepts scalar integer types, so vectors get nothing; this test fails until fixed).
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-types>' -disable-output %s 2>&1 | %FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

; Expected: %n, %k, %w and %c Integer, as `mul i32`/`sitofp i32`/
; `fptosi` would give.  Observed: {} for all four.
; CHECK-LABEL: types of 'vec_int':
; CHECK-NEXT:  <4 x i32> %n : {[-1]:Integer}
; CHECK-NEXT:  <4 x float> %f : {[-1]:Float@float}
; CHECK-NEXT:  %k = mul <4 x i32> %n, %n : {[-1]:Integer}
; CHECK-NEXT:  %w = sitofp <4 x i32> %k to <4 x float> : {[-1]:Float@float}
; CHECK-NEXT:  %c = fptosi <4 x float> %f to <4 x i32> : {[-1]:Integer}
; CHECK-NEXT:  %s = add <4 x i32> %k, %c : {}
define <4 x i32> @vec_int(<4 x i32> %n, <4 x float> %f) {
  %k = mul <4 x i32> %n, %n
  %w = sitofp <4 x i32> %k to <4 x float>
  %c = fptosi <4 x float> %f to <4 x i32>
  %s = add <4 x i32> %k, %c
  ret <4 x i32> %s
}
