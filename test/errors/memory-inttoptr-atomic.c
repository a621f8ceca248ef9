// errors/memory-inttoptr-atomic.c - integer-to-pointer casts and atomics in a function that uses memory with a shadow are unsupported errors.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
#include <stdint.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_const;

double f(const double *x, uintptr_t a) {
  // CHECK: memory-inttoptr-atomic.c:[[@LINE+3]]:21: error: [zymase:unsupported] cannot differentiate 'f': integer-to-pointer casts and atomics in functions that use memory with a shadow are not supported yet
  // CHECK-NEXT: instruction: {{.*}} = inttoptr i64 {{.*}} to ptr
  // NOG: error: [zymase:unsupported] cannot differentiate 'f': integer-to-pointer casts and atomics
  const double *p = (const double *)a;
  return x[0] * x[1] + p[0];
}

double h(const double *x, int *count) {
  // CHECK: memory-inttoptr-atomic.c:[[@LINE+4]]:3: error: [zymase:unsupported] cannot differentiate 'h': integer-to-pointer casts and atomics in functions that use memory with a shadow are not supported yet
  // CHECK-NEXT: instruction: {{.*}} = atomicrmw add ptr
  // CHECK: 2 errors generated
  // NOG: error: [zymase:unsupported] cannot differentiate 'h': integer-to-pointer casts and atomics
  __atomic_fetch_add(count, 1, __ATOMIC_SEQ_CST);
  return x[0] * x[1];
}

double g(double *x, double *dx, uintptr_t a, int *c) {
  return __enzyme_autodiff((void *)f, x, dx, a) +
         __enzyme_autodiff((void *)h, x, dx, enzyme_const, c);
}
