; reverse/call-libm-sin.ll - a call to libm sin is differentiated by its rule: dx = d * cos(x).
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt %s -S | %FileCheck %s
;
; Gradient parameters: %0 = x, %1 = adjoint of the return value.

define double @f(double %x) {
  %r = call double @sin(double %x)
  ret double %r
}

declare double @sin(double)
declare double @__enzyme_autodiff(ptr, ...)

define double @caller(double %x) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %r
}

; CHECK-LABEL: define double @caller(
; CHECK-NEXT: [[G:%.*]] = call { double } @[[GRAD:__zymase_grad\.f\.[0-9a-f]+r]](double %x, double 1.000000e+00)
; CHECK-NEXT: [[D:%.*]] = extractvalue { double } [[G]], 0
; CHECK-NEXT: ret double [[D]]

; Operands of the fmul may come in either order.
; CHECK: define internal { double } @[[GRAD]](double %0, double %1)
; CHECK: [[COS:%.*]] = {{(tail )?}}call double @{{llvm\.cos\.f64|cos}}(double %0)
; CHECK: [[DX:%.*]] = fmul double {{(%1, )?}}[[COS]]{{(, %1)?$}}
; CHECK: insertvalue { double } {{undef|poison}}, double [[DX]], 0
