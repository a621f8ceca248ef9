// errors/realloc-callee-own-memory.c - a call of a function that reallocs memory its caller passes it is refused when that memory is the caller's own (its local struct's heap block) or the call is made more than once or in a loop: the callee's reverse sweep frees the old block's shadow, which the caller's reverse sweep (or the reverse of the earlier call) then read. Before, the gradient read freed memory, silently: a buffer grown by three calls gave 9.3e-310 1.5e-198 18 for 2 8 18 (valgrind: invalid reads).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
#include <stdlib.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup;

typedef struct {
  double *data;
  int n;
} Buf;

__attribute__((noinline)) void grow(Buf *b, double v) {
  b->data = realloc(b->data, (b->n + 1) * sizeof(double));
  b->data[b->n++] = v;
}

double in_loop(double *x) {
  Buf b = {NULL, 0};
  for (int i = 0; i < 3; i++)
    // CHECK: realloc-callee-own-memory.c:[[@LINE+4]]:5: error: [zymase:unsupported] cannot differentiate 'in_loop': a call of 'grow', which reallocs memory its caller passes it, with memory of this function's own, more than once or in a loop
    // CHECK-NEXT: instruction: call void @grow(
    // CHECK-NEXT: hint: realloc in the function given to __enzyme_autodiff itself
    // NOG: error: [zymase:unsupported] cannot differentiate 'in_loop': a call of 'grow'
    grow(&b, x[i] * x[i]);
  double s = 0;
  for (int i = 0; i < b.n; i++)
    s += b.data[i] * (i + 1);
  free(b.data);
  return s;
}

double own_block(double *x) {
  Buf b = {malloc(2 * sizeof(double)), 2};
  b.data[0] = x[0] * x[0];
  b.data[1] = x[1];
  // CHECK: realloc-callee-own-memory.c:[[@LINE+3]]:3: error: [zymase:unsupported] cannot differentiate 'own_block': a call of 'grow', which reallocs memory its caller passes it
  // CHECK: 2 errors generated
  // NOG: error: [zymase:unsupported] cannot differentiate 'own_block': a call of 'grow'
  grow(&b, x[2] * x[2]);
  double s = b.data[0] + 2 * b.data[1] + 3 * b.data[2];
  free(b.data);
  return s;
}

double g(double *x, double *d) {
  return __enzyme_autodiff((void *)in_loop, enzyme_dup, x, d) +
         __enzyme_autodiff((void *)own_block, enzyme_dup, x, d);
}
