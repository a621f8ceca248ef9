; reverse/select.ll - the adjoint of select goes to the chosen operand: (c ? d : 0, c ? 0 : d).
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt %s -S | %FileCheck %s
;
; Gradient parameters: %0 = x, %1 = y, %2 = adjoint of the return value.

define double @min(double %x, double %y) {
  %c = fcmp olt double %x, %y
  %s = select i1 %c, double %x, double %y
  ret double %s
}

declare { double, double } @__enzyme_autodiff(ptr, ...)

define { double, double } @caller(double %x, double %y) {
  %r = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @min, double %x, double %y)
  ret { double, double } %r
}

; The condition is recomputed in the gradient.
; CHECK-LABEL: define internal { double, double } @__zymase_grad.min.{{[0-9a-f]+}}r(double %0, double %1, double %2)
; CHECK-DAG: [[C:%.*]] = fcmp olt double %0, %1
; CHECK-DAG: [[DX:%.*]] = select i1 [[C]], double %2, double 0.000000e+00
; CHECK-DAG: [[DY:%.*]] = select i1 [[C]], double 0.000000e+00, double %2
; CHECK: [[R0:%.*]] = insertvalue { double, double } {{undef|poison}}, double [[DX]], 0
; CHECK: insertvalue { double, double } [[R0]], double [[DY]], 1
