// errors/split-activity-mismatch.c - an __enzyme_reverse whose markers give another activity (x constant) than the only __enzyme_augmentfwd of the function in the file would misread the tape: a bad-call error at the reverse call.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

extern int enzyme_const;
void *__enzyme_augmentfwd(void *, ...);
double __enzyme_reverse(void *, ...);

double f(double x, double y) { return x * y * y; }

void *fwd(double x, double y) { return __enzyme_augmentfwd((void *)f, x, y); }

double rev(double x, double y, void *tape) {
  // CHECK: split-activity-mismatch.c:[[@LINE+5]]:10: error: [zymase:bad-call] cannot differentiate 'f': this __enzyme_reverse differentiates with another activity than every __enzyme_augmentfwd of the function, so it would misread their tapes
  // CHECK-NEXT: instruction: {{.*}}call {{.*}}@__zymase_rev.f.2.d0r(
  // CHECK-NEXT: hint: give __enzyme_augmentfwd and __enzyme_reverse the same markers for the arguments and the return
  // CHECK: 1 error generated
  // NOG: error: [zymase:bad-call] cannot differentiate 'f': this __enzyme_reverse differentiates with another activity
  return __enzyme_reverse((void *)f, enzyme_const, x, y, 1.0, tape);
}
