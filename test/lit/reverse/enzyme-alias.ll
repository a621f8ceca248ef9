; reverse/enzyme-alias.ll - the pass also answers to -passes=enzyme, so Enzyme command lines keep working.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes=enzyme -zymase-no-preopt %s -S | %FileCheck %s --implicit-check-not=__enzyme_autodiff

define double @f(double %x) {
  %m = fmul double %x, %x
  ret double %m
}

declare double @__enzyme_autodiff(ptr, ...)

; CHECK-LABEL: define double @caller(
; CHECK: call { double } @[[G:__zymase_grad\.f\.[0-9a-f]+r]](double %x, double 1.000000e+00)
define double @caller(double %x) {
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %r
}

; CHECK: define internal { double } @[[G]](double %0, double %1)
