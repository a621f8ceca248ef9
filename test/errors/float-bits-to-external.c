// errors/float-bits-to-external.c - the bits of a double with a derivative
// passed as an integer to a function without a body here (or through a
// pointer to an unknown function) carry no derivative: a warning names
// the callee and the argument, located at the call (before, nothing was
// said and the gradient was silently short).  A function with a body is
// differentiated through (integration/issue-float-bits-to-callee.c), and
// bits only inspected by an intrinsic, or given to a function marked
// inactive, are not warned about.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error' --implicit-check-not='error:' --implicit-check-not='warning:'
// RUN: %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error' --implicit-check-not='error:' --implicit-check-not='warning:'
#include <stdint.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_const;

double ext_from_bits(uint64_t bits);
int quiet_bits(uint64_t bits);
void *__enzyme_inactivefn[1] = {(void *)quiet_bits};

double f(double x) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  int q = quiet_bits(b) + __builtin_popcountll(b);
  // CHECK: float-bits-to-external.c:[[@LINE+3]]:{{[0-9]+}}: warning: [zymase:unsupported] 'f': the bits of a floating-point value with a derivative are passed as an integer to 'ext_from_bits' (argument 1): no derivative flows through them
  // CHECK-NEXT: instruction: {{.*}}call double @ext_from_bits(i64
  // CHECK: hint: pass the value as a floating-point argument, or call a function with a body in this translation unit
  return ext_from_bits(b) * x + q;
}

double g(double x, double (*fp)(int, uint64_t)) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  // CHECK: float-bits-to-external.c:[[@LINE+1]]:{{[0-9]+}}: warning: [zymase:unsupported] 'g': the bits of a floating-point value with a derivative are passed as an integer to an indirect call (argument 2): no derivative flows through them
  return fp(1, b) * x;
}

double df(double x) { return __enzyme_autodiff((void *)f, x); }
double dg(double x, double (*fp)(int, uint64_t)) {
  return __enzyme_autodiff((void *)g, x, enzyme_const, fp);
}
