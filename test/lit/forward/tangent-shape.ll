; forward/tangent-shape.ll - __enzyme_fwddiff calls the tangent function, which takes the primal's parameters then a tangent per active float and a shadow per dup pointer, returns { result, tangent }, and computes beside the primal's instructions their tangents: the product rule, sin's row of rules.def with dy = the tangent (cos(x) * dx), a load and a store through the shadow.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt -zymase-no-postopt %s -S | %FileCheck %s --implicit-check-not=__enzyme_fwddiff

declare double @llvm.sin.f64(double)
declare double @__enzyme_fwddiff(ptr, ...)
declare { double, double } @__enzyme_fwddiff_primal(ptr, ...)
@enzyme_const = external global i32
@enzyme_primal_return = external global i32

define double @f(double %x, ptr %p, double %c) {
  %v = load double, ptr %p
  %m = fmul double %x, %v
  %s = call double @llvm.sin.f64(double %m)
  %k = fmul double %s, %c
  store double %k, ptr %p
  ret double %k
}

; CHECK-LABEL: define double @caller(
; CHECK: [[R:%.*]] = call { double, double } @[[T:__zymase_fwd\.f\.1\.d2r]](double %x, ptr %p, double 2.000000e+00, double %dx, ptr %dp)
; CHECK: [[D:%.*]] = extractvalue { double, double } [[R]], 1
; CHECK: ret double [[D]]
define double @caller(double %x, double %dx, ptr %p, ptr %dp) {
  %c = load i32, ptr @enzyme_const
  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double %dx, ptr %p, ptr %dp, i32 %c, double 2.0)
  ret double %d
}

; enzyme_primal_return: the struct { result, tangent } as it is.
; CHECK-LABEL: define { double, double } @caller_primal(
; CHECK: call { double, double } @[[T]](double %x, ptr %p, double 2.000000e+00, double %dx, ptr %dp)
define { double, double } @caller_primal(double %x, double %dx, ptr %p, ptr %dp) {
  %c = load i32, ptr @enzyme_const
  %r = load i32, ptr @enzyme_primal_return
  %d = call { double, double } (ptr, ...) @__enzyme_fwddiff_primal(ptr @f, i32 %r, double %x, double %dx, ptr %p, ptr %dp, i32 %c, double 2.0)
  ret { double, double } %d
}

; CHECK: define internal { double, double } @[[T]](double %0, ptr %1, double %2, double %3, ptr %4)
; CHECK: [[V:%.*]] = load double, ptr %1
; CHECK: [[DV:%.*]] = load double, ptr %4
; CHECK: [[M:%.*]] = fmul double %0, [[V]]
; CHECK: [[T1:%.*]] = fmul double %3, [[V]]
; CHECK: [[T2:%.*]] = fmul double [[DV]], %0
; CHECK: [[DM:%.*]] = fadd double [[T1]], [[T2]]
; CHECK: [[S:%.*]] = call double @llvm.sin.f64(double [[M]])
; CHECK: [[COS:%.*]] = call double @llvm.cos.f64(double [[M]])
; CHECK: [[DS:%.*]] = fmul double [[DM]], [[COS]]
; CHECK: [[K:%.*]] = fmul double [[S]], %2
; CHECK: [[DK:%.*]] = fmul double [[DS]], %2
; CHECK: store double [[K]], ptr %1
; CHECK: store double [[DK]], ptr %4
; CHECK: [[RES:%.*]] = insertvalue { double, double } undef, double [[K]], 0
; CHECK: insertvalue { double, double } [[RES]], double [[DK]], 1
