// A `void __enzyme_autodiff(void *, ...)` call with active scalar
// arguments: as Enzyme, their gradients are dropped with a located
// warning (not an error), and the gradients of dup pointers still land in
// their shadows; with no active scalar there is no warning.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 -g %s -lm -o %t0 2>&1 | %FileCheck %s --implicit-check-not=error --implicit-check-not=warning
// RUN: %t0
// RUN: %clang -O2 -g %s -lm -o %t2 2>&1 | %FileCheck %s --implicit-check-not=error --implicit-check-not=warning
// RUN: %t2
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 2>&1 | %FileCheck %s --check-prefix=NOG && %t1 %}
#include "fd.h"

void __enzyme_autodiff(void *, ...);

/* y0 <- y0 sin(x); returns x y1 + c */
double f(double x, double *y, double c) {
  y[0] = y[0] * sin(x);
  return x * y[1] + c;
}

static double f_v(double x, double y0, double y1, double c, int k) {
  double y[2] = {y0, y1};
  double r = f(x, y, c);
  return k ? r + 2.0 * y[0] : r;
}

int main(void) {
  double x = 0.7, c = 1.25;
  double y[2] = {2.0, 3.0}, dy[2] = {2.0, 0.0}; /* seed 2 on the output y0 */
  // CHECK: abi-void-call-warning.c:[[@LINE+5]]:3: warning: [zymase:bad-return] 'f': the call returns void: the gradients of 2 active arguments are dropped
  // CHECK-NEXT: instruction: {{.*}}call void (ptr, ...) @__enzyme_autodiff(ptr
  // CHECK-NEXT: hint: declare __enzyme_autodiff to return double
  // CHECK: 1 warning generated
  // NOG: warning: [zymase:bad-return] 'f': the call returns void: the gradients of 2 active arguments are dropped
  __enzyme_autodiff((void *)f, x, y, dy, c);
  /* d/dy0 of (x y1 + c + 2 y0 sin x) = 2 sin x; d/dy1 = x */
  ZY_CHECK2("dy0", dy[0], 2 * sin(x), ZY_DIFF(t, 2.0, f_v(x, t, 3.0, c, 1)));
  ZY_CHECK2("dy1", dy[1], x, ZY_DIFF(t, 3.0, f_v(x, 2.0, t, c, 1)));
  zy_check_close("primal y0", y[0], 2.0 * sin(x), 0);

  /* No active scalar (x and c constant): no warning. */
  double z[2] = {2.0, 3.0}, dz[2] = {0};
  extern int enzyme_const;
  __enzyme_autodiff((void *)f, enzyme_const, x, z, dz, enzyme_const, c);
  zy_check_close("const/dz1", dz[1], x, ZY_TOL);
  zy_check_close("const/dz0", dz[0], 0, 0);
  return zy_report();
}
int enzyme_const;
