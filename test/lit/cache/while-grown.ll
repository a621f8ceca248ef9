; cache/while-grown.ll - a while loop whose exit depends on the data: the
; trip count is unknown before the loop, so the buffer of the value the
; reverse sweep needs grows geometrically (checked in the header, realloc
; in a growth block); the buffer is freed after the reverse sweep.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt -zymase-print-cache %s -S 2>&1 | %FileCheck %s

; CHECK-LABEL: zymase: cache of the gradient of 'f'
; CHECK: %s: double, 8 bytes, per iteration of loop 1 (%loop, depth 1), buffer grown geometrically
; CHECK-NOT: per iteration

; s = x; while (s < 100) s = s * x + s * s;  (a data-dependent exit)
define double @f(double %x) {
entry:
  br label %loop

loop:
  %s = phi double [ %x, %entry ], [ %s.next, %loop ]
  %a = fmul double %s, %x
  %b = fmul double %s, %s
  %s.next = fadd double %a, %b
  %c = fcmp olt double %s.next, 100.0
  br i1 %c, label %loop, label %exit

exit:
  ret double %s.next
}

declare double @__enzyme_autodiff(ptr, ...)

define double @caller(double %x) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %r
}

; The header counts its executions, grows the buffers when the count
; passes their capacity, and the buffers are freed at the end.
; CHECK-LABEL: define internal { double } @__zymase_grad.f
; CHECK-DAG: call void @free(
; CHECK-DAG: ret { double }
; CHECK-DAG: zymase.grow:
; CHECK-DAG: call ptr @realloc(
