; types/int-arith.ll - mul, div, rem, shifts, trunc, zext and sext make their result and operands integers; add, sub and bitwise ops (which also do pointer and float-bit arithmetic) get no rule.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-types>' -disable-output %s 2>&1 | %FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

; Each operation marks both sides; the facts then reach the memory the
; operands were loaded from.
; CHECK-LABEL: types of 'ops':
; CHECK-NEXT:  ptr %p : {[-1]:Pointer, [-1,0]:Integer}
; CHECK-NEXT:  i32 %a : {[-1]:Integer}
; CHECK-NEXT:  i32 %b : {[-1]:Integer}
; CHECK-NEXT:  i32 %c : {[-1]:Integer}
; CHECK-NEXT:  i32 %d : {[-1]:Integer}
; CHECK-NEXT:  i32 %e : {[-1]:Integer}
; CHECK-NEXT:  %m = mul i32 %a, %b : {[-1]:Integer}
; CHECK-NEXT:  %q = sdiv i32 %m, %c : {[-1]:Integer}
; CHECK-NEXT:  %u = udiv i32 %q, %d : {[-1]:Integer}
; CHECK-NEXT:  %r = srem i32 %u, %e : {[-1]:Integer}
; CHECK-NEXT:  %r2 = urem i32 %r, 7 : {[-1]:Integer}
; CHECK-NEXT:  %sh = shl i32 %r2, 1 : {[-1]:Integer}
; CHECK-NEXT:  %lr = lshr i32 %sh, 2 : {[-1]:Integer}
; CHECK-NEXT:  %ar = ashr i32 %lr, 1 : {[-1]:Integer}
; CHECK-NEXT:  %w = sext i32 %ar to i64 : {[-1]:Integer}
; CHECK-NEXT:  %l = load i64, ptr %p, align 8 : {[-1]:Integer}
; CHECK-NEXT:  %t = trunc i64 %l to i16 : {[-1]:Integer}
; CHECK-NEXT:  %z = zext i16 %t to i64 : {[-1]:Integer}
; CHECK-NOT:   {{^  }}
define i64 @ops(ptr %p, i32 %a, i32 %b, i32 %c, i32 %d, i32 %e) {
  %m = mul i32 %a, %b
  %q = sdiv i32 %m, %c
  %u = udiv i32 %q, %d
  %r = srem i32 %u, %e
  %r2 = urem i32 %r, 7
  %sh = shl i32 %r2, 1
  %lr = lshr i32 %sh, 2
  %ar = ashr i32 %lr, 1
  %w = sext i32 %ar to i64
  %l = load i64, ptr %p, align 8
  %t = trunc i64 %l to i16
  %z = zext i16 %t to i64
  ret i64 %z
}

; An integer stored makes the memory an integer (store of a mul result).
; CHECK-LABEL: types of 'store_int':
; CHECK-NEXT:  ptr %p : {[-1]:Pointer, [-1,0]:Integer}
; CHECK-NEXT:  i64 %n : {[-1]:Integer}
; CHECK-NEXT:  %n2 = mul i64 %n, %n : {[-1]:Integer}
; CHECK-NOT:   {{^  }}
define void @store_int(ptr %p, i64 %n) {
  %n2 = mul i64 %n, %n
  store i64 %n2, ptr %p, align 8
  ret void
}

; An integer comparison and a bare i32 argument say nothing.
; CHECK-LABEL: types of 'icmp_only':
; CHECK-NEXT:  i32 %a : {}
; CHECK-NEXT:  i32 %b : {}
; CHECK-NEXT:  %c = icmp slt i32 %a, %b : {}
; CHECK-NOT:   {{^  }}
define i1 @icmp_only(i32 %a, i32 %b) {
  %c = icmp slt i32 %a, %b
  ret i1 %c
}

; add, sub, and, or, xor have no rule yet (they may be pointer arithmetic or
; float sign-bit tricks), so even an add of two known integers stays
; unknown.  Enzyme derives Integer here (both operands Integer); this pins
; the current, weaker result.
; CHECK-LABEL: types of 'no_rule':
; CHECK-NEXT:  i64 %a : {[-1]:Integer}
; CHECK-NEXT:  i64 %b : {[-1]:Integer}
; CHECK-NEXT:  %m = mul i64 %a, %b : {[-1]:Integer}
; CHECK-NEXT:  %s = add i64 %m, 1 : {}
; CHECK-NEXT:  %d = sub i64 %s, %m : {}
; CHECK-NEXT:  %x = and i64 %d, 7 : {}
; CHECK-NEXT:  %o = or i64 %x, %m : {}
; CHECK-NEXT:  %y = xor i64 %o, -1 : {}
; CHECK-NOT:   {{^  }}
define i64 @no_rule(i64 %a, i64 %b) {
  %m = mul i64 %a, %b
  %s = add i64 %m, 1
  %d = sub i64 %s, %m
  %x = and i64 %d, 7
  %o = or i64 %x, %m
  %y = xor i64 %o, -1
  ret i64 %y
}

; A float sign flip through its bits: xor does not make the bits an
; integer, and the xor result is a double because it is cast back to one.
; CHECK-LABEL: types of 'sign_bits':
; CHECK-NEXT:  double %x : {[-1]:Float@double}
; CHECK-NEXT:  %i = bitcast double %x to i64 : {[-1]:Float@double}
; CHECK-NEXT:  %f = xor i64 %i, -9223372036854775808 : {[-1]:Float@double}
; CHECK-NEXT:  %y = bitcast i64 %f to double : {[-1]:Float@double}
; CHECK-NOT:   {{^  }}
define double @sign_bits(double %x) {
  %i = bitcast double %x to i64
  %f = xor i64 %i, -9223372036854775808
  %y = bitcast i64 %f to double
  ret double %y
}
