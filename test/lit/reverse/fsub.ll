; reverse/fsub.ll - the gradient of x-y is (d, -d).
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt %s -S | %FileCheck %s
;
; Gradient parameters: %0 = x, %1 = y, %2 = adjoint of the return value.

define double @f(double %x, double %y) {
  %s = fsub double %x, %y
  ret double %s
}

declare { double, double } @__enzyme_autodiff(ptr, ...)

define { double, double } @caller(double %x, double %y) {
  %r = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, double %y)
  ret { double, double } %r
}

; CHECK-LABEL: define internal { double, double } @__zymase_grad.f.{{[0-9a-f]+}}r(double %0, double %1, double %2)
; CHECK-NEXT: {{^.*:}}
; CHECK-NEXT: [[DY:%.*]] = fneg double %2
; CHECK-NEXT: [[R0:%.*]] = insertvalue { double, double } {{undef|poison}}, double %2, 0
; CHECK-NEXT: [[R1:%.*]] = insertvalue { double, double } [[R0]], double [[DY]], 1
; CHECK-NEXT: ret { double, double } [[R1]]
