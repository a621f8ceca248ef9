// The norm example of the pre-AD pipeline: out[i] = in[i] / mag(in) with
// restrict pointers.  At -O0 the call of mag is hoisted out of the loop
// before differentiation (lit/preopt/hoist-readonly-call.ll pins that);
// here the gradient is checked against finite differences at every level.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %clang -O0 -fno-math-errno %s -lm -o %t3 && %t3
#include <string.h>

#include "fd-memory.h"

void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

#define N 9

double mag(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return sqrt(s);
}

void normalize(double *__restrict out, const double *__restrict in, int n) {
  for (int i = 0; i < n; i++)
    out[i] = in[i] / mag(in, n);
}

/* sum_i w_i out_i, the functional whose gradient the seed dout = w gives */
static double weighted(const double *in, const double *w, int n) {
  double out[N], s = 0;
  normalize(out, in, n);
  for (int i = 0; i < n; i++)
    s += w[i] * out[i];
  return s;
}

int main(void) {
  double in[N] = {0.3, -0.7, 1.1, 0.4, -1.3, 0.9, 0.2, -0.5, 0.6};
  double w[N] = {1.0, 0.5, -0.25, 2.0, 0.75, -1.5, 0.1, 0.3, -0.6};
  for (int n = 1; n <= N; n += 4) {
    double out[N], dout[N], din[N] = {0}, fd[N] = {0};
    memcpy(dout, w, sizeof dout);
    __enzyme_autodiff((void *)normalize, enzyme_dup, out, dout, enzyme_dup,
                      in, din, enzyme_const, n);
    for (int k = 0; k < n; k++)
      fd[k] = ZY_DIFF_AT(in, k, weighted(in, w, n));
    zy_check_array("normalize/din", din, fd, n, ZY_FD_TOL);
  }
  return zy_report();
}
