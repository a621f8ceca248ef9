; reverse/intrinsic-pow.ll - llvm.pow: dx = d * y * pow(x, y-1), dy = d * pow(x,y) * log(x) (0 where pow(x,y) is 0).
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt %s -S | %FileCheck %s
; RUN: %zyopt -zymase-no-preopt -zymase-no-postopt %s -S | %FileCheck %s --check-prefix=RAW
;
; Gradient parameters: %0 = x, %1 = y, %2 = adjoint of the return value.

define double @f(double %x, double %y) {
entry:
  %r = call double @llvm.pow.f64(double %x, double %y)
  ret double %r
}

declare double @llvm.pow.f64(double, double)
declare { double, double } @__enzyme_autodiff(ptr, ...)

define { double, double } @caller(double %x, double %y) {
  %g = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, double %y)
  ret { double, double } %g
}

; CHECK-LABEL: define internal { double, double } @__zymase_grad.f.{{[0-9a-f]+}}r(double %0, double %1, double %2)
; CHECK-DAG: [[R:%.*]] = {{(tail )?}}call double @llvm.pow.f64(double %0, double %1)
; CHECK-DAG: [[YM1:%.*]] = fadd double %1, -1.000000e+00
; CHECK-DAG: call double @llvm.pow.f64(double %0, double [[YM1]])
; CHECK-DAG: call double @llvm.log.f64(double %0)
; CHECK-DAG: [[Z:%.*]] = fcmp oeq double [[R]], 0.000000e+00
; CHECK-DAG: [[DY:%.*]] = select i1 [[Z]], double 0.000000e+00, double
; CHECK: insertvalue { double, double } {{.*}}, double [[DY]], 1

; The rule as emitted, before the post-AD pipeline.
; RAW-LABEL: reverse.entry:
; RAW: [[D:%.*]] = load double
; RAW: [[YM1:%.*]] = fsub double %1, 1.000000e+00
; RAW: [[P:%.*]] = call double @llvm.pow.f64(double %0, double [[YM1]])
; RAW: [[T:%.*]] = fmul double %1, [[P]]
; RAW: [[DX:%.*]] = fmul double [[D]], [[T]]
; RAW: [[L:%.*]] = call double @llvm.log.f64(double %0)
; RAW: [[RL:%.*]] = fmul double %r, [[L]]
; RAW: [[DYN:%.*]] = fmul double [[D]], [[RL]]
; RAW: [[Z:%.*]] = fcmp oeq double %r, 0.000000e+00
; RAW: select i1 [[Z]], double 0.000000e+00, double [[DYN]]
