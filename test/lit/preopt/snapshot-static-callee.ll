; preopt/snapshot-static-callee.ll - the copy of f the plugin keeps before
; inlining must not change how the optimizer treats the user's code.
; rotate is static and called once, so the inliner takes it at any size
; (the call is its last use); a call from the copy would keep it out of
; line (Bundle Adjustment's rotation was, before the copy called static
; functions through declarations).  f's loop has a call, so the copy is
; simplified, but nothing leaves the loop: the gradient is made from f as
; the optimizer left it.  (From clang -O2 -Xclang -disable-llvm-passes.)
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %opt -passes='default<O2>' %s -S | %FileCheck %s \
; RUN:   --implicit-check-not=@rotate --implicit-check-not=zymase.src \
; RUN:   --implicit-check-not=zymase.ref

; CHECK: define {{.*}} @f(
; CHECK: define internal void @__zymase_grad.f


@enzyme_const = external global i32, align 4

; Function Attrs: nounwind uwtable
define dso_local double @f(ptr noundef %0, ptr noundef %1, i32 noundef %2) #0 {
  %4 = alloca ptr, align 8
  %5 = alloca ptr, align 8
  %6 = alloca i32, align 4
  %7 = alloca [3 x double], align 16
  %8 = alloca double, align 8
  %9 = alloca i32, align 4
  store ptr %0, ptr %4, align 8
  store ptr %1, ptr %5, align 8
  store i32 %2, ptr %6, align 4
  call void @llvm.lifetime.start.p0(i64 24, ptr %7) #5
  call void @llvm.lifetime.start.p0(i64 8, ptr %8) #5
  store double 0.000000e+00, ptr %8, align 8
  call void @llvm.lifetime.start.p0(i64 4, ptr %9) #5
  store i32 0, ptr %9, align 4
  br label %10

10:                                               ; preds = %35, %3
  %11 = load i32, ptr %9, align 4
  %12 = load i32, ptr %6, align 4
  %13 = icmp slt i32 %11, %12
  br i1 %13, label %15, label %14

14:                                               ; preds = %10
  call void @llvm.lifetime.end.p0(i64 4, ptr %9) #5
  br label %38

15:                                               ; preds = %10
  %16 = load ptr, ptr %4, align 8
  %17 = load ptr, ptr %5, align 8
  %18 = load i32, ptr %9, align 4
  %19 = mul nsw i32 3, %18
  %20 = sext i32 %19 to i64
  %21 = getelementptr inbounds double, ptr %17, i64 %20
  %22 = getelementptr inbounds [3 x double], ptr %7, i64 0, i64 0
  call void @rotate(ptr noundef %16, ptr noundef %21, ptr noundef %22)
  %23 = getelementptr inbounds [3 x double], ptr %7, i64 0, i64 0
  %24 = load double, ptr %23, align 16
  %25 = getelementptr inbounds [3 x double], ptr %7, i64 0, i64 0
  %26 = load double, ptr %25, align 16
  %27 = getelementptr inbounds [3 x double], ptr %7, i64 0, i64 1
  %28 = load double, ptr %27, align 8
  %29 = getelementptr inbounds [3 x double], ptr %7, i64 0, i64 2
  %30 = load double, ptr %29, align 16
  %31 = fdiv double %28, %30
  %32 = call double @llvm.fmuladd.f64(double %24, double %26, double %31)
  %33 = load double, ptr %8, align 8
  %34 = fadd double %33, %32
  store double %34, ptr %8, align 8
  br label %35

35:                                               ; preds = %15
  %36 = load i32, ptr %9, align 4
  %37 = add nsw i32 %36, 1
  store i32 %37, ptr %9, align 4
  br label %10, !llvm.loop !13

38:                                               ; preds = %14
  %39 = load double, ptr %8, align 8
  call void @llvm.lifetime.end.p0(i64 8, ptr %8) #5
  call void @llvm.lifetime.end.p0(i64 24, ptr %7) #5
  ret double %39
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: nounwind uwtable
define internal void @rotate(ptr noundef %0, ptr noundef %1, ptr noundef %2) #0 {
  %4 = alloca ptr, align 8
  %5 = alloca ptr, align 8
  %6 = alloca ptr, align 8
  %7 = alloca double, align 8
  %8 = alloca double, align 8
  %9 = alloca double, align 8
  %10 = alloca double, align 8
  %11 = alloca double, align 8
  %12 = alloca double, align 8
  %13 = alloca double, align 8
  %14 = alloca double, align 8
  %15 = alloca double, align 8
  store ptr %0, ptr %4, align 8
  store ptr %1, ptr %5, align 8
  store ptr %2, ptr %6, align 8
  call void @llvm.lifetime.start.p0(i64 8, ptr %7) #5
  %16 = load ptr, ptr %4, align 8
  %17 = getelementptr inbounds double, ptr %16, i64 0
  %18 = load double, ptr %17, align 8
  %19 = load ptr, ptr %4, align 8
  %20 = getelementptr inbounds double, ptr %19, i64 0
  %21 = load double, ptr %20, align 8
  %22 = load ptr, ptr %4, align 8
  %23 = getelementptr inbounds double, ptr %22, i64 1
  %24 = load double, ptr %23, align 8
  %25 = load ptr, ptr %4, align 8
  %26 = getelementptr inbounds double, ptr %25, i64 1
  %27 = load double, ptr %26, align 8
  %28 = fmul double %24, %27
  %29 = call double @llvm.fmuladd.f64(double %18, double %21, double %28)
  %30 = load ptr, ptr %4, align 8
  %31 = getelementptr inbounds double, ptr %30, i64 2
  %32 = load double, ptr %31, align 8
  %33 = load ptr, ptr %4, align 8
  %34 = getelementptr inbounds double, ptr %33, i64 2
  %35 = load double, ptr %34, align 8
  %36 = call double @llvm.fmuladd.f64(double %32, double %35, double %29)
  store double %36, ptr %7, align 8
  call void @llvm.lifetime.start.p0(i64 8, ptr %8) #5
  %37 = load double, ptr %7, align 8
  %38 = call double @sqrt(double noundef %37) #5
  store double %38, ptr %8, align 8
  call void @llvm.lifetime.start.p0(i64 8, ptr %9) #5
  %39 = load double, ptr %8, align 8
  %40 = call double @cos(double noundef %39) #5
  store double %40, ptr %9, align 8
  call void @llvm.lifetime.start.p0(i64 8, ptr %10) #5
  %41 = load double, ptr %8, align 8
  %42 = call double @sin(double noundef %41) #5
  store double %42, ptr %10, align 8
  call void @llvm.lifetime.start.p0(i64 8, ptr %11) #5
  %43 = load double, ptr %8, align 8
  %44 = fdiv double 1.000000e+00, %43
  store double %44, ptr %11, align 8
  call void @llvm.lifetime.start.p0(i64 8, ptr %12) #5
  %45 = load ptr, ptr %4, align 8
  %46 = getelementptr inbounds double, ptr %45, i64 0
  %47 = load double, ptr %46, align 8
  %48 = load double, ptr %11, align 8
  %49 = fmul double %47, %48
  store double %49, ptr %12, align 8
  call void @llvm.lifetime.start.p0(i64 8, ptr %13) #5
  %50 = load ptr, ptr %4, align 8
  %51 = getelementptr inbounds double, ptr %50, i64 1
  %52 = load double, ptr %51, align 8
  %53 = load double, ptr %11, align 8
  %54 = fmul double %52, %53
  store double %54, ptr %13, align 8
  call void @llvm.lifetime.start.p0(i64 8, ptr %14) #5
  %55 = load ptr, ptr %4, align 8
  %56 = getelementptr inbounds double, ptr %55, i64 2
  %57 = load double, ptr %56, align 8
  %58 = load double, ptr %11, align 8
  %59 = fmul double %57, %58
  store double %59, ptr %14, align 8
  call void @llvm.lifetime.start.p0(i64 8, ptr %15) #5
  %60 = load double, ptr %9, align 8
  %61 = fsub double 1.000000e+00, %60
  %62 = load double, ptr %12, align 8
  %63 = load ptr, ptr %5, align 8
  %64 = getelementptr inbounds double, ptr %63, i64 0
  %65 = load double, ptr %64, align 8
  %66 = load double, ptr %13, align 8
  %67 = load ptr, ptr %5, align 8
  %68 = getelementptr inbounds double, ptr %67, i64 1
  %69 = load double, ptr %68, align 8
  %70 = fmul double %66, %69
  %71 = call double @llvm.fmuladd.f64(double %62, double %65, double %70)
  %72 = load double, ptr %14, align 8
  %73 = load ptr, ptr %5, align 8
  %74 = getelementptr inbounds double, ptr %73, i64 2
  %75 = load double, ptr %74, align 8
  %76 = call double @llvm.fmuladd.f64(double %72, double %75, double %71)
  %77 = fmul double %61, %76
  store double %77, ptr %15, align 8
  %78 = load ptr, ptr %5, align 8
  %79 = getelementptr inbounds double, ptr %78, i64 0
  %80 = load double, ptr %79, align 8
  %81 = load double, ptr %9, align 8
  %82 = load double, ptr %13, align 8
  %83 = load ptr, ptr %5, align 8
  %84 = getelementptr inbounds double, ptr %83, i64 2
  %85 = load double, ptr %84, align 8
  %86 = load double, ptr %14, align 8
  %87 = load ptr, ptr %5, align 8
  %88 = getelementptr inbounds double, ptr %87, i64 1
  %89 = load double, ptr %88, align 8
  %90 = fmul double %86, %89
  %91 = fneg double %90
  %92 = call double @llvm.fmuladd.f64(double %82, double %85, double %91)
  %93 = load double, ptr %10, align 8
  %94 = fmul double %92, %93
  %95 = call double @llvm.fmuladd.f64(double %80, double %81, double %94)
  %96 = load double, ptr %12, align 8
  %97 = load double, ptr %15, align 8
  %98 = call double @llvm.fmuladd.f64(double %96, double %97, double %95)
  %99 = load ptr, ptr %6, align 8
  %100 = getelementptr inbounds double, ptr %99, i64 0
  store double %98, ptr %100, align 8
  %101 = load ptr, ptr %5, align 8
  %102 = getelementptr inbounds double, ptr %101, i64 1
  %103 = load double, ptr %102, align 8
  %104 = load double, ptr %9, align 8
  %105 = load double, ptr %14, align 8
  %106 = load ptr, ptr %5, align 8
  %107 = getelementptr inbounds double, ptr %106, i64 0
  %108 = load double, ptr %107, align 8
  %109 = load double, ptr %12, align 8
  %110 = load ptr, ptr %5, align 8
  %111 = getelementptr inbounds double, ptr %110, i64 2
  %112 = load double, ptr %111, align 8
  %113 = fmul double %109, %112
  %114 = fneg double %113
  %115 = call double @llvm.fmuladd.f64(double %105, double %108, double %114)
  %116 = load double, ptr %10, align 8
  %117 = fmul double %115, %116
  %118 = call double @llvm.fmuladd.f64(double %103, double %104, double %117)
  %119 = load double, ptr %13, align 8
  %120 = load double, ptr %15, align 8
  %121 = call double @llvm.fmuladd.f64(double %119, double %120, double %118)
  %122 = load ptr, ptr %6, align 8
  %123 = getelementptr inbounds double, ptr %122, i64 1
  store double %121, ptr %123, align 8
  %124 = load ptr, ptr %5, align 8
  %125 = getelementptr inbounds double, ptr %124, i64 2
  %126 = load double, ptr %125, align 8
  %127 = load double, ptr %9, align 8
  %128 = load double, ptr %12, align 8
  %129 = load ptr, ptr %5, align 8
  %130 = getelementptr inbounds double, ptr %129, i64 1
  %131 = load double, ptr %130, align 8
  %132 = load double, ptr %13, align 8
  %133 = load ptr, ptr %5, align 8
  %134 = getelementptr inbounds double, ptr %133, i64 0
  %135 = load double, ptr %134, align 8
  %136 = fmul double %132, %135
  %137 = fneg double %136
  %138 = call double @llvm.fmuladd.f64(double %128, double %131, double %137)
  %139 = load double, ptr %10, align 8
  %140 = fmul double %138, %139
  %141 = call double @llvm.fmuladd.f64(double %126, double %127, double %140)
  %142 = load double, ptr %14, align 8
  %143 = load double, ptr %15, align 8
  %144 = call double @llvm.fmuladd.f64(double %142, double %143, double %141)
  %145 = load ptr, ptr %6, align 8
  %146 = getelementptr inbounds double, ptr %145, i64 2
  store double %144, ptr %146, align 8
  call void @llvm.lifetime.end.p0(i64 8, ptr %15) #5
  call void @llvm.lifetime.end.p0(i64 8, ptr %14) #5
  call void @llvm.lifetime.end.p0(i64 8, ptr %13) #5
  call void @llvm.lifetime.end.p0(i64 8, ptr %12) #5
  call void @llvm.lifetime.end.p0(i64 8, ptr %11) #5
  call void @llvm.lifetime.end.p0(i64 8, ptr %10) #5
  call void @llvm.lifetime.end.p0(i64 8, ptr %9) #5
  call void @llvm.lifetime.end.p0(i64 8, ptr %8) #5
  call void @llvm.lifetime.end.p0(i64 8, ptr %7) #5
  ret void
}

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #2

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: nounwind uwtable
define dso_local void @g(ptr noundef %0, ptr noundef %1, ptr noundef %2, i32 noundef %3) #0 {
  %5 = alloca ptr, align 8
  %6 = alloca ptr, align 8
  %7 = alloca ptr, align 8
  %8 = alloca i32, align 4
  store ptr %0, ptr %5, align 8
  store ptr %1, ptr %6, align 8
  store ptr %2, ptr %7, align 8
  store i32 %3, ptr %8, align 4
  %9 = load ptr, ptr %5, align 8
  %10 = load ptr, ptr %6, align 8
  %11 = load i32, ptr @enzyme_const, align 4
  %12 = load ptr, ptr %7, align 8
  %13 = load i32, ptr %8, align 4
  call void (ptr, ...) @__enzyme_autodiff(ptr noundef @f, ptr noundef %9, ptr noundef %10, i32 noundef %11, ptr noundef %12, i32 noundef %13)
  ret void
}

declare void @__enzyme_autodiff(ptr noundef, ...) #3

; Function Attrs: nounwind
declare double @sqrt(double noundef) #4

; Function Attrs: nounwind
declare double @cos(double noundef) #4

; Function Attrs: nounwind
declare double @sin(double noundef) #4

attributes #0 = { nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { nounwind "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #5 = { nounwind }


!13 = distinct !{!13, !14}
!14 = !{!"llvm.loop.mustprogress"}
