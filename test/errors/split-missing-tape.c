// errors/split-missing-tape.c - __enzyme_reverse without the tape (here only the return adjoint follows the arguments) is a bad-call error at the call.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_reverse(void *, ...);

double f(double x) { return x * x; }

double g(double x) {
  // CHECK: split-missing-tape.c:[[@LINE+5]]:10: error: [zymase:bad-call] cannot differentiate 'f': the tape is missing: '__enzyme_reverse' needs it after the arguments of 'f' and the return adjoint
  // CHECK-NEXT: instruction: {{.*}}call double (ptr, ...) @__enzyme_reverse(ptr
  // CHECK-NEXT: hint: pass the tape __enzyme_augmentfwd returned as the last argument, or enzyme_tape and a pointer to it
  // CHECK: 1 error generated
  // NOG: error: [zymase:bad-call] cannot differentiate 'f': the tape is missing
  return __enzyme_reverse((void *)f, x, 1.0);
}
