; types/conflict.ll - a location used both as a double and as an integer (or two different types reaching one value) becomes Anything; a conflict in memory does not spread to the values loaded or stored there, which keep their own types.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-types>' -disable-output %s 2>&1 | %FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

; *%p is read as a double and as an i64 that is multiplied: the memory is
; Anything; the double load stays a double, the i64 load met both
; types; the product itself is still an integer.
; CHECK-LABEL: types of 'double_and_int':
; CHECK-NEXT:  ptr %p : {[-1]:Pointer, [-1,0]:Anything}
; CHECK-NEXT:  %d = load double, ptr %p, align 8 : {[-1]:Float@double}
; CHECK-NEXT:  %i = load i64, ptr %p, align 8 : {[-1]:Anything}
; CHECK-NEXT:  %m = mul i64 %i, 3 : {[-1]:Integer}
; CHECK-NOT:   {{^  }}
define i64 @double_and_int(ptr %p) {
  %d = load double, ptr %p, align 8
  %i = load i64, ptr %p, align 8
  %m = mul i64 %i, 3
  ret i64 %m
}

; Other bytes of the same memory keep their own type.
; CHECK-LABEL: types of 'neighbour':
; CHECK-NEXT:  ptr %p : {[-1]:Pointer, [-1,0]:Anything, [-1,8]:Float@double}
; CHECK-NEXT:  %d = load double, ptr %p, align 8 : {[-1]:Float@double}
; CHECK-NEXT:  %f = load float, ptr %p, align 4 : {[-1]:Float@float}
; CHECK-NEXT:  %p8 = getelementptr inbounds i8, ptr %p, i64 8 : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  %e = load double, ptr %p8, align 8 : {[-1]:Float@double}
; CHECK-NOT:   {{^  }}
define double @neighbour(ptr %p) {
  %d = load double, ptr %p, align 8
  %f = load float, ptr %p, align 4
  %p8 = getelementptr inbounds i8, ptr %p, i64 8
  %e = load double, ptr %p8, align 8
  ret double %e
}

; A phi of a double's bits and an integer: the phi and both incoming values
; are Anything, and (facts flow both ways through the phi and the bitcast) so
; is the double argument the bits came from.
; CHECK-LABEL: types of 'phi_mix':
; CHECK-NEXT:  double %x : {[-1]:Anything}
; CHECK-NEXT:  i64 %n : {[-1]:Anything}
; CHECK-NEXT:  i1 %c : {}
; CHECK-NEXT:  %bits = bitcast double %x to i64 : {[-1]:Anything}
; CHECK-NEXT:  %k = phi i64 [ %bits, %entry ], [ %n, %other ] : {[-1]:Anything}
; CHECK-NEXT:  %sq = mul i64 %n, %n : {[-1]:Integer}
; CHECK-NOT:   {{^  }}
define i64 @phi_mix(double %x, i64 %n, i1 %c) {
entry:
  %bits = bitcast double %x to i64
  br i1 %c, label %join, label %other
other:
  br label %join
join:
  %k = phi i64 [ %bits, %entry ], [ %n, %other ]
  %sq = mul i64 %n, %n
  ret i64 %k
}

; Two call sites merged in one callee context: one passes memory read as
; a double, the other memory read as an integer; the shared parameter makes
; both callers' memory Anything.  (What the calls return depends on the
; order facts arrived in: the analysis is monotone, not precise, here.)
; CHECK-LABEL: types of 'sites_disagree':
; CHECK-NEXT:  ptr %a : {[-1]:Pointer, [-1,0]:Anything}
; CHECK-NEXT:  ptr %b : {[-1]:Pointer, [-1,0]:Anything}
; CHECK-NEXT:  %x = load double, ptr %a, align 8 : {[-1]:Float@double}
; CHECK-NEXT:  %n = load i64, ptr %b, align 8 : {[-1]:Anything}
; CHECK-NEXT:  %n2 = mul i64 %n, 2 : {[-1]:Integer}
; CHECK-NEXT:  %ra = call i64 @read(ptr %a) : {{.*}}
; CHECK-NEXT:  %rb = call i64 @read(ptr %b) : {{.*}}
; CHECK-NOT:   {{^  }}
define i64 @sites_disagree(ptr %a, ptr %b) {
  %x = load double, ptr %a, align 8
  %n = load i64, ptr %b, align 8
  %n2 = mul i64 %n, 2
  %ra = call i64 @read(ptr %a)
  %rb = call i64 @read(ptr %b)
  ret i64 %rb
}

; CHECK-LABEL: types of 'read':
; CHECK-NEXT:  ptr %p : {[-1]:Pointer}
; CHECK-NEXT:  %v = load i64, ptr %p, align 8 : {}
; CHECK-NOT:   {{^  }}
define internal i64 @read(ptr %p) {
  %v = load i64, ptr %p, align 8
  ret i64 %v
}
