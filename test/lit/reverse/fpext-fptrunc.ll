; reverse/fpext-fptrunc.ll - adjoints cross float/double conversions in the opposite direction, and variadic double arguments are narrowed to float parameters.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt %s -S | %FileCheck %s

; (double)x * (double)x with x a float: the double adjoint is truncated.
define double @ext(float %x) {
  %e = fpext float %x to double
  %m = fmul double %e, %e
  ret double %m
}

; (float)x with x a double: the float adjoint is extended.
define float @trunc(double %x) {
  %t = fptrunc double %x to float
  ret float %t
}

declare float @__enzyme_autodiff_f(ptr, ...)
declare double @__enzyme_autodiff_d(ptr, ...)

; C passes floats to a variadic function as double: the call narrows the
; argument, and the derivative of the float parameter is returned as float.
; CHECK-LABEL: define void @caller(
; CHECK: [[XF:%.*]] = fptrunc double %x to float
; CHECK: call { float } @[[GE:__zymase_grad\.ext\.[0-9a-f]+r]](float [[XF]], double 1.000000e+00)
; CHECK: call { double } @[[GT:__zymase_grad\.trunc\.[0-9a-f]+r]](double %x, float 1.000000e+00)
; CHECK-NOT: @__enzyme_autodiff
define void @caller(double %x, ptr %out) {
  %r1 = call float (ptr, ...) @__enzyme_autodiff_f(ptr @ext, double %x)
  store volatile float %r1, ptr %out
  %r2 = call double (ptr, ...) @__enzyme_autodiff_d(ptr @trunc, double %x)
  store volatile double %r2, ptr %out
  ret void
}

; CHECK-DAG: define internal { float } @[[GE]](float %0, double %1)
; CHECK-DAG: [[DXD:%.*]] = fadd nsz double [[P:%.*]], [[P]]
; CHECK-DAG: [[DXF:%.*]] = fptrunc double [[DXD]] to float
; CHECK-DAG: insertvalue { float } {{undef|poison}}, float [[DXF]], 0

; CHECK-DAG: define internal { double } @[[GT]](double %0, float %1)
; CHECK-DAG: [[DX:%.*]] = fpext float %1 to double
; CHECK-DAG: insertvalue { double } {{undef|poison}}, double [[DX]], 0
