; Gradients of llvm.minimum and llvm.maximum (clang-19 has no C builtin for
; them): the program compares them with closed forms and exits non-zero.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %clang -O0 %s -o %t0 && %t0
; RUN: %clang -O1 %s -o %t1 && %t1
; RUN: %clang -O2 %s -o %t2 && %t2
; RUN: %clang -O3 %s -o %t3 && %t3

declare { double, double } @__enzyme_autodiff(ptr, ...)
declare { float, float } @__enzyme_autodiff_f(ptr, ...)
declare double @llvm.minimum.f64(double, double)
declare double @llvm.maximum.f64(double, double)
declare float @llvm.minimum.f32(float, float)
declare float @llvm.maximum.f32(float, float)

define double @mn(double %x, double %y) {
  %m = call double @llvm.minimum.f64(double %x, double %y)
  %r = fmul double %m, %y
  ret double %r
}

define double @mx(double %x, double %y) {
  %m = call double @llvm.maximum.f64(double %x, double %y)
  ret double %m
}

define float @mnf(float %x, float %y) {
  %a = call float @llvm.minimum.f32(float %x, float %y)
  %b = call float @llvm.maximum.f32(float %x, float %y)
  %c = fmul float %b, 3.0
  %r = fadd float %a, %c
  ret float %r
}

@x = global double 1.5
@y = global double -0.25

; Returns 1 when |a - b| > 1e-12.
define i32 @differs(double %a, double %b) {
  %d = fsub double %a, %b
  %ad = call double @llvm.fabs.f64(double %d)
  %c = fcmp ogt double %ad, 1.0e-12
  %r = zext i1 %c to i32
  ret i32 %r
}
declare double @llvm.fabs.f64(double)

; Checks the gradient g of a two-argument function against (wx, wy).
define i32 @check({ double, double } %g, double %wx, double %wy) {
  %gx = extractvalue { double, double } %g, 0
  %gy = extractvalue { double, double } %g, 1
  %ex = call i32 @differs(double %gx, double %wx)
  %ey = call i32 @differs(double %gy, double %wy)
  %e = add i32 %ex, %ey
  ret i32 %e
}

define i32 @main() {
  %x = load volatile double, ptr @x
  %y = load volatile double, ptr @y
  ; minimum(1.5, -0.25) * y = y * y: d/dx = 0, d/dy = 2y
  %g1 = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @mn, double %x, double %y)
  %e1 = call i32 @check({ double, double } %g1, double 0.0, double -0.5)
  ; minimum(-0.25, 1.5) * 1.5 = x * y: d/dx = y, d/dy = x
  %g2 = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @mn, double %y, double %x)
  %e2 = call i32 @check({ double, double } %g2, double 1.5, double -0.25)
  ; maximum(1.5, -0.25) = x
  %g3 = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @mx, double %x, double %y)
  %e3 = call i32 @check({ double, double } %g3, double 1.0, double 0.0)
  %g4 = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @mx, double %y, double %x)
  %e4 = call i32 @check({ double, double } %g4, double 0.0, double 1.0)
  ; float: min + 3 max, with (x, y) = (1.5, -0.25): d/dx = 3, d/dy = 1;
  ; float arguments travel as double through the variadic call
  %g5 = call { float, float } (ptr, ...) @__enzyme_autodiff_f(ptr @mnf, double %x, double %y)
  %g5x = extractvalue { float, float } %g5, 0
  %g5y = extractvalue { float, float } %g5, 1
  %g5xd = fpext float %g5x to double
  %g5yd = fpext float %g5y to double
  %g5d0 = insertvalue { double, double } poison, double %g5xd, 0
  %g5d = insertvalue { double, double } %g5d0, double %g5yd, 1
  %e5 = call i32 @check({ double, double } %g5d, double 3.0, double 1.0)
  %s1 = add i32 %e1, %e2
  %s2 = add i32 %s1, %e3
  %s3 = add i32 %s2, %e4
  %s4 = add i32 %s3, %e5
  ret i32 %s4
}
