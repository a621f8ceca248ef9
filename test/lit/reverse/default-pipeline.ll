; reverse/default-pipeline.ll - the pass runs inside opt's default pipelines (OptimizerEarly extension point), at -O0 as well as -O2.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='default<O0>' %s -S | %FileCheck %s --implicit-check-not=__enzyme_autodiff
; RUN: %opt -passes='default<O1>' %s -S | %FileCheck %s --implicit-check-not=__enzyme_autodiff
; RUN: %opt -passes='default<O2>' %s -S | %FileCheck %s --implicit-check-not=__enzyme_autodiff
; RUN: %opt -passes='default<O3>' %s -S | %FileCheck %s --implicit-check-not=__enzyme_autodiff

define double @f(double %x, double %y) {
  %m = fmul double %x, %y
  %s = call double @llvm.sin.f64(double %m)
  ret double %s
}

declare double @llvm.sin.f64(double)
declare { double, double } @__enzyme_autodiff(ptr, ...)

; CHECK-LABEL: define { double, double } @caller(
; CHECK: @__zymase_grad.f.{{[0-9a-f]+}}r
define { double, double } @caller(double %x, double %y) {
  %r = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, double %y)
  ret { double, double } %r
}

; CHECK: define internal { double, double } @__zymase_grad.f.{{[0-9a-f]+}}r(
; CHECK: call double @llvm.cos.f64(
