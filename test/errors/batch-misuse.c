// errors/batch-misuse.c - __enzyme_batch refuses, with a located error, a call without enzyme_width, a marker of the other entry points, and a function whose lanes could see each other's writes (a global written, a shared pointer written, a callee that writes outside its frame): run lane after lane, their results could differ from lanes run side by side.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'

typedef struct {
  double y[2];
} B2;
double __enzyme_batch(void *, ...);
B2 __enzyme_batch2(void *, ...);
void __enzyme_batch_void(void *, ...);
extern int enzyme_width, enzyme_scalar, enzyme_dup;

double sq(double x) { return x * x; }

double no_width(double x) {
  // CHECK: batch-misuse.c:[[@LINE+2]]:10: error: [zymase:bad-marker] {{.*}}__enzyme_batch needs enzyme_width followed by a constant number of lanes
  // CHECK: hint: write __enzyme_batch(f, enzyme_width, N, ...)
  return __enzyme_batch((void *)sq, x, 1.0);
}

B2 dup(double x) {
  // CHECK: batch-misuse.c:[[@LINE+1]]:10: error: [zymase:bad-marker] {{.*}}marker 'enzyme_dup' is not supported by __enzyme_batch
  return __enzyme_batch2((void *)sq, enzyme_width, 2, enzyme_dup, x, x);
}

double total;
double count(double x) {
  total += x;
  return x;
}
B2 global(double x) {
  // CHECK: batch-misuse.c:[[@LINE-4]]:{{[0-9]+}}: error: [zymase:unsupported] {{.*}}__enzyme_batch: the lanes of 'count' could see each other's writes
  return __enzyme_batch2((void *)count, enzyme_width, 2, x, 2 * x);
}

void acc(double x, double *sum) { *sum += x; }
void shared(double x, double *sum) {
  // CHECK: batch-misuse.c:[[@LINE-2]]:{{[0-9]+}}: error: [zymase:unsupported] {{.*}}__enzyme_batch: the lanes of 'acc' could see each other's writes
  // CHECK: hint: let the function write only through pointer arguments given per lane
  __enzyme_batch_void((void *)acc, enzyme_width, 2, x, 2 * x, enzyme_scalar,
                      sum);
}

__attribute__((noinline)) void put(double *p, double x) { *p = x; }
void via_callee(double *p, double x) { put(p, x); }
void callee(double *p, double *q, double x) {
  // CHECK: batch-misuse.c:[[@LINE-2]]:{{[0-9]+}}: error: [zymase:unsupported] {{.*}}__enzyme_batch: the lanes of 'via_callee' could see each other's writes
  // CHECK: errors generated
  __enzyme_batch_void((void *)via_callee, enzyme_width, 2, p, q, x, x);
}
