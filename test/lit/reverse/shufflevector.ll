; reverse/shufflevector.ll - the adjoint of a shufflevector is scattered back to the source lanes, summing lanes used twice.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt %s -S | %FileCheck %s
; RUN: %zyopt -zymase-no-preopt -zymase-no-postopt %s -S | %FileCheck %s --check-prefix=RAW
;
; f(v) = s[0]*v[0] + s[1] with s = <v[1], v[1]>, so
; df/dv = <v[1], v[0] + 1>.  Gradient parameters: %0 = v, %1 = adjoint of
; the return value.

define double @f(<2 x double> %v) {
entry:
  %s = shufflevector <2 x double> %v, <2 x double> poison, <2 x i32> <i32 1, i32 1>
  %e0 = extractelement <2 x double> %s, i32 0
  %e1 = extractelement <2 x double> %s, i32 1
  %x = extractelement <2 x double> %v, i32 0
  %m = fmul double %e0, %x
  %r = fadd double %m, %e1
  ret double %r
}

declare <2 x double> @__enzyme_autodiff(ptr, ...)

define <2 x double> @caller(<2 x double> %v) {
  %g = call <2 x double> (ptr, ...) @__enzyme_autodiff(ptr @f, <2 x double> %v)
  ret <2 x double> %g
}

; CHECK-LABEL: define internal { <2 x double> } @__zymase_grad.f.{{[0-9a-f]+}}r(<2 x double> %0, double %1)
; CHECK: ret { <2 x double> }

; Both lanes of %s come from lane 1 of %v: two extract/add/insert steps
; into lane 1 of the (zero) adjoint of the first operand.
; RAW-LABEL: reverse.entry:
; RAW: [[D0:%.*]] = extractelement <2 x double> [[DS:%[0-9]+]], i32 0
; RAW-NEXT: [[A0:%.*]] = fadd double 0.000000e+00, [[D0]]
; RAW-NEXT: [[V0:%.*]] = insertelement <2 x double> zeroinitializer, double [[A0]], i32 1
; RAW-NEXT: [[D1:%.*]] = extractelement <2 x double> [[DS]], i32 1
; RAW-NEXT: [[OLD:%.*]] = extractelement <2 x double> [[V0]], i32 1
; RAW-NEXT: [[A1:%.*]] = fadd double [[OLD]], [[D1]]
; RAW-NEXT: insertelement <2 x double> [[V0]], double [[A1]], i32 1
