; reverse/fmul.ll - the gradient of x*y takes (x, y, dret) and returns {dret*y, dret*x}.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt %s -S | %FileCheck %s
;
; The gradient's parameters are unnamed: %0 = x, %1 = y, %2 = adjoint of the
; return value.  Operands of commutative instructions may come in either
; order (LLVM 19 and 22 canonicalize differently).

; The user's function is left alone.
; CHECK-LABEL: define double @f(
; CHECK-NEXT: %m = fmul double %x, %y
; CHECK-NEXT: ret double %m
define double @f(double %x, double %y) {
  %m = fmul double %x, %y
  ret double %m
}

declare { double, double } @__enzyme_autodiff(ptr, ...)

; CHECK-LABEL: define { double, double } @caller(
; CHECK: call { double, double } @[[G:__zymase_grad\.f\.[0-9a-f]+r]](double %x, double %y, double 1.000000e+00)
; CHECK: ret { double, double }
define { double, double } @caller(double %x, double %y) {
  %r = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, double %y)
  ret { double, double } %r
}

; CHECK: define internal { double, double } @[[G]](double %0, double %1, double %2)
; CHECK-DAG: [[DX:%.*]] = fmul double {{%1, %2|%2, %1}}
; CHECK-DAG: [[DY:%.*]] = fmul double {{%0, %2|%2, %0}}
; CHECK: [[R0:%.*]] = insertvalue { double, double } {{undef|poison}}, double [[DX]], 0
; CHECK: [[R1:%.*]] = insertvalue { double, double } [[R0]], double [[DY]], 1
; CHECK: ret { double, double } [[R1]]
