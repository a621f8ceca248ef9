// errors/nested-split-tape.c - a third derivative through enzyme_dup
// pointers: the second gradient calls the first in split mode, whose tape
// keeps values with derivatives; differentiating it again is an
// unsupported error that says so, not a wrong result or a crash.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
#include <math.h>

double __enzyme_autodiff(void *, ...);
int enzyme_dup, enzyme_const;

double g(const double *x, int n) {
  double s = 0;
  int i = 0;
  // CHECK: nested-split-tape.c:[[@LINE+4]]:{{[0-9]+}}: error: [zymase:unsupported] cannot differentiate '__zymase_rev.__zymase_grad.g.{{.*}}': nested AD: this half of a gradient split in two (a callee that updates memory with shadows) keeps values with derivatives in its tape, which has no shadow
  // CHECK-NEXT: instruction: store double
  // CHECK-NEXT: hint: differentiate a gradient taken with enzyme_dup pointers once more at most
  // CHECK: 1 error generated
  while (s < 3.0 && i < n) {
    s += x[i] * x[i] * sin(s + x[i]);
    i++;
  }
  return s;
}
double gdot(const double *x, const double *v, int n) {
  double dx[4] = {0};
  __enzyme_autodiff((void *)g, enzyme_dup, x, dx, enzyme_const, n);
  return dx[0] * v[0] + dx[1] * v[1] + dx[2] * v[2] + dx[3] * v[3];
}
void hvp(const double *x, const double *v, double *hv, int n) {
  __enzyme_autodiff((void *)gdot, enzyme_dup, x, hv, enzyme_const, v,
                    enzyme_const, n);
}
double hdot(const double *x, const double *v, const double *w, int n) {
  double hv[4] = {0};
  hvp(x, v, hv, n);
  return hv[0] * w[0] + hv[1] * w[1] + hv[2] * w[2] + hv[3] * w[3];
}
void third(const double *x, const double *v, const double *w, double *t,
           int n) {
  __enzyme_autodiff((void *)hdot, enzyme_dup, x, t, enzyme_const, v,
                    enzyme_const, w, enzyme_const, n);
}
