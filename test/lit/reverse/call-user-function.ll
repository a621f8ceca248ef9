; reverse/call-user-function.ll - a call to a function with a body is reversed by calling that function's gradient; two call sites with the same activity share one gradient.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt %s -S | %FileCheck %s
; RUN: %zyopt -zymase-no-preopt %s -S | %FileCheck %s --check-prefix=ONE
;
; f(x, y) = sq(x) + sq(y).  Gradient parameters of f: %0 = x, %1 = y,
; %2 = adjoint of the return value.

define internal double @sq(double %x) {
  %r = fmul double %x, %x
  ret double %r
}

define double @f(double %x, double %y) {
  %a = call double @sq(double %x)
  %b = call double @sq(double %y)
  %r = fadd double %a, %b
  ret double %r
}

declare { double, double } @__enzyme_autodiff(ptr, ...)

define { double, double } @caller(double %x, double %y) {
  %g = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, double %y)
  ret { double, double } %g
}

; The reverse of each call passes the primal arguments and the adjoint of the
; call's result, and reads the adjoint of the argument from the result.
; CHECK-LABEL: define internal { double, double } @__zymase_grad.f.{{[0-9a-f]+}}r(double %0, double %1, double %2)
; CHECK-DAG: [[GY:%.*]] = {{(tail )?}}call { double } @[[SQ:__zymase_grad\.sq\.[0-9a-f]+r]](double %1, double %2)
; CHECK-DAG: [[GX:%.*]] = {{(tail )?}}call { double } @[[SQ]](double %0, double %2)
; CHECK-DAG: [[DY:%.*]] = extractvalue { double } [[GY]], 0
; CHECK-DAG: [[DX:%.*]] = extractvalue { double } [[GX]], 0
; CHECK: [[R0:%.*]] = insertvalue { double, double } {{undef|poison}}, double [[DX]], 0
; CHECK: insertvalue { double, double } [[R0]], double [[DY]], 1

; CHECK: define internal { double } @[[SQ]](double %0, double %1)

; Exactly one gradient of sq.
; ONE-NOT: define {{.*}}@__zymase_grad.sq
; ONE:     define {{.*}}@__zymase_grad.sq
; ONE-NOT: define {{.*}}@__zymase_grad.sq
