; reverse/verify.ll - gradients of a function with a switch, a diamond, calls, selects and struct values are valid IR, with and without the post-AD pipeline.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes=zymase,verify -zymase-verify -zymase-no-preopt -zymase-no-postopt %s -S 2>&1 | %FileCheck %s --implicit-check-not="invalid IR"
; RUN: %opt -passes=zymase,verify -zymase-verify -zymase-no-preopt %s -S 2>&1 | %FileCheck %s --implicit-check-not="invalid IR"
; RUN: %opt -passes=zymase,verify -zymase-verify %s -S 2>&1 | %FileCheck %s --implicit-check-not="invalid IR"
;
; opt verifies its output; -zymase-verify also verifies between the steps.

define internal double @h(double %x, double %y) {
  %c = fcmp olt double %x, 0.0
  %n = fneg double %x
  %a = select i1 %c, double %n, double %x
  %r = call double @llvm.pow.f64(double %a, double %y)
  ret double %r
}

define double @f(double %x, double %y, i32 %k) {
entry:
  %s0 = insertvalue { double, float } undef, double %x, 0
  %yf = fptrunc double %y to float
  %s1 = insertvalue { double, float } %s0, float %yf, 1
  switch i32 %k, label %other [
    i32 0, label %zero
    i32 1, label %one
  ]
zero:
  %a = extractvalue { double, float } %s1, 0
  %ha = call double @h(double %a, double %y)
  br label %join
one:
  %b = extractvalue { double, float } %s1, 1
  %be = fpext float %b to double
  %t = call double @tanh(double %be)
  br label %join
other:
  %q = fdiv double %x, %y
  br i1 true, label %join, label %join2
join2:
  br label %join
join:
  %p = phi double [ %ha, %zero ], [ %t, %one ], [ %q, %other ], [ 0.0, %join2 ]
  %u = fmul double %p, %x
  %v = call double @h(double %u, double 2.0)
  ret double %v
}

declare double @llvm.pow.f64(double, double)
declare double @tanh(double)
declare { double, double } @__enzyme_autodiff(ptr, ...)

; CHECK-LABEL: define { double, double } @caller(
; CHECK: call { double, double } @__zymase_grad.f.{{[0-9a-f]+}}r(
define { double, double } @caller(double %x, double %y, i32 %k) {
  %r = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, double %y, i32 %k)
  ret { double, double } %r
}
