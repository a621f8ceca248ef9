// errors/split-inline-tape.c - a tape by value (enzyme_allocated without enzyme_tape) that needs more bytes than enzyme_allocated gives is a bad-call error at each call, naming the size needed (Enzyme: "Insufficient tape allocation size"); a declared result smaller than enzyme_allocated's bytes is a bad-return error; a reverse without enzyme_allocated is told that a tape by value takes it, and that it differs from the forward.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'

extern int enzyme_allocated, enzyme_dup;
double exp(double);

typedef struct { char b[8]; } Tape8;
typedef struct { char b[20]; } Tape20;
Tape8 __enzyme_augmentfwd(void *, ...);
Tape20 __enzyme_augmentfwd20(void *, ...);
void __enzyme_reverse(void *, ...);

/* Its tape holds x[0] and x[1]: 16 bytes. */
void f(const double *x, double *y) { y[0] = x[0] * x[1] + exp(x[1]); }

Tape8 f_aug(const double *x, double *dx, double *y, double *dy) {
  // CHECK: split-inline-tape.c:[[@LINE+3]]:10: error: [zymase:bad-call] cannot differentiate 'f': the tape needs 16 bytes but enzyme_allocated gives 8
  // CHECK-NEXT: instruction: {{.*}}@__enzyme_augmentfwd(ptr
  // CHECK-NEXT: hint: give enzyme_allocated at least 16 in both calls, and the tape a type of as many bytes
  return __enzyme_augmentfwd((void *)f, enzyme_allocated, sizeof(Tape8),
                             enzyme_dup, x, dx, enzyme_dup, y, dy);
}

void f_rev(const double *x, double *dx, double *y, double *dy, Tape8 t) {
  // CHECK: split-inline-tape.c:[[@LINE+2]]:3: error: [zymase:bad-call] cannot differentiate 'f': the tape needs 16 bytes but enzyme_allocated gives 8
  // CHECK-NEXT: instruction: {{.*}}@__enzyme_reverse(ptr
  __enzyme_reverse((void *)f, enzyme_allocated, sizeof(Tape8), enzyme_dup, x,
                   dx, enzyme_dup, y, dy, t);
}

Tape8 f_aug_small(const double *x, double *dx, double *y, double *dy) {
  // CHECK: split-inline-tape.c:[[@LINE+3]]:10: error: [zymase:bad-return] cannot differentiate 'f': the declared return type (i64, 8 bytes) cannot hold enzyme_allocated's 20 bytes of tape (20 bytes)
  // CHECK-NEXT: instruction: {{.*}}@__enzyme_augmentfwd(ptr
  // CHECK-NEXT: hint: declare the result as a type of enzyme_allocated's N bytes (the tape)
  return __enzyme_augmentfwd((void *)f, enzyme_allocated, 20, enzyme_dup, x,
                             dx, enzyme_dup, y, dy);
}

void f_pair(const double *x, double *dx, double *y, double *dy, Tape20 *t) {
  *t = __enzyme_augmentfwd20((void *)f, enzyme_allocated, 20, enzyme_dup, x,
                             dx, enzyme_dup, y, dy);
  // CHECK: split-inline-tape.c:[[@LINE+3]]:3: error: [zymase:bad-call] cannot differentiate 'f': the tape argument has type %struct.Tape20, not a pointer
  // CHECK-NEXT: instruction: {{.*}}@__enzyme_reverse(ptr
  // CHECK-NEXT: hint: pass the pointer __enzyme_augmentfwd returned (a tape by value takes enzyme_allocated, N in both calls)
  __enzyme_reverse((void *)f, enzyme_dup, x, dx, enzyme_dup, y, dy, *t);
}
