; activity/integer-math.ll - integer math is constant, even when computed
; from active data (fptosi), from integer loads of shadowed memory or from
; loop counters; but an integer holding a shadowed pointer's bits is
; shadowed, so a double loaded through it stays active.  Pins both sides:
; integers carry no derivatives, and pointer bits must not lose theirs.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='print<zymase-activity>' -disable-output %s 2>&1 | %FileCheck %s
;
; The printer makes every floating-point argument and the return active and
; every pointer argument shadowed (dup).  Integers never print as active:
; they are "constant", or "shadowed" when they carry a shadowed pointer's
; bits.  Activity tracks those bits itself (ptrtoint, then + or - an
; offset, phis, inttoptr), not through the type analysis.

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

; Integer arithmetic, compares, extensions and selects on an integer cut
; from %x are constant; so is the double made back from it, which only
; scales the active %x.
; CHECK-LABEL: activity of 'ints':
; CHECK-NEXT:  active    double %x
; CHECK-NEXT:  constant  i32 %n
; CHECK-NEXT:  constant  %i = fptosi double %x to i32
; CHECK-NEXT:  constant  %a = add i32 %i, 3
; CHECK-NEXT:  constant  %m = mul i32 %a, %n
; CHECK-NEXT:  constant  %s = shl i32 %m, 2
; CHECK-NEXT:  constant  %b = and i32 %s, 255
; CHECK-NEXT:  constant  %c = icmp slt i32 %b, 10
; CHECK-NEXT:  constant  %z = zext i32 %b to i64
; CHECK-NEXT:  constant  %e = sext i32 %a to i64
; CHECK-NEXT:  constant  %w = add i64 %z, %e
; CHECK-NEXT:  constant  %sel = select i1 %c, i64 %w, i64 7
; CHECK-NEXT:  constant  %f = sitofp i64 %sel to double
; CHECK-NEXT:  active    %r = fmul double %x, %f
; CHECK-NOT:   {{active|constant|shadowed}}
define double @ints(double %x, i32 %n) {
  %i = fptosi double %x to i32
  %a = add i32 %i, 3
  %m = mul i32 %a, %n
  %s = shl i32 %m, 2
  %b = and i32 %s, 255
  %c = icmp slt i32 %b, 10
  %z = zext i32 %b to i64
  %e = sext i32 %a to i64
  %w = add i64 %z, %e
  %sel = select i1 %c, i64 %w, i64 7
  %f = sitofp i64 %sel to double
  %r = fmul double %x, %f
  ret double %r
}

; sitofp of an integer computed from constants only is constant.
; CHECK-LABEL: activity of 'from_constants':
; CHECK-NEXT:  active    double %x
; CHECK-NEXT:  constant  %k = add i32 3, 4
; CHECK-NEXT:  constant  %k2 = mul i32 %k, %k
; CHECK-NEXT:  constant  %kf = sitofp i32 %k2 to double
; CHECK-NEXT:  active    %r = fmul double %x, %kf
; CHECK-NOT:   {{active|constant|shadowed}}
define double @from_constants(double %x) {
  %k = add i32 3, 4
  %k2 = mul i32 %k, %k
  %kf = sitofp i32 %k2 to double
  %r = fmul double %x, %kf
  ret double %r
}

; A gather p[q[i]]: the loop counter phi, its compare, and the index loaded
; as an integer from shadowed memory are constant; only the double loaded
; through the index is active.
; CHECK-LABEL: activity of 'gather':
; CHECK-NEXT:  shadowed  ptr %p
; CHECK-NEXT:  shadowed  ptr %q
; CHECK-NEXT:  constant  i64 %n
; CHECK-NEXT:  constant  %i = phi i64
; CHECK-NEXT:  active    %acc = phi double
; CHECK-NEXT:  shadowed  %ip = getelementptr i32, ptr %q, i64 %i
; CHECK-NEXT:  constant  %idx = load i32, ptr %ip
; CHECK-NEXT:  constant  %idx64 = sext i32 %idx to i64
; CHECK-NEXT:  shadowed  %dp = getelementptr double, ptr %p, i64 %idx64
; CHECK-NEXT:  active    %v = load double, ptr %dp
; CHECK-NEXT:  active    %acc.next = fadd double %acc, %v
; CHECK-NEXT:  constant  %i.next = add nuw nsw i64 %i, 1
; CHECK-NEXT:  constant  %c = icmp ult i64 %i.next, %n
; CHECK-NOT:   {{active|constant|shadowed}}
define double @gather(ptr %p, ptr %q, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  %ip = getelementptr i32, ptr %q, i64 %i
  %idx = load i32, ptr %ip
  %idx64 = sext i32 %idx to i64
  %dp = getelementptr double, ptr %p, i64 %idx64
  %v = load double, ptr %dp
  %acc.next = fadd double %acc, %v
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit

exit:
  ret double %acc.next
}

; p[1] through the pointer's bits: each integer on the way is shadowed (it
; gets a shadow made by the same arithmetic on the shadow's bits), so the
; load is active.  Reporting %q constant would drop dp[1].
; CHECK-LABEL: activity of 'pointer_bits':
; CHECK-NEXT:  shadowed  ptr %p
; CHECK-NEXT:  active    double %x
; CHECK-NEXT:  shadowed  %pi = ptrtoint ptr %p to i64
; CHECK-NEXT:  shadowed  %q = add i64 %pi, 8
; CHECK-NEXT:  shadowed  %qp = inttoptr i64 %q to ptr
; CHECK-NEXT:  active    %v = load double, ptr %qp
; CHECK-NEXT:  active    %r = fmul double %v, %x
; CHECK-NOT:   {{active|constant|shadowed}}
define double @pointer_bits(ptr %p, double %x) {
  %pi = ptrtoint ptr %p to i64
  %q = add i64 %pi, 8
  %qp = inttoptr i64 %q to ptr
  %v = load double, ptr %qp
  %r = fmul double %v, %x
  ret double %r
}

; A pointer walked as an integer in a loop: the integer phi is shadowed
; (its incoming %pi is, and the fixpoint reaches the latch's add), the
; counter phi next to it is constant.
; CHECK-LABEL: activity of 'pointer_bits_loop':
; CHECK-NEXT:  shadowed  ptr %p
; CHECK-NEXT:  constant  i64 %n
; CHECK-NEXT:  shadowed  %pi = ptrtoint ptr %p to i64
; CHECK-NEXT:  shadowed  %ip = phi i64
; CHECK-NEXT:  constant  %i = phi i64
; CHECK-NEXT:  active    %acc = phi double
; CHECK-NEXT:  shadowed  %qp = inttoptr i64 %ip to ptr
; CHECK-NEXT:  active    %v = load double, ptr %qp
; CHECK-NEXT:  active    %acc.next = fadd double %acc, %v
; CHECK-NEXT:  shadowed  %ip.next = add i64 %ip, 8
; CHECK-NEXT:  constant  %i.next = add i64 %i, 1
; CHECK-NEXT:  constant  %c = icmp ult i64 %i.next, %n
; CHECK-NOT:   {{active|constant|shadowed}}
define double @pointer_bits_loop(ptr %p, i64 %n) {
entry:
  %pi = ptrtoint ptr %p to i64
  br label %loop

loop:
  %ip = phi i64 [ %pi, %entry ], [ %ip.next, %loop ]
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  %qp = inttoptr i64 %ip to ptr
  %v = load double, ptr %qp
  %acc.next = fadd double %acc, %v
  %ip.next = add i64 %ip, 8
  %i.next = add i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit

exit:
  ret double %acc.next
}

; The difference of two pointers' bits is a plain integer (an element
; count), not a pointer: constant, and so is the double made from it.
; CHECK-LABEL: activity of 'pointer_difference':
; CHECK-NEXT:  shadowed  ptr %p
; CHECK-NEXT:  shadowed  ptr %e
; CHECK-NEXT:  shadowed  %pi = ptrtoint ptr %p to i64
; CHECK-NEXT:  shadowed  %ei = ptrtoint ptr %e to i64
; CHECK-NEXT:  constant  %d = sub i64 %ei, %pi
; CHECK-NEXT:  constant  %n = ashr exact i64 %d, 3
; CHECK-NEXT:  constant  %nf = sitofp i64 %n to double
; CHECK-NEXT:  active    %v = load double, ptr %p
; CHECK-NEXT:  active    %r = fmul double %v, %nf
; CHECK-NOT:   {{active|constant|shadowed}}
define double @pointer_difference(ptr %p, ptr %e) {
  %pi = ptrtoint ptr %p to i64
  %ei = ptrtoint ptr %e to i64
  %d = sub i64 %ei, %pi
  %n = ashr exact i64 %d, 3
  %nf = sitofp i64 %n to double
  %v = load double, ptr %p
  %r = fmul double %v, %nf
  ret double %r
}

; Not pinned here: pointer bits masked with `and`, or an i64 load of a
; stored pointer, then inttoptr.  The printer reports those pointers (and
; loads through them) constant; gradients refuse them as unsupported
; rather than dropping the derivative (errors/memory-inttoptr-atomic.c).
