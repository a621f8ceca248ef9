; reverse/extract-insertvalue.ll - adjoints pass through insertvalue/extractvalue into and out of a struct (x and y packed, unpacked, multiplied).
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt %s -S | %FileCheck %s
; RUN: %zyopt -zymase-no-preopt -zymase-no-postopt %s -S | %FileCheck %s --check-prefix=RAW
;
; Gradient parameters: %0 = x, %1 = y, %2 = adjoint of the return value.

define double @f(double %x, double %y) {
entry:
  %s0 = insertvalue { double, double } undef, double %x, 0
  %s1 = insertvalue { double, double } %s0, double %y, 1
  %a = extractvalue { double, double } %s1, 0
  %b = extractvalue { double, double } %s1, 1
  %r = fmul double %a, %b
  ret double %r
}

declare { double, double } @__enzyme_autodiff(ptr, ...)

define { double, double } @caller(double %x, double %y) {
  %g = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, double %y)
  ret { double, double } %g
}

; Once optimized, the struct traffic disappears: the gradient is that of x*y.
; CHECK-LABEL: define internal { double, double } @__zymase_grad.f.{{[0-9a-f]+}}r(double %0, double %1, double %2)
; CHECK-DAG: [[DX:%.*]] = fmul double {{%1, %2|%2, %1}}
; CHECK-DAG: [[DY:%.*]] = fmul double {{%0, %2|%2, %0}}
; CHECK: [[R0:%.*]] = insertvalue { double, double } {{undef|poison}}, double [[DX]], 0
; CHECK: insertvalue { double, double } [[R0]], double [[DY]], 1

; As emitted: extractvalue's adjoint is a zero struct with d at the index;
; insertvalue's splits the struct adjoint into the member and the rest.
; RAW-LABEL: reverse.entry:
; RAW: insertvalue { double, double } zeroinitializer, double %{{.*}}, 1
; RAW: insertvalue { double, double } zeroinitializer, double %{{.*}}, 0
; RAW: store { double, double } zeroinitializer
; RAW-NEXT: extractvalue { double, double } [[DS1:%[0-9]+]], 1
; RAW: insertvalue { double, double } [[DS1]], double 0.000000e+00, 1
; RAW: store { double, double } zeroinitializer
; RAW-NEXT: extractvalue { double, double } [[DS0:%[0-9]+]], 0
; RAW: ret { double, double }
