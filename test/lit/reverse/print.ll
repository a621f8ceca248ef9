; reverse/print.ll - -zymase-print prints each generated gradient to stderr, once, and nothing is printed without it.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt -zymase-print -disable-output %s 2>&1 | %FileCheck %s
; RUN: %zyopt -zymase-no-preopt -disable-output %s 2>&1 | %FileCheck %s --check-prefix=QUIET --allow-empty

define double @f(double %x, double %y) {
  %m = fmul double %x, %y
  ret double %m
}

declare { double, double } @__enzyme_autodiff(ptr, ...)

define { double, double } @caller(double %x, double %y) {
  %r1 = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, double %y)
  %r2 = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, double %y, double %x)
  ret { double, double } %r1
}

; CHECK: define internal { double, double } @__zymase_grad.f.{{[0-9a-f]+}}r(double %0, double %1, double %2) {
; CHECK: fmul double
; CHECK: ret { double, double }
; CHECK-NEXT: }
; CHECK-NOT: define

; QUIET-NOT: define
