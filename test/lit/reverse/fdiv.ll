; reverse/fdiv.ll - the gradient of q = x/y is dx = d/y and dy = -(d/y)*q.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt %s -S | %FileCheck %s
; RUN: %zyopt -zymase-no-preopt -zymase-no-postopt %s -S | %FileCheck %s --check-prefix=RAW
;
; Gradient parameters: %0 = x, %1 = y, %2 = adjoint of the return value.
; After the post-AD pipeline only dx has a shape that does not depend on the
; LLVM version; the unoptimized gradient (RAW) shows the rule as emitted.

define double @f(double %x, double %y) {
entry:
  %q = fdiv double %x, %y
  ret double %q
}

declare { double, double } @__enzyme_autodiff(ptr, ...)

define { double, double } @caller(double %x, double %y) {
  %r = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, double %y)
  ret { double, double } %r
}

; CHECK-LABEL: define internal { double, double } @__zymase_grad.f.{{[0-9a-f]+}}r(double %0, double %1, double %2)
; CHECK: [[DX:%.*]] = fdiv double %2, %1
; CHECK: [[R0:%.*]] = insertvalue { double, double } {{undef|poison}}, double [[DX]], 0
; CHECK: insertvalue { double, double } [[R0]], double %{{.*}}, 1

; RAW: define internal { double, double } @__zymase_grad.f.{{[0-9a-f]+}}r(
; RAW: %q = fdiv double %0, %1
; RAW-LABEL: reverse.entry:
; RAW: [[D:%.*]] = load double
; RAW: [[DX:%.*]] = fdiv double [[D]], %1
; RAW: [[T:%.*]] = fmul double [[DX]], %q
; RAW: [[DY:%.*]] = fneg double [[T]]
; RAW: ret { double, double }
