; reverse/autodiff-call-replaced.ll - every call to an __enzyme_autodiff* entry point is replaced, whatever its suffix, block or use, and the declarations go away.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt %s -S | %FileCheck %s --implicit-check-not=__enzyme_autodiff

define double @f(double %x) {
  %m = fmul double %x, %x
  ret double %m
}

declare double @__enzyme_autodiff(ptr, ...)
declare double @__enzyme_autodiff_other(ptr, ...)

; A result that is not used, a call in a non-entry block, and a second entry
; point with a suffix all share the one gradient.
; CHECK-LABEL: define double @caller(
; CHECK: call { double } @[[G:__zymase_grad\.f\.[0-9a-f]+r]](double %x, double 1.000000e+00)
; CHECK: {{^}}more:
; CHECK-DAG: [[A:%.*]] = call { double } @[[G]](double %x, double 1.000000e+00)
; CHECK-DAG: [[B:%.*]] = call { double } @[[G]](double %y, double 1.000000e+00)
; CHECK-DAG: [[DA:%.*]] = extractvalue { double } [[A]], 0
; CHECK-DAG: [[DB:%.*]] = extractvalue { double } [[B]], 0
; CHECK: fadd double [[DA]], [[DB]]
define double @caller(double %x, double %y, i1 %c) {
entry:
  %unused = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  br i1 %c, label %more, label %done
more:
  %a = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  %b = call double (ptr, ...) @__enzyme_autodiff_other(ptr @f, double %y)
  %s = fadd double %a, %b
  ret double %s
done:
  ret double 0.0
}

; CHECK: define internal { double } @[[G]](
