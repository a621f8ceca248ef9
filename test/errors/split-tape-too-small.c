// errors/split-tape-too-small.c - enzyme_allocated with fewer bytes than the tape needs (Enzyme's allocatedtape_err.c: 1 byte) is a bad-call error at each split-mode call, with the size needed.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

extern int enzyme_allocated;
extern int enzyme_tape;
double sin(double);

void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

void f(double *x) { x[0] = sin(x[0]); }

void f_aug(double *x, double *x_b, void *tape) {
  // CHECK: split-tape-too-small.c:[[@LINE+4]]:3: error: [zymase:bad-call] cannot differentiate 'f': the tape needs 8 bytes but enzyme_allocated gives 4
  // CHECK-NEXT: instruction: {{.*}}call ptr (ptr, ...) @__enzyme_augmentfwd(ptr
  // CHECK-NEXT: hint: allocate __enzyme_augmentsize((void*)f, ...) bytes
  // NOG: error: [zymase:bad-call] cannot differentiate 'f': the tape needs 8 bytes but enzyme_allocated gives 4
  __enzyme_augmentfwd(f, x, x_b, enzyme_allocated, 4, enzyme_tape, tape);
}

void f_rev(double *x, double *x_b, void *tape) {
  // CHECK: split-tape-too-small.c:[[@LINE+4]]:3: error: [zymase:bad-call] cannot differentiate 'f': the tape needs 8 bytes but enzyme_allocated gives 1
  // CHECK-NEXT: instruction: {{.*}}call void (ptr, ...) @__enzyme_reverse(ptr
  // CHECK: 2 errors generated
  // NOG: error: [zymase:bad-call] cannot differentiate 'f': the tape needs 8 bytes but enzyme_allocated gives 1
  __enzyme_reverse(f, x, x_b, enzyme_allocated, 1, enzyme_tape, tape);
}
