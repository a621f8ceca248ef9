; reverse/return-sret.ll - three gradients are stored into the sret buffer of a call declared to return a struct of three doubles.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt %s -S | %FileCheck %s
;
; Gradient parameters: %0 = x, %1 = y, %2 = z, %3 = adjoint of the return.

%struct.G3 = type { double, double, double }

define double @f(double %x, double %y, double %z) {
  %a = fmul double %x, %y
  %b = fmul double %a, %z
  ret double %b
}

declare void @__enzyme_autodiff(ptr sret(%struct.G3), ptr, ...)

; CHECK-LABEL: define void @caller(
; CHECK-NEXT: [[G:%.*]] = call { double, double, double } @[[GRAD:__zymase_grad\.f\.[0-9a-f]+r]](double %x, double %y, double 3.000000e+00, double 1.000000e+00)
; CHECK-NEXT: [[P0:%.*]] = getelementptr i8, ptr %out, i64 0
; CHECK-NEXT: [[G0:%.*]] = extractvalue { double, double, double } [[G]], 0
; CHECK-NEXT: store double [[G0]], ptr [[P0]]
; CHECK-NEXT: [[P1:%.*]] = getelementptr i8, ptr %out, i64 8
; CHECK-NEXT: [[G1:%.*]] = extractvalue { double, double, double } [[G]], 1
; CHECK-NEXT: store double [[G1]], ptr [[P1]]
; CHECK-NEXT: [[P2:%.*]] = getelementptr i8, ptr %out, i64 16
; CHECK-NEXT: [[G2:%.*]] = extractvalue { double, double, double } [[G]], 2
; CHECK-NEXT: store double [[G2]], ptr [[P2]]
; CHECK-NEXT: ret void
define void @caller(ptr %out, double %x, double %y) {
  call void (ptr, ptr, ...) @__enzyme_autodiff(ptr sret(%struct.G3) %out, ptr @f, double %x, double %y, double 3.0)
  ret void
}

; dz = d*x*y is the third field.
; CHECK: define internal { double, double, double } @[[GRAD]](double %0, double %1, double %2, double %3)
; CHECK: [[XY:%.*]] = fmul double %0, %1
; CHECK: [[DZ:%.*]] = fmul double {{(%3, )?}}[[XY]]{{(, %3)?$}}
; CHECK: insertvalue { double, double, double } %{{.*}}, double [[DZ]], 2
