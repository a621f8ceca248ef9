// Math calls of loop iterations (exp, sin, cos) are computed again in the
// reverse sweep; the forward sweep also logs them while the call's
// iterations of the loop fit in -zymase-math-log-mb per loop, and the
// reverse reads the log when they all fitted.  Checked on both paths: the
// default 16 MiB holds every loop here; with 1 MiB (131072 doubles) the
// large runs do not fit and are computed again; with 0 the calls are
// cached as before.  A log-sum-exp, a rotation with a zero-angle branch
// (bundle adjustment's: the merges of the branch are recomputed from the
// logged cos and sin), an inner loop entered many times, and a loop with a
// data-dependent exit (its log grows in the header and is turned off when
// it overflows).  Gradients against central finite differences.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %clang -O0 -Xclang -load -Xclang %plugin -mllvm -zymase-math-log-mb=1 %s -lm -o %t3 && %t3
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-math-log-mb=1 %s -lm -o %t4 && %t4
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-math-log-mb=0 %s -lm -o %t5 && %t5
// RUN: %clang -O2 -fno-discard-value-names -Xclang -load -Xclang %plugin -mllvm -zymase-print-cache -c %s -o /dev/null 2> %t.cache && %FileCheck %s < %t.cache
#include <stdlib.h>

#include "fd.h"

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

// CHECK-LABEL: cache of the gradient of 'lse'
// CHECK: %call{{.*}}recomputed, read back from a log
// CHECK-NOT: double, 8 bytes, per iteration
double lse(const double *x, int n) {
  double m = x[0];
  for (int i = 1; i < n; i++)
    m = x[i] > m ? x[i] : m;
  double s = 0;
  for (int i = 0; i < n; i++)
    s += exp(x[i] - m);
  return m + log(s);
}

// A rotation of (1, x[i], 2) by the angle |(x[i], a, 0)|, with the
// zero-angle branch of bundle adjustment (taken where x[i] == 0).
// CHECK-LABEL: cache of the gradient of 'rot'
// CHECK-NOT: double, 8 bytes, per iteration
// CHECK-LABEL: cache of the gradient of 'nested'
double rot(const double *x, int n) {
  double e = 0, a = 0.3;
  for (int i = 0; i < n; i++) {
    double r0 = x[i], r1 = a, sq = r0 * r0 + r1 * r1, o0, o1;
    if (sq != 0) {
      double t = sqrt(sq), c = cos(t), s = sin(t);
      o0 = c + r1 / t * s * 2 + r0 * (1 - c) * 0.1;
      o1 = x[i] * c - r0 / t * s * 2 + r1 * (1 - c) * 0.1;
    } else {
      o0 = 1 + r1 * 2;
      o1 = x[i] - r0 * 2;
    }
    e += o0 * o0 + o1 * o1 * o0;
  }
  return e;
}

// An inner loop entered once per outer iteration: its log is indexed by
// the iteration's index in the call.
double nested(const double *x, int n, int m) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double t = 0;
    for (int j = 0; j < m; j++)
      t += sin(x[i] * (0.1 * j + 1)) * x[(i + j) % n];
    s += t * t;
  }
  return s;
}

// A data-dependent exit: the trip count is unknown before the loop.
double until(const double *x, int n) {
  double s = 0;
  int i = 0;
  while (i < n && x[i] < 10) {
    s += exp(0.3 * x[i]) * cos(x[i]);
    i++;
  }
  return s * s;
}

#define CHECK(name, call, f_at, n, coords)                                     \
  do {                                                                         \
    double *x = malloc(sizeof(double) * (n)), *dx = calloc((n), 8);          \
    for (int i = 0; i < (n); i++)                                              \
      x[i] = ((i * 37) % 101) * 0.04 - 2 + (i == 3 ? 2 - 0.12 : 0);            \
    x[3] = 0; /* the zero-angle branch of rot */                             \
    call;                                                                      \
    for (int q = 0; q < (coords); q++) {                                       \
      int i = (int)(((long)q * 7919) % (n));                                   \
      double xi = x[i];                                                        \
      double fd = ZY_DIFF(t, xi, (x[i] = t, f_at));                            \
      x[i] = xi;                                                               \
      char what[64];                                                           \
      snprintf(what, sizeof what, "%s n=%d dx[%d]", name, (n), i);            \
      zy_check_close(what, dx[i], fd, 1e-7);                                   \
    }                                                                          \
    free(x);                                                                   \
    free(dx);                                                                  \
  } while (0)

int main(void) {
  static const int sizes[] = {40, 200000};
  for (int k = 0; k < 2; k++) {
    int n = sizes[k], c = k ? 6 : 40;
    CHECK("lse", __enzyme_autodiff((void *)lse, enzyme_dup, x, dx, n),
          lse(x, n), n, c);
    CHECK("rot", __enzyme_autodiff((void *)rot, enzyme_dup, x, dx, n),
          rot(x, n), n, c);
    CHECK("until", __enzyme_autodiff((void *)until, enzyme_dup, x, dx, n),
          until(x, n), n, c);
  }
  /* 6000 x 30 inner iterations: beyond 1 MiB of doubles in the call. */
  CHECK("nested",
        __enzyme_autodiff((void *)nested, enzyme_dup, x, dx, 6000, 30),
        nested(x, 6000, 30), 6000, 5);
  CHECK("nested",
        __enzyme_autodiff((void *)nested, enzyme_dup, x, dx, 40, 7),
        nested(x, 40, 7), 40, 40);
  return zy_report();
}
