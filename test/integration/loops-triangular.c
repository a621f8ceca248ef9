// A triangular nest (j from i + 1 to n): the inner loop's trip count
// n - i - 1 varies with the outer loop.  Scalar evolution gives it as a
// recurrence of the outer loop, rewritten in the outer loop's induction
// variable, so the reverse sweep recomputes where each entry of the inner
// loop ended instead of caching it per outer iteration (the cache report
// has no exit iteration numbers).  Gradients checked against finite
// differences, with the inner loop's bounds in both directions.
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

#define N 7

// CHECK-LABEL: cache of the gradient of 'pairs'
// CHECK-NOT: exit.iv
// CHECK-LABEL: cache of the gradient of 'lower'
// CHECK-NOT: exit.iv

/* sum over i < j of sin(x[i]) x[j]^2, the scratch t overwritten each i */
double pairs(const double *x, int n) {
  double s = 0, t[N];
  for (int i = 0; i < n; i++) {
    double a = sin(x[i]);
    for (int j = i + 1; j < n; j++)
      t[j] = a * x[j];
    for (int j = i + 1; j < n; j++)
      s += t[j] * x[j];
  }
  return s;
}

/* j from 0 to i, packed lower triangle as in GMM's factors */
double lower(const double *x, int n) {
  double s = 0;
  int li = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++, li++)
      s += x[i] * x[j] * cos(0.1 * li);
  return s;
}

#define CHECK(f, n)                                                            \
  do {                                                                         \
    double x0[N] = {0.3, -0.7, 1.1, 0.4, -1.3, 0.9, 0.2};                      \
    double x[N], dx[N] = {0};                                                  \
    memcpy(x, x0, sizeof x);                                                   \
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);          \
    for (int k = 0; k < N; k++) {                                              \
      double q[N];                                                             \
      memcpy(q, x0, sizeof q);                                                 \
      zy_check_close(#f, dx[k], ZY_DIFF(t, x0[k], (q[k] = t, f(q, n))),        \
                     ZY_FD_TOL);                                               \
    }                                                                          \
  } while (0)

int main(void) {
  for (int n = 0; n <= N; n += 3) {
    CHECK(pairs, n);
    CHECK(lower, n);
  }
  return zy_report();
}
