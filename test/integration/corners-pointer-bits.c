// Pointers that pass through their integer bits, as real code does it:
// (uintptr_t)p + an offset cast back, a union of a pointer and a
// uintptr_t advanced through the integer, a pointer difference as a loop
// bound.  Reverse mode mirrors the bits on the shadow's; forward mode gave
// the integers no shadow and crashed the compiler (an inttoptr of a null
// operand, at -O0, -O1 and -O2).  Gradients and tangents against central
// differences; the primal against a plain evaluation computed apart.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
#include "fd.h"

#include <stdint.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup;

#define N 6

typedef union {
  double *p;
  uintptr_t u;
} Bits;

double offset(double *x) {
  uintptr_t u = (uintptr_t)x;
  u += 2 * sizeof(double);
  double *p = (double *)u;
  return p[0] * x[0] + p[3] * sin(p[1]);
}
double in_union(double *x) {
  Bits w;
  w.p = x;
  w.u += sizeof(double);
  double s = 0;
  for (int i = 0; i < 3; i++, w.u += sizeof(double))
    s += w.p[0] * w.p[1];
  return s;
}
__attribute__((noinline)) double *advance(double *p, long bytes) {
  return (double *)((uintptr_t)p + bytes);
}
double through_call(double *x) {
  double *e = x + N, s = 0;
  for (double *p = x; p < e; p = advance(p, 2 * sizeof(double)))
    s += p[0] * p[1] * (double)(e - p);
  return s;
}

static double in_union_plain(const double *x) {
  double s = 0;
  for (int i = 1; i < 4; i++)
    s += x[i] * x[i + 1];
  return s;
}

#include "check-modes.h"
MODES(offset)
MODES(in_union)
MODES(through_call)

int main(void) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.4 + 0.3 * i - 0.05 * i * i;
  zy_check_close("in_union primal", in_union(x), in_union_plain(x), 1e-15);
  check("offset", offset, grad_offset, tan_offset, x);
  check("in_union", in_union, grad_in_union, tan_in_union, x);
  check("through_call", through_call, grad_through_call, tan_through_call, x);
  return zy_report();
}
