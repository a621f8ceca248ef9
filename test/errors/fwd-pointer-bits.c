// errors/fwd-pointer-bits.c - forward mode refuses, as reverse mode does, a pointer rebuilt from integer arithmetic other than + and - (a tag bit masked off) and a pointer made from an arbitrary integer; before, the loads through it had no tangent and the result was silently wrong (1 for 8).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
#include <stdint.h>

double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

double tagged(double *x) {
  uintptr_t u = (uintptr_t)(x + 2) | 1;
  // CHECK: fwd-pointer-bits.c:[[@LINE+4]]:{{[0-9]+}}: error: [zymase:unsupported] cannot differentiate 'tagged': a pointer is rebuilt from integer arithmetic Zymase cannot mirror on its shadow
  // CHECK-NEXT: instruction: {{.*}} = inttoptr i64 {{.*}} to ptr
  // CHECK-NEXT: hint: use pointer arithmetic
  // NOG: error: [zymase:unsupported] cannot differentiate 'tagged': a pointer is rebuilt from integer arithmetic
  double *p = (double *)(u & ~(uintptr_t)1);
  return p[0] * p[1] + x[0];
}

double from_int(double *x, uintptr_t a) {
  // CHECK: fwd-pointer-bits.c:[[@LINE+4]]:{{[0-9]+}}: error: [zymase:unsupported] cannot differentiate 'from_int': a pointer made from an integer may reach memory with derivatives
  // CHECK-NEXT: instruction: {{.*}} = inttoptr i64 {{.*}} to ptr
  // CHECK-NEXT: hint: pass the memory as a pointer
  // NOG: error: [zymase:unsupported] cannot differentiate 'from_int': a pointer made from an integer may reach memory with derivatives
  double *p = (double *)a;
  p[0] = x[0] * x[1];
  return p[1] * x[0];
}

double g(double *x, double *v, uintptr_t a) {
  return __enzyme_fwddiff((void *)tagged, enzyme_dup, x, v) +
         __enzyme_fwddiff((void *)from_int, enzyme_dup, x, v, enzyme_const,
                          a);
}
