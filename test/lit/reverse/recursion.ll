; reverse/recursion.ll - a recursive function: its gradient calls itself in the reverse sweep (x^n by recursion: d/dx = d*r + grad(x, n-1, d*x)).
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt %s -S | %FileCheck %s
;
; Gradient parameters: %0 = x, %1 = n, %2 = adjoint of the return value.

define double @pown(double %x, i32 %n) {
entry:
  %c = icmp eq i32 %n, 0
  br i1 %c, label %base, label %rec
base:
  ret double 1.0
rec:
  %n1 = sub i32 %n, 1
  %r = call double @pown(double %x, i32 %n1)
  %m = fmul double %r, %x
  ret double %m
}

declare double @__enzyme_autodiff(ptr, ...)

; The integer argument is constant: only x gets a gradient.
; CHECK-LABEL: define double @caller(
; CHECK: call { double } @[[G:__zymase_grad\.pown\.1r]](double %x, i32 3, double 1.000000e+00)
define double @caller(double %x) {
  %g = call double (ptr, ...) @__enzyme_autodiff(ptr @pown, double %x, i32 3)
  ret double %g
}

; CHECK: define internal { double } @[[G]](double %0, i32 %1, double %2)
; CHECK: [[N1:%.*]] = add i32 %1, -1
; CHECK-DAG: [[R:%.*]] = {{(tail )?}}call double @pown(double %0, i32 [[N1]])
; CHECK-DAG: [[DR:%.*]] = fmul double {{%0, %2|%2, %0}}
; CHECK: [[SUB:%.*]] = {{(tail )?}}call { double } @[[G]](double %0, i32 [[N1]], double [[DR]])
; CHECK: extractvalue { double } [[SUB]], 0
; CHECK-NOT: define {{.*}}@__zymase_grad.pown
