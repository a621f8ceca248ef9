// Values of loop iterations computed by fdiv, fmuladd, sqrt, fabs, fmax and
// copysign are computed again in the reverse sweep from the values cached
// anyway (the sine and cosine, the loads of overwritten memory) instead of
// being cached themselves; the gradient must be the same.  A rotation-like
// body (as in bundle adjustment) whose scratch array is overwritten each
// iteration, checked against finite differences.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O2 -fno-discard-value-names -Xclang -load -Xclang %plugin -mllvm -zymase-print-cache -c %s -o /dev/null 2> %t.cache && %FileCheck %s < %t.cache
#include <math.h>
#include <string.h>

#include "fd.h"

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

#define N 6

// CHECK-LABEL: cache of the gradient of 'rotate_sum'
// CHECK-NOT: {{%div|%sqrt}}{{[0-9]*}}: double, 8 bytes, per iteration
double rotate_sum(const double *p, int n) {
  double xo[3], err = 0;
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < 3; k++)
      xo[k] = p[(i + k) % N] - 0.3 * k;
    double th2 = p[i] * p[i] + p[(i + 1) % N] * p[(i + 1) % N] + 0.1;
    double th = sqrt(th2), c = cos(th), s = sin(th), inv = 1.0 / th;
    double w0 = p[i] * inv, w1 = p[(i + 1) % N] * inv;
    double a = xo[0] * c + (w1 * xo[2]) * s + w0 * (1 - c);
    double b = xo[1] * c - (w0 * xo[2]) * s + w1 * (1 - c);
    double px = a / (xo[2] + 3.0), py = b / (xo[2] + 3.0);
    double r = px * px + py * py;
    double l = 1.0 + 0.2 * r + 0.05 * r * r;
    double m = fmax(fabs(px * l), copysign(0.01, py) * py);
    err += m * m + py * l * py * l;
  }
  return err;
}

int main(void) {
  const double p0[N] = {0.3, -0.7, 1.1, 0.4, -1.3, 0.9};
  for (int n = 1; n <= N; n += 2) {
    double p[N], dp[N] = {0};
    memcpy(p, p0, sizeof p);
    __enzyme_autodiff((void *)rotate_sum, enzyme_dup, p, dp, enzyme_const, n);
    for (int k = 0; k < N; k++) {
      double q[N];
      memcpy(q, p0, sizeof q);
      double fd = ZY_DIFF(t, p0[k], (q[k] = t, rotate_sum(q, n)));
      zy_check_close("rotate_sum", dp[k], fd, ZY_FD_TOL);
    }
  }
  return zy_report();
}
