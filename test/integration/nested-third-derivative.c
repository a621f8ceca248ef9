// A third derivative through enzyme_dup pointers: the second gradient
// (hvp) calls the first (gdot's __enzyme_autodiff of g) in split mode, and
// the first's tape keeps values with derivatives; the third gradient
// differentiates both again.  The tape reaches the reverse half in the
// struct the augmented forward returns, which now has a shadow (structs
// of pointers, docs/architecture.md), so the tape's derivatives are
// carried like any other memory's; before, this was refused ("nested AD:
// this half of a gradient split in two ... keeps values with derivatives
// in its tape, which has no shadow").  The third derivative T(x)[v, w]
// against central differences of w.(H(x) v), and H v against differences
// of the gradient, at -O0 and -O2 (the loop exits on a value of s: the
// points are away from its switch).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
#include "fd.h"

double __enzyme_autodiff(void *, ...);
int enzyme_dup, enzyme_const;

double g(const double *x, int n) {
  double s = 0;
  int i = 0;
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

int main(void) {
  double pts[2][4] = {{0.3, 0.5, -0.2, 0.4}, {0.9, -0.6, 0.7, 0.25}};
  double v[4] = {1, 0.5, -0.3, 0.2}, w[4] = {0.2, -1, 0.4, 0.7};
  char what[64];
  for (int p = 0; p < 2; p++) {
    double *x = pts[p], t[4] = {0}, hv[4] = {0}, xs[4];
    third(x, v, w, t, 4);
    hvp(x, v, hv, 4);
    for (int i = 0; i < 4; i++) {
      for (int k = 0; k < 4; k++)
        xs[k] = x[k];
      double fd3 = ZY_DIFF(s, x[i], ({
                             xs[i] = s;
                             hdot(xs, v, w, 4);
                           }));
      double fd2 = ZY_DIFF(s, x[i], ({
                             xs[i] = s;
                             gdot(xs, v, 4);
                           }));
      snprintf(what, sizeof what, "point %d: T[v,w][%d]", p, i);
      zy_check_close(what, t[i], fd3, 1e-7);
      snprintf(what, sizeof what, "point %d: (H v)[%d]", p, i);
      zy_check_close(what, hv[i], fd2, 1e-7);
    }
  }
  return zy_report();
}
