; cache/stencil-mincut.ll - the minimum cut on a stencil updated in place
; (u is written in the loop, so its loads cannot be repeated in the
; reverse sweep):
;   c = u[i]; l = u[i-1]; r = u[i+1]; s = l + r
;   u[i] = c * s + c * c * c
; The reverse sweep needs c, s and c*c.  Caching l and r would cost two
; doubles for s; the cut caches c and s (two doubles per iteration) and
; recomputes c*c from c.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt -zymase-print-cache %s -S -o /dev/null 2>&1 | %FileCheck %s

; CHECK-LABEL: zymase: cache of the gradient of 'stencil'
; CHECK-DAG: %c: double, 8 bytes, per iteration of loop 1
; CHECK-DAG: %s: double, 8 bytes, per iteration of loop 1
; CHECK-DAG: %cc: double, 8 bytes, recomputed
; CHECK-NOT: %l: {{.*}} per iteration
; CHECK-NOT: %r: {{.*}} per iteration
; CHECK-NOT: %cc: {{.*}} per iteration

define void @stencil(ptr %u, i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 1, %entry ], [ %i.next, %loop ]
  %pc = getelementptr inbounds double, ptr %u, i64 %i
  %pl = getelementptr inbounds double, ptr %pc, i64 -1
  %pr = getelementptr inbounds double, ptr %pc, i64 1
  %c = load double, ptr %pc
  %l = load double, ptr %pl
  %r = load double, ptr %pr
  %s = fadd double %l, %r
  %cs = fmul double %c, %s
  %cc = fmul double %c, %c
  %ccc = fmul double %cc, %c
  %new = fadd double %cs, %ccc
  store double %new, ptr %pc
  %i.next = add nuw nsw i64 %i, 1
  %more = icmp ult i64 %i.next, %n
  br i1 %more, label %loop, label %exit

exit:
  ret void
}

declare void @__enzyme_autodiff(ptr, ...)

define void @caller(ptr %u, ptr %du, i64 %n) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @stencil, ptr %u, ptr %du, i64 %n)
  ret void
}
