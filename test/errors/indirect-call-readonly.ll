; errors/indirect-call-readonly.ll - an active value passed to an indirect call that does not touch memory is an unsupported error at the call (from C such calls write memory as far as Zymase knows, and get the "may write memory" error instead).
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %not %opt -passes=zymase -disable-output %s 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'

; CHECK: error: {{.*}}[zymase:unsupported] cannot differentiate 'f': indirect calls are not differentiated yet
; CHECK-NEXT: instruction: %y = {{(tail )?}}call double %p(double %x)
define double @f(double %x, ptr %p) {
  %y = call double %p(double %x) #0
  %r = fmul double %y, %x
  ret double %r
}

define double @g(double %x, ptr %p) {
  %c = load i32, ptr @enzyme_const
  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, i32 %c, ptr %p)
  ret double %r
}

@enzyme_const = external global i32
declare double @__enzyme_autodiff(ptr, ...)

attributes #0 = { memory(none) }
