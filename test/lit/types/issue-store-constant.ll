; types/issue-store-constant.ll - a store of a constant tells the memory the constant's type (KNOWN BUG: constants get no facts, so `store double 0.0` says nothing about the pointer; this test fails until fixed).
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-types>' -disable-output %s 2>&1 | %FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

@g = global float 0.0

; `*out = 0.0; *slot = &g;` as clang emits it.  Expected: *%out is a double
; and *%slot a pointer to float, as for a store of a non-constant value.
; Observed: %out {[-1]:Pointer}, %slot {[-1]:Pointer, [-1,0,0]:Float@float}
; (seed_value only seeds arguments and instructions: the double constant's
; tree is empty, and @g is known to point to a float but not to be a pointer).
; CHECK-LABEL: types of 'store_constants':
; CHECK-NEXT:  ptr %out : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  ptr %slot : {[-1]:Pointer, [-1,0]:Pointer, [-1,0,0]:Float@float}
; CHECK-NEXT:  %v = load float, ptr @g, align 4 : {[-1]:Float@float}
; CHECK-NOT:   {{^  }}
define void @store_constants(ptr %out, ptr %slot) {
  store double 0.000000e+00, ptr %out, align 8
  %v = load float, ptr @g, align 4
  store ptr @g, ptr %slot, align 8
  ret void
}
