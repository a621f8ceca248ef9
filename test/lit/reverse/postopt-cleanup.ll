; reverse/postopt-cleanup.ll - the post-AD optimization removes what the
; sweeps emit but the gradient does not need: adjoint slots and their
; accumulations starting from zero, an adjoint whose every contribution
; dies (k's, moved into k's shadow and cleared by `store 3.0`), shadow
; allocas nobody reads (k's, cnt's), and the per-iteration cache of x[i],
; used in the reverse only for that dead adjoint: buffer, realloc, stores
; and free.  NOPOST shows they are emitted, so the POST checks can fail.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt -zymase-keep-buffers-mb=0 %s -S | %FileCheck %s --check-prefix=POST
; RUN: %zyopt -zymase-no-preopt -zymase-keep-buffers-mb=0 -zymase-no-postopt %s -S | %FileCheck %s --check-prefix=NOPOST
; RUN: %zyopt -zymase-no-preopt %s -S | %FileCheck %s --check-prefix=KEPT
;
; Loop buffers kept for the next call (the default, lib/cache/loops.c) are
; stored in a global, so LLVM can no longer delete a dead one: KEPT pins
; that known cost; the other runs turn keeping off to check the cleanup.
; KEPT: @zymase.keep.__zymase_grad.f.
; KEPT: define internal void @__zymase_grad.f.
; KEPT: call void @free(
;
; Without the pre-AD pipeline the function keeps its -O0 shape: k = 3.0
; and the counter cnt live in stack slots (every alloca gets a shadow), and
; kv, loaded from k, is active.  x[i] is cached per iteration: the store to
; out[i] may overwrite it.
;
; The module declares neither malloc nor free: Zymase's declarations must
; carry the attributes that let LLVM pair the buffer's malloc with its
; free, or the unused buffer stays.

target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

; out[i] = x[i] * k; returns the sum of the out[i].
define double @f(ptr %x, ptr %out, i64 %n) {
entry:
  %k = alloca double
  %cnt = alloca i64
  store double 3.0, ptr %k
  store i64 0, ptr %cnt
  %kv = load double, ptr %k
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi double [ 0.0, %entry ], [ %acc.next, %loop ]
  %px = getelementptr inbounds double, ptr %x, i64 %i
  %xi = load double, ptr %px
  %t = fmul double %xi, %kv
  %po = getelementptr inbounds double, ptr %out, i64 %i
  store double %t, ptr %po
  %c0 = load i64, ptr %cnt
  %c1 = add i64 %c0, 1
  store i64 %c1, ptr %cnt
  %acc.next = fadd double %acc, %t
  %i.next = add nuw nsw i64 %i, 1
  %c = icmp ult i64 %i.next, %n
  br i1 %c, label %loop, label %exit

exit:
  ret double %acc.next
}

declare double @__enzyme_autodiff(ptr, ...)

define double @caller(ptr %x, ptr %dx, ptr %o, ptr %do, i64 %n) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, ptr %o, ptr %do, i64 %n)
  ret double %r
}


; Before the cleanup.  Adjoint slots start at zero:
; NOPOST-LABEL: define internal void @__zymase_grad.f.
; NOPOST:       zymase.slots:
; NOPOST-DAG:   %d.kv = alloca double
; NOPOST-DAG:   store double 0.000000e+00, ptr %d.kv
; NOPOST-DAG:   %d.xi = alloca double
; NOPOST-DAG:   store double 0.000000e+00, ptr %d.xi
; NOPOST-DAG:   %zymase.buffer = alloca ptr
; Shadows of k and cnt; cnt's is never read:
; NOPOST:       {{^}}entry:
; NOPOST-NEXT:  %k = alloca double
; NOPOST-NEXT:  %k.shadow = alloca double
; NOPOST-NEXT:  call void @llvm.memset.p0.i64(ptr align 1 %k.shadow, i8 0, i64 8, i1 false)
; NOPOST-NEXT:  %cnt = alloca i64
; NOPOST-NEXT:  %cnt.shadow = alloca i64
; NOPOST-NEXT:  call void @llvm.memset.p0.i64(ptr align 1 %cnt.shadow, i8 0, i64 8, i1 false)
; NOPOST-NOT:   %cnt.shadow
; The adjoint of kv goes into k's shadow, which `store 3.0` then clears:
; NOPOST:       reverse.entry:
; NOPOST-NEXT:  [[DKV:%[0-9]+]] = load double, ptr %d.kv
; NOPOST-NEXT:  store double 0.000000e+00, ptr %d.kv
; NOPOST-NEXT:  [[OLD:%[0-9]+]] = load double, ptr %k.shadow
; NOPOST-NEXT:  [[NEW:%[0-9]+]] = fadd nsz double [[OLD]], [[DKV]]
; NOPOST-NEXT:  store double [[NEW]], ptr %k.shadow
; NOPOST-NEXT:  {{%[0-9]+}} = load double, ptr %k.shadow
; NOPOST-NEXT:  store double 0.000000e+00, ptr %k.shadow
; NOPOST-NEXT:  [[BUF:%[0-9]+]] = load ptr, ptr %zymase.buffer
; NOPOST-NEXT:  call void @free(ptr [[BUF]])
; NOPOST-NOT:   %cnt.shadow
; That adjoint is the only use of the cached x[i]:
; NOPOST:       reverse.loop:
; NOPOST:       {{%[0-9]+}} = fmul double [[DT:%[0-9]+]], %kv
; NOPOST:       [[XI:%[0-9]+]] = load double, ptr {{%[0-9]+}}
; NOPOST-NEXT:  [[C:%[0-9]+]] = fmul double [[DT]], [[XI]]
; NOPOST-NEXT:  [[L:%[0-9]+]] = load double, ptr %d.kv
; NOPOST-NEXT:  {{%[0-9]+}} = fadd nsz double [[L]], [[C]]
; NOPOST-NOT:   %cnt.shadow
; NOPOST:       loop2:
; NOPOST:       %xi = load double, ptr %px
; NOPOST-NEXT:  [[B:%[0-9]+]] = load ptr, ptr %zymase.buffer
; NOPOST-NEXT:  [[P:%[0-9]+]] = getelementptr inbounds double, ptr [[B]], i64 %zymase.idx
; NOPOST-NEXT:  store double %xi, ptr [[P]]
; NOPOST-NOT:   %cnt.shadow
; NOPOST:       zymase.grow:
; NOPOST:       call ptr @realloc(
; NOPOST:       {{^}}}

; After the cleanup: no slot, no shadow, no zero accumulation, no buffer.
; What remains is dx[i] += (dret + dout[i]) * 3 (kv folded to 3).
; POST-LABEL: define internal void @__zymase_grad.f.
; POST-NOT:   {{alloca|memset|shadow|%d\.|@malloc|@realloc|@free|store double %xi}}
; POST-NOT:   fadd {{.*}}0.000000e+00
; POST:       fmul double %{{[0-9]+}}, 3.000000e+00
; POST-NOT:   {{alloca|memset|shadow|%d\.|@malloc|@realloc|@free|store double %xi}}
; POST-NOT:   fadd {{.*}}0.000000e+00
; POST:       {{^}}}
