; types/calls.ll - calls to functions with a body join each argument with its parameter and the call with the returned values (one context per callee, merged over call sites); calls to declarations say nothing.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-types>' -disable-output %s 2>&1 | %FileCheck %s

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

declare i64 @opaque(ptr)

; Analysed alone, the callee knows only its own uses.
; CHECK-LABEL: types of 'first_bits':
; CHECK-NEXT:  ptr %p : {[-1]:Pointer}
; CHECK-NEXT:  %b = load i64, ptr %p, align 8 : {}
; CHECK-NOT:   {{^  }}
define internal i64 @first_bits(ptr %p) {
  %b = load i64, ptr %p, align 8
  ret i64 %b
}

; Caller -> callee -> caller: the caller's pointer holds a double, so the
; callee's load is a double and so is the i64 it returns.
; CHECK-LABEL: types of 'through':
; CHECK-NEXT:  ptr %p : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  double %x : {[-1]:Float@double}
; CHECK-NEXT:  %r = call i64 @first_bits(ptr %p) : {[-1]:Float@double}
; CHECK-NOT:   {{^  }}
define i64 @through(ptr %p, double %x) {
  store double %x, ptr %p, align 8
  %r = call i64 @first_bits(ptr %p)
  ret i64 %r
}

; Callee -> caller: the callee reads its argument's memory as a float at 4
; and returns its integer product, telling the caller about both.
; CHECK-LABEL: types of 'from_callee':
; CHECK-NEXT:  ptr %q : {[-1]:Pointer, [-1,4]:Float@float}
; CHECK-NEXT:  i64 %k : {[-1]:Integer}
; CHECK-NEXT:  %r = call float @second(ptr %q, i64 %k) : {[-1]:Float@float}
; CHECK-NEXT:  %m = call i64 @scale(i64 %k) : {[-1]:Integer}
; CHECK-NOT:   {{^  }}
define i64 @from_callee(ptr %q, i64 %k) {
  %r = call float @second(ptr %q, i64 %k)
  %m = call i64 @scale(i64 %k)
  ret i64 %m
}

; CHECK-LABEL: types of 'second':
; CHECK-NEXT:  ptr %p : {[-1]:Pointer, [-1,4]:Float@float}
; CHECK-NEXT:  i64 %unused : {}
; CHECK-NEXT:  %p4 = getelementptr inbounds i8, ptr %p, i64 4 : {[-1]:Pointer, [-1,0]:Float@float}
; CHECK-NEXT:  %f = load float, ptr %p4, align 4 : {[-1]:Float@float}
; CHECK-NOT:   {{^  }}
define internal float @second(ptr %p, i64 %unused) {
  %p4 = getelementptr inbounds i8, ptr %p, i64 4
  %f = load float, ptr %p4, align 4
  ret float %f
}

; CHECK-LABEL: types of 'scale':
; CHECK-NEXT:  i64 %v : {[-1]:Integer}
; CHECK-NEXT:  %m = mul i64 %v, 10 : {[-1]:Integer}
; CHECK-NOT:   {{^  }}
define internal i64 @scale(i64 %v) {
  %m = mul i64 %v, 10
  ret i64 %m
}

; Two call sites share the callee's context: what one argument is known to
; hold, the other argument is assumed to hold too; the returned i64 is a
; double at both sites.
; CHECK-LABEL: types of 'two_sites':
; CHECK-NEXT:  ptr %a : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  ptr %b : {[-1]:Pointer, [-1,0]:Float@double}
; CHECK-NEXT:  %x = load double, ptr %a, align 8 : {[-1]:Float@double}
; CHECK-NEXT:  %ra = call i64 @first_bits(ptr %a) : {[-1]:Float@double}
; CHECK-NEXT:  %rb = call i64 @first_bits(ptr %b) : {[-1]:Float@double}
; CHECK-NOT:   {{^  }}
define i64 @two_sites(ptr %a, ptr %b) {
  %x = load double, ptr %a, align 8
  %ra = call i64 @first_bits(ptr %a)
  %rb = call i64 @first_bits(ptr %b)
  ret i64 %rb
}

; Several returns are all joined with the call; a recursive call is joined
; with the function's own returns.
; CHECK-LABEL: types of 'two_returns':
; CHECK-NEXT:  i1 %c : {}
; CHECK-NEXT:  ptr %p : {[-1]:Pointer, [-1,0]:Float@float}
; CHECK-NEXT:  i64 %n : {[-1]:Integer}
; CHECK-NEXT:  %v = load i32, ptr %p, align 4 : {[-1]:Float@float}
; CHECK-NEXT:  %r = call i32 @two_returns(i1 %c, ptr %p, i64 %n) : {[-1]:Float@float}
; CHECK-NEXT:  %f = bitcast i32 %r to float : {[-1]:Float@float}
; CHECK-NEXT:  %n2 = mul i64 %n, 2 : {[-1]:Integer}
; CHECK-NOT:   {{^  }}
define i32 @two_returns(i1 %c, ptr %p, i64 %n) {
entry:
  br i1 %c, label %a, label %b
a:
  %v = load i32, ptr %p, align 4
  ret i32 %v
b:
  %r = call i32 @two_returns(i1 %c, ptr %p, i64 %n)
  %f = bitcast i32 %r to float
  %n2 = mul i64 %n, 2
  ret i32 %r
}

; A declaration gives no facts for its arguments or its result.
; CHECK-LABEL: types of 'external':
; CHECK-NEXT:  ptr %p : {[-1]:Pointer}
; CHECK-NEXT:  %r = call i64 @opaque(ptr %p) : {}
; CHECK-NOT:   {{^  }}
define i64 @external(ptr %p) {
  %r = call i64 @opaque(ptr %p)
  ret i64 %r
}
