// A `void __enzyme_reverse` call with an active scalar argument: as for
// __enzyme_autodiff (and as Enzyme does), its gradient is dropped with a
// located warning naming the entry point, while the gradients of dup
// pointers still land in their shadows.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 -g %s -lm -o %t0 2>&1 | %FileCheck %s --implicit-check-not=error
// RUN: %t0
// RUN: %clang -O2 -g %s -lm -o %t2 2>&1 | %FileCheck %s --implicit-check-not=error
// RUN: %t2
#include "check.h"

void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

/* y0 <- y0 x; returns x^2 */
double h(double x, double *y) {
  y[0] = y[0] * x;
  return x * x;
}

int main(void) {
  double x = 0.5, y[1] = {3.0}, dy[1] = {0.0};
  void *tape = __enzyme_augmentfwd((void *)h, x, y, dy);
  zy_check_close("primal y0", y[0], 1.5, 0);
  dy[0] = 2.0; /* seed on the output y0 */
  // CHECK: abi-void-reverse-warning.c:[[@LINE+4]]:3: warning: [zymase:bad-return] 'h': the call returns void: the gradient of 1 active argument is dropped
  // CHECK-NEXT: instruction: {{.*}}@__enzyme_reverse(ptr
  // CHECK-NEXT: hint: declare __enzyme_reverse to return double
  // CHECK: 1 warning generated
  __enzyme_reverse((void *)h, x, y, dy, 0.0, tape);
  /* the input y0's gradient: seed * x */
  zy_check_close("dy0", dy[0], 2.0 * x, 1e-15);
  return zy_report();
}
