// Frees are deferred to the end of the reverse sweep, so loads of heap
// memory that nothing writes after them are computed again instead of
// cached (a table filled before the loop and freed after it, as GMM's
// diagonal factors).  With -zymase-recompute-math, math calls (sin, cos,
// exp) of such values are recomputed too, and so is the merge of a branch
// both of whose sides are (a rotation with a zero-angle branch, as in
// bundle adjustment).
// Buffers swapped at every iteration (u, v = v, u) stay cached: alias
// analysis finds the two pointers distinct within one iteration only.  A
// free on one path only is deferred as well.  Checked against finite
// differences; the cache report shows what is no longer cached.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O0 -Xclang -load -Xclang %plugin -mllvm -zymase-recompute-math %s -lm -o %t4 && %t4
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-recompute-math %s -lm -o %t5 && %t5
// RUN: %clang -O2 -fno-discard-value-names -Xclang -load -Xclang %plugin -mllvm -zymase-recompute-math -mllvm -zymase-print-cache -c %s -o /dev/null 2> %t.cache && %FileCheck %s < %t.cache
// RUN: %clang -O2 -fno-discard-value-names -Xclang -load -Xclang %plugin -mllvm -zymase-recompute-math=false -mllvm -zymase-print-cache -c %s -o /dev/null 2> %t.cache0 && %FileCheck %s --check-prefix=DEFAULT < %t.cache0
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fd.h"

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

#define N 6

// The table q is written before the loop and freed after it: its loads,
// and the exp of them, are recomputed, nothing is cached per iteration.
// Without -zymase-recompute-math neither: the pre-AD copy takes exp as
// not touching memory (its errno write does not matter to AD), so LICM
// moves exp(q[k]) out of the loop, computed once (it was cached per
// iteration while exp was taken to write memory).
// CHECK-LABEL: cache of the gradient of 'table'
// CHECK-NOT: per iteration
// DEFAULT-LABEL: cache of the gradient of 'table'
// DEFAULT-NOT: per iteration
// DEFAULT: call{{.*}}once
// DEFAULT-NOT: per iteration
// DEFAULT-LABEL: cache of the gradient of 'rotate' 
double table(const double *p, int n) {
  double *q = malloc(sizeof(double) * N);
  for (int k = 0; k < N; k++)
    q[k] = exp(0.5 * p[k]);
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < N; k++)
      s += q[k] * q[(k + i) & 3] * exp(q[k]) * p[(k + 2 * i) & 3];
  free(q);
  return s;
}

// Both sides of the branch are recomputed, and so is their merge.
// CHECK-LABEL: cache of the gradient of 'rotate'
// CHECK-NOT: per iteration
double rotate(const double *p, int n) {
  double err = 0;
  for (int i = 0; i < n; i++) {
    const double *r = p + (i & 1) * 3;
    double t2 = r[0] * r[0] + r[1] * r[1], z = r[2] * 1.5, o;
    if (t2 != 0.0) {
      double t = sqrt(t2), c = cos(t), s = sin(t);
      o = z * c + r[0] * s / t + (1 - c) * r[1];
    } else {
      o = z + r[0] + r[1] * r[0]; /* the first order of the other side */
    }
    err += o * o * p[i & 3];
  }
  return err;
}

// u and v are swapped at every step: the loads of u stay cached.
// CHECK-LABEL: cache of the gradient of 'swapped'
// CHECK: double, 8 bytes, per iteration
double swapped(const double *p, int steps) {
  double a[N], b[N], *u = a, *v = b, s = 0;
  memcpy(u, p, sizeof a);
  for (int t = 0; t < steps; t++) {
    for (int k = 0; k < N; k++)
      v[k] = u[k] + 0.3 * u[(k + 1) % N] * u[k];
    double *w = u;
    u = v;
    v = w;
  }
  for (int k = 0; k < N; k++)
    s += u[k] * u[k];
  return s;
}

// Freed on one path only, read after the branch by the loop.
// CHECK-LABEL: cache of the gradient of 'maybe_freed'
// CHECK-NOT: per iteration
double maybe_freed(const double *p, int n) {
  double *q = malloc(sizeof(double) * N), *keep = NULL, s = 0;
  for (int k = 0; k < N; k++)
    q[k] = sin(p[k]);
  for (int i = 0; i < n; i++)
    s += q[i & 3] * q[(i + 1) & 3] * p[i & 3];
  if (n > 3)
    free(q);
  else
    keep = q;
  s += p[0] * s;
  free(keep);
  return s;
}

#define GRAD_CHECK(name, f, p0, n)                                                  \
  do {                                                                         \
    double p[N], dp[N] = {0};                                                  \
    memcpy(p, p0, sizeof p);                                                   \
    __enzyme_autodiff((void *)f, enzyme_dup, p, dp, enzyme_const, n);         \
    for (int k = 0; k < N; k++) {                                              \
      double q[N];                                                             \
      memcpy(q, p0, sizeof q);                                                 \
      double fd = ZY_DIFF(t, p0[k], (q[k] = t, f(q, n)));                      \
      zy_check_close(name, dp[k], fd, ZY_FD_TOL);                              \
    }                                                                          \
  } while (0)

int main(void) {
  const double p0[N] = {0.3, -0.7, 1.1, 0.4, -1.3, 0.9};
  const double z[N] = {0.0, 0.0, 0.8, -0.6, 0.5, 1.2}; /* zero angle */
  for (int n = 1; n <= 7; n += 3) {
    GRAD_CHECK("table", table, p0, n);
    GRAD_CHECK("rotate", rotate, p0, n);
    GRAD_CHECK("rotate zero", rotate, z, n);
    GRAD_CHECK("swapped", swapped, p0, n);
    GRAD_CHECK("maybe_freed", maybe_freed, p0, n);
  }
  return zy_report();
}
