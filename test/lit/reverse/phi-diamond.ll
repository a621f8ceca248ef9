; reverse/phi-diamond.ll - a diamond with a phi: the forward sweep records the incoming edge and the reverse sweep switches on it to hand the phi's adjoint to the value from that edge.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %zyopt -zymase-no-preopt -zymase-no-postopt %s -S | %FileCheck %s --check-prefix=RAW
; RUN: %zyopt -zymase-no-preopt %s -S | %FileCheck %s
;
; f(x, y) = (x > y ? x*y : exp(x)) * x.  Gradient parameters: %0 = x,
; %1 = y, %2 = adjoint of the return value.

define double @f(double %x, double %y) {
entry:
  %c = fcmp ogt double %x, %y
  br i1 %c, label %then, label %else
then:
  %a = fmul double %x, %y
  br label %join
else:
  %b = call double @llvm.exp.f64(double %x)
  br label %join
join:
  %p = phi double [ %a, %then ], [ %b, %else ]
  %r = fmul double %p, %x
  ret double %r
}

declare double @llvm.exp.f64(double)
declare { double, double } @__enzyme_autodiff(ptr, ...)

define { double, double } @caller(double %x, double %y) {
  %r = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, double %y)
  ret { double, double } %r
}

; Forward sweep: the join block numbers its predecessors.
; RAW-LABEL: define internal { double, double } @__zymase_grad.f.{{[0-9a-f]+}}r(
; RAW: {{^}}join:
; RAW-NEXT: [[FROM:%.*]] = phi i32 [ [[NT:[0-9]+]], %then ], [ [[NE:[0-9]+]], %else ]
; RAW-NEXT: %p = phi double [ %a, %then ], [ %b, %else ]
; RAW: br label %reverse.join

; The reverse of `then` sends the adjoint of %a to x and y, the reverse of
; `else` sends the adjoint of %b = exp(x) to x, using exp(x) cached in the
; forward sweep (`else` does not dominate the return).
; RAW: {{^}}reverse.then:
; RAW: br label %reverse.entry
; RAW: {{^}}reverse.else:
; RAW: [[EXP:%.*]] = load double, ptr %zymase.cache
; RAW: fmul double {{%[0-9]+}}, [[EXP]]
; RAW: br label %reverse.entry

; Reverse of join: back along the recorded edge.
; RAW: {{^}}reverse.join:
; RAW: switch i32 [[FROM]], label %{{.*}} [
; RAW-DAG: i32 [[NT]], label %[[EDGE_T:[^ ]+]]
; RAW-DAG: i32 [[NE]], label %[[EDGE_E:[^ ]+]]
; RAW: ]
; RAW-DAG: {{^}}[[EDGE_T]]:
; RAW-NEXT: load double
; RAW-NEXT: fadd nsz double
; RAW-NEXT: store double
; RAW-NEXT: br label %reverse.then
; RAW-DAG: {{^}}[[EDGE_E]]:
; RAW-NEXT: load double
; RAW-NEXT: fadd nsz double
; RAW-NEXT: store double
; RAW-NEXT: br label %reverse.else

; After the post-AD pipeline the switch has become the branch on %c, and the
; adjoints of x from both sides meet in the reverse of the entry block.
; CHECK-LABEL: define internal { double, double } @__zymase_grad.f.{{[0-9a-f]+}}r(double %0, double %1, double %2)
; CHECK-NOT: switch
; CHECK: [[C:%.*]] = fcmp ogt double %0, %1
; CHECK: br i1 [[C]], label %reverse.then, label %reverse.else
; CHECK: {{^}}reverse.entry:
; CHECK: phi double
; CHECK: ret { double, double }
; CHECK: {{^}}reverse.then:
; CHECK: {{^}}reverse.else:
; CHECK: call double @llvm.exp.f64(double %0)
