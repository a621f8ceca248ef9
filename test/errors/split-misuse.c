// errors/split-misuse.c - misuses of the split-mode entry points are located errors at the call: a tape dropped by a void result, extra arguments to __enzyme_augmentfwd, a return adjoint of the wrong type, a tape that is not a pointer, enzyme_tape without a pointer, enzyme_dup_return on a function returning a double, __enzyme_augmentsize given an argument instead of a marker or declared to return a double.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'

extern int enzyme_tape, enzyme_dup_return, enzyme_const;
void __enzyme_augmentfwd_void(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
double __enzyme_reverse(void *, ...);
double __enzyme_reverse_int_tape(void *, ...);
unsigned long __enzyme_augmentsize(void *, ...);
double __enzyme_augmentsize_double(void *, ...);

double f(double x) { return x * x; }

void lost(double x) {
  // CHECK: split-misuse.c:[[@LINE+2]]:3: error: [zymase:bad-return] cannot differentiate 'f': the call returns void, so the tape would be lost
  // CHECK-NEXT: instruction: {{.*}}@__enzyme_augmentfwd_void(ptr
  __enzyme_augmentfwd_void((void *)f, x);
}

void *extra(double x) {
  // CHECK: split-misuse.c:[[@LINE+3]]:10: error: [zymase:bad-call] cannot differentiate 'f': too many arguments: 'f' takes 1
  // CHECK-NEXT: instruction: {{.*}}@__enzyme_augmentfwd(ptr
  // CHECK-NEXT: hint: the return adjoint and the tape go to __enzyme_reverse
  return __enzyme_augmentfwd((void *)f, x, 1.0);
}

double bad_adjoint(double x, void *tape) {
  // CHECK: split-misuse.c:[[@LINE+2]]:10: error: [zymase:bad-call] cannot differentiate 'f': the return adjoint has type ptr but 'f' returns double
  // CHECK-NEXT: instruction: {{.*}}@__enzyme_reverse(ptr
  return __enzyme_reverse((void *)f, x, tape);
}

double int_tape(double x, long tape) {
  // CHECK: split-misuse.c:[[@LINE+3]]:10: error: [zymase:bad-call] cannot differentiate 'f': the tape argument has type i64, not a pointer
  // CHECK-NEXT: instruction: {{.*}}@__enzyme_reverse_int_tape(ptr
  // CHECK-NEXT: hint: pass the pointer __enzyme_augmentfwd returned
  return __enzyme_reverse_int_tape((void *)f, x, 1.0, tape);
}

double tape_marker(double x, long n) {
  // CHECK: split-misuse.c:[[@LINE+2]]:10: error: [zymase:bad-marker] cannot differentiate 'f': enzyme_tape must be followed by a pointer to the tape's buffer
  // CHECK-NEXT: instruction: {{.*}}@__enzyme_reverse(ptr
  return __enzyme_reverse((void *)f, x, 1.0, enzyme_tape, n);
}

void *dup_return(double x) {
  // CHECK: split-misuse.c:[[@LINE+2]]:10: error: [zymase:bad-marker] cannot differentiate 'f': enzyme_dup_return, but the function does not return a pointer
  // CHECK-NEXT: instruction: {{.*}}@__enzyme_augmentfwd(ptr
  return __enzyme_augmentfwd((void *)f, enzyme_dup_return, x);
}

unsigned long size_arg(double x) {
  // CHECK: split-misuse.c:[[@LINE+3]]:10: error: [zymase:bad-call] cannot differentiate 'f': argument 2 of '__enzyme_augmentsize' is not a marker
  // CHECK-NEXT: instruction: {{.*}}@__enzyme_augmentsize(ptr
  // CHECK-NEXT: hint: pass the function and the markers of its arguments, without the arguments
  return __enzyme_augmentsize((void *)f, x);
}

double size_double(void) {
  // CHECK: split-misuse.c:[[@LINE+3]]:10: error: [zymase:bad-return] cannot differentiate 'f': '__enzyme_augmentsize_double' must return an integer
  // CHECK-NEXT: instruction: {{.*}}@__enzyme_augmentsize_double(ptr
  // CHECK: 8 errors generated
  return __enzyme_augmentsize_double((void *)f, enzyme_const);
}
