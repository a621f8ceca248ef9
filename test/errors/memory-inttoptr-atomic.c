// errors/memory-inttoptr-atomic.c - a pointer made from an arbitrary integer, a pointer rebuilt from integer arithmetic other than + and -, and atomics other than a float += or -= on memory with a shadow, are unsupported errors.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
#include <stdint.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_const;

double f(const double *x, uintptr_t a) {
  // CHECK: memory-inttoptr-atomic.c:[[@LINE+4]]:21: error: [zymase:unsupported] cannot differentiate 'f': a pointer made from an integer may reach memory with derivatives
  // CHECK-NEXT: instruction: {{.*}} = inttoptr i64 {{.*}} to ptr
  // CHECK-NEXT: hint: pass the memory as a pointer
  // NOG: error: [zymase:unsupported] cannot differentiate 'f': a pointer made from an integer may reach memory with derivatives
  const double *p = (const double *)a;
  return x[0] * x[1] + p[0];
}

/* An integer counter updated atomically carries no derivative: fine.  An
 * atomic update of a float other than += and -= (a compare-and-swap loop
 * for *=) is refused. */
double h(double *x, int *count) {
  __atomic_fetch_add(count, 1, __ATOMIC_SEQ_CST);
  // CHECK: memory-inttoptr-atomic.c:[[@LINE+4]]:{{[0-9]+}}: error: [zymase:unsupported] cannot differentiate 'h': an atomic operation other than a floating-point add or subtract
  // CHECK-NEXT: instruction: {{.*}} = cmpxchg ptr
  // CHECK-NEXT: hint: use += or -=
  // NOG: error: [zymase:unsupported] cannot differentiate 'h': an atomic operation other than a floating-point add or subtract
  *(_Atomic double *)x *= x[1];
  return x[0] * x[1];
}

/* Rounding a pointer down by masking its bits cannot be mirrored on the
 * shadow, which may be aligned differently. */
double k(const double *x) {
  // CHECK: memory-inttoptr-atomic.c:[[@LINE+4]]:{{[0-9]+}}: error: [zymase:unsupported] cannot differentiate 'k': a pointer is rebuilt from integer arithmetic Zymase cannot mirror on its shadow
  // CHECK-NEXT: instruction: {{.*}} = inttoptr i64 {{.*}} to ptr
  // CHECK: 3 errors generated
  // NOG: error: [zymase:unsupported] cannot differentiate 'k': a pointer is rebuilt from integer arithmetic
  const double *p = (const double *)(((uintptr_t)(x + 1)) & ~(uintptr_t)7);
  return p[0] * x[0];
}

double g(double *x, double *dx, uintptr_t a, int *c) {
  return __enzyme_autodiff((void *)f, x, dx, a) +
         __enzyme_autodiff((void *)h, x, dx, enzyme_const, c) +
         __enzyme_autodiff((void *)k, x, dx);
}
