; reverse/return-struct.ll - several gradients are packed into the user's declared return type at C struct offsets ({double,double}; {float,double} with padding; <2 x float> as clang returns struct {float a, b;}).
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt %s -S | %FileCheck %s

define double @f(double %x, double %y) {
  %m = fmul double %x, %y
  ret double %m
}

define double @g(float %x, double %y) {
  %e = fpext float %x to double
  %m = fmul double %e, %y
  ret double %m
}

define float @h(float %x, float %y) {
  %m = fmul float %x, %y
  ret float %m
}

declare { double, double } @__enzyme_autodiff(ptr, ...)
declare { float, double } @__enzyme_autodiff_fd(ptr, ...)
declare <2 x float> @__enzyme_autodiff_ff(ptr, ...)

; CHECK-LABEL: define { double, double } @dd(
; CHECK: [[BUF:%.*]] = alloca { double, double }
; CHECK: [[G:%.*]] = call { double, double } @__zymase_grad.f.{{[0-9a-f]+}}r(double %x, double %y, double 1.000000e+00)
; CHECK: [[P0:%.*]] = getelementptr i8, ptr [[BUF]], i64 0
; CHECK: [[G0:%.*]] = extractvalue { double, double } [[G]], 0
; CHECK: store double [[G0]], ptr [[P0]]
; CHECK: [[P1:%.*]] = getelementptr i8, ptr [[BUF]], i64 8
; CHECK: [[G1:%.*]] = extractvalue { double, double } [[G]], 1
; CHECK: store double [[G1]], ptr [[P1]]
; CHECK: [[R:%.*]] = load { double, double }, ptr [[BUF]]
; CHECK: ret { double, double } [[R]]
define { double, double } @dd(double %x, double %y) {
  %r = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, double %y)
  ret { double, double } %r
}

; The double field of {float, double} is at offset 8.
; CHECK-LABEL: define { float, double } @fd(
; CHECK: [[BUF:%.*]] = alloca { float, double }
; CHECK: [[G:%.*]] = call { float, double } @__zymase_grad.g.{{[0-9a-f]+}}r(float {{%.*}}, double %y, double 1.000000e+00)
; CHECK: getelementptr i8, ptr [[BUF]], i64 0
; CHECK: extractvalue { float, double } [[G]], 0
; CHECK: getelementptr i8, ptr [[BUF]], i64 8
; CHECK: extractvalue { float, double } [[G]], 1
; CHECK: load { float, double }, ptr [[BUF]]
define { float, double } @fd(double %x, double %y) {
  %r = call { float, double } (ptr, ...) @__enzyme_autodiff_fd(ptr @g, double %x, double %y)
  ret { float, double } %r
}

; Two floats at offsets 0 and 4 of a <2 x float>.
; CHECK-LABEL: define <2 x float> @ff(
; CHECK: [[BUF:%.*]] = alloca <2 x float>
; CHECK: [[G:%.*]] = call { float, float } @__zymase_grad.h.{{[0-9a-f]+}}r(float {{%.*}}, float {{%.*}}, float 1.000000e+00)
; CHECK: getelementptr i8, ptr [[BUF]], i64 0
; CHECK: extractvalue { float, float } [[G]], 0
; CHECK: getelementptr i8, ptr [[BUF]], i64 4
; CHECK: extractvalue { float, float } [[G]], 1
; CHECK: load <2 x float>, ptr [[BUF]]
define <2 x float> @ff(double %x, double %y) {
  %r = call <2 x float> (ptr, ...) @__enzyme_autodiff_ff(ptr @h, double %x, double %y)
  ret <2 x float> %r
}
