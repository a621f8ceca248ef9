// A value recomputed in the reverse sweep (cos, sin, a branch merged as a
// select, a load nothing writes) that several reverse blocks of one
// iteration need is built once, at the start of the reverse block that
// dominates them, and reused by the others (cache/share.c): in the same
// reverse iteration only, never across iterations of its loop or of the
// loops around it, and only for values every iteration computes.  Loops
// with a break (entered in reverse elsewhere than at their latch), nested
// loops whose inner values are needed per inner iteration, and branches
// taken in some iterations only are checked against finite differences.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-recompute-math=false %s -lm -o %t4 && %t4
// RUN: %clang -O0 -Xclang -load -Xclang %plugin -mllvm -zymase-recompute-math %s -lm -o %t5 && %t5
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-recompute-math %s -lm -o %t6 && %t6
// RUN: %clang -O2 -fno-discard-value-names -Xclang -load -Xclang %plugin -mllvm -zymase-recompute-math -mllvm -zymase-print-cache -c %s -o /dev/null 2> %t.cache && %FileCheck %s < %t.cache
#include <math.h>
#include <string.h>

#include "fd.h"

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

#define N 6

// cos and sin of p[i & 3] are needed by the reverse of both sides of the
// branch and by the merge's: nothing is cached per iteration.
// CHECK-LABEL: cache of the gradient of 'branches'
// CHECK-NOT: per iteration
// CHECK-LABEL: cache of the gradient of
double branches(const double *p, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double x = p[i & 3], c = cos(x), si = sin(x), v;
    if (x * p[4] > 0.1)
      v = c * si * 1.7;
    else
      v = c * c + si;
    s += v * c + si * p[(i + 1) & 3];
  }
  return s;
}

// The same in an inner loop: the values of the outer iteration (cos of
// p[j & 3]) are shared by the inner loop's reverse iterations, those of
// the inner one per inner iteration.
double nested(const double *p, int n) {
  double s = 0;
  for (int j = 0; j < n; j++) {
    double a = cos(p[j & 3]);
    for (int k = 0; k < 3; k++) {
      double x = p[(j + k) % N] * a, e = exp(0.3 * x), v;
      if (x > 0)
        v = e * a;
      else
        v = sin(x) * e;
      s += v * e + a * x;
    }
  }
  return s;
}

// A loop with a break: its reverse is entered where the forward left it.
double early_exit(const double *p, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double c = cos(p[i & 3] * p[5]), v;
    if (c < 0.2)
      break;
    if (p[(i + 2) & 3] > 0)
      v = c * c;
    else
      v = sin(c) * c;
    s += v * c;
  }
  return s;
}

#define GRAD_CHECK(name, f, p0, n)                                            \
  do {                                                                         \
    double p[N], dp[N] = {0};                                                  \
    memcpy(p, p0, sizeof p);                                                   \
    __enzyme_autodiff((void *)f, enzyme_dup, p, dp, enzyme_const, n);          \
    for (int k = 0; k < N; k++) {                                              \
      double q[N];                                                             \
      memcpy(q, p0, sizeof q);                                                 \
      double fd = ZY_DIFF(t, p0[k], (q[k] = t, f(q, n)));                      \
      zy_check_close(name, dp[k], fd, ZY_FD_TOL);                              \
    }                                                                          \
  } while (0)

int main(void) {
  const double p0[N] = {0.3, -0.7, 1.1, 0.4, -1.3, 0.9};
  const double p1[N] = {1.4, 0.2, -0.5, 2.9, 0.7, 1.6}; /* breaks early */
  for (int n = 1; n <= 9; n += 4) {
    GRAD_CHECK("branches", branches, p0, n);
    GRAD_CHECK("branches p1", branches, p1, n);
    GRAD_CHECK("nested", nested, p0, n);
    GRAD_CHECK("nested p1", nested, p1, n);
    GRAD_CHECK("early_exit", early_exit, p0, n);
    GRAD_CHECK("early_exit p1", early_exit, p1, n);
  }
  return zy_report();
}
