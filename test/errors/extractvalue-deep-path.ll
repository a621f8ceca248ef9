; errors/extractvalue-deep-path.ll - an active extractvalue with an index path deeper than 16 (a double in 17 nested structs) is an unsupported error at the extractvalue.
; SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
; RUN: %not %opt -passes=zymase -disable-output %s 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'

%S0 = type { double }
%S1 = type { %S0 }
%S2 = type { %S1 }
%S3 = type { %S2 }
%S4 = type { %S3 }
%S5 = type { %S4 }
%S6 = type { %S5 }
%S7 = type { %S6 }
%S8 = type { %S7 }
%S9 = type { %S8 }
%S10 = type { %S9 }
%S11 = type { %S10 }
%S12 = type { %S11 }
%S13 = type { %S12 }
%S14 = type { %S13 }
%S15 = type { %S14 }
%S16 = type { %S15 }

; CHECK: error: {{.*}}[zymase:unsupported] cannot differentiate 'f': index path too deep
; CHECK-NEXT: instruction: %v = extractvalue %S16 %s, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
define double @f(%S16 %s) {
  %v = extractvalue %S16 %s, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
  %r = fmul double %v, %v
  ret double %r
}

; The struct argument is active: its gradient is returned as an %S16.
define %S16 @g(%S16 %s) {
  %r = call %S16 (ptr, ...) @__enzyme_autodiff(ptr @f, %S16 %s)
  ret %S16 %r
}

declare %S16 @__enzyme_autodiff(ptr, ...)
