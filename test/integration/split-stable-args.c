// Calls differentiated in split mode (an augmented forward now, the
// reverse later) whose pointer arguments nothing writes in between: the
// callee's reverse loads from them again instead of caching every load
// (ZySig.stable_args).  A pointer is stable when it is based on an
// argument of the gradient (the user's memory, which does not change
// during it) or on an argument its own caller declared stable, and nothing
// of the caller that runs after the call writes it.  Cases where the
// memory does change stay cached: written by the caller after the call,
// in a later iteration of the loop around the call, by a caller higher
// up, or by the callee itself after reading it.  Every gradient against
// central finite differences at -O0 and -O2; the cache report shows which
// callees load again.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %clang -O2 -fno-discard-value-names -Xclang -load -Xclang %plugin -mllvm -zymase-print-cache -c %s -o /dev/null 2> %t.cache && %FileCheck %s < %t.cache
#include <stdlib.h>

#include "fd.h"

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

#define N 6
#define NOINLINE __attribute__((noinline))

static double scratch[N];

// s = sum a[i]^3: the reverse needs every a[i].
#define CUBES(a, n)                                                            \
  double s = 0;                                                                \
  for (int i = 0; i < (n); i++)                                                \
    s += (a)[i] * (a)[i] * (a)[i];                                             \
  return s

// Called on the gradient's own argument, nothing written after: the
// loads are made again in the reverse.
// CHECK-LABEL: cache of the gradient of 'cubes_stable' (split mode)
// CHECK-NOT: load{{.*}}per iteration
// CHECK: load: double, 8 bytes, recomputed
NOINLINE double cubes_stable(const double *a, int n) { CUBES(a, n); }

double f_stable(const double *p) {
  return cubes_stable(p, N) + 2 * cubes_stable(p + 1, N - 2);
}

// The caller overwrites w[0] after the first call, not after the second:
// two gradients of the callee, in the order the forward sweep makes them.
// CHECK-LABEL: cache of the gradient of 'cubes_written' (split mode)
// CHECK: load: double, 8 bytes, per iteration
// CHECK-LABEL: cache of the gradient of 'cubes_written' (split mode)
// CHECK-NOT: load{{.*}}per iteration
// CHECK: load: double, 8 bytes, recomputed
NOINLINE double cubes_written(const double *a, int n) { CUBES(a, n); }

double f_written(const double *p, double *w) {
  for (int i = 0; i < N; i++)
    w[i] = p[i] * p[i];
  double s = cubes_written(w, N);
  w[0] = 3 * w[0] + w[1];
  return s + cubes_written(w, N);
}

// The call in a loop whose later iterations write what it read.
// CHECK-LABEL: cache of the gradient of 'cubes_loop' (split mode)
// CHECK: load: double, 8 bytes, per iteration
NOINLINE double cubes_loop(const double *a, int n) { CUBES(a, n); }

double f_loop(const double *p, double *w) {
  double s = 0;
  for (int i = 0; i < N; i++)
    w[i] = p[i];
  for (int k = 0; k < 3; k++) {
    s += (k + 1) * cubes_loop(w, N);
    w[k + 1] = w[k + 1] * w[k];
  }
  return s;
}

// Two levels: outer passes its own (stable) argument down.
// CHECK-LABEL: cache of the gradient of 'cubes_inner' (split mode)
// CHECK-NOT: load{{.*}}per iteration
// CHECK: load: double, 8 bytes, recomputed
NOINLINE double cubes_inner(const double *a, int n) { CUBES(a, n); }

NOINLINE double outer(const double *a, int n) {
  return cubes_inner(a, n) + a[0] * cubes_inner(a + 1, n - 1);
}

double f_chain(const double *p) { return outer(p, N); }

// Two levels, the top one writing after the first call: the inner
// callee of that call may not load again, although its own caller writes
// nothing after it.
// CHECK-LABEL: cache of the gradient of 'cubes_deep' (split mode)
// CHECK: load: double, 8 bytes, per iteration
NOINLINE double cubes_deep(const double *a, int n) { CUBES(a, n); }

NOINLINE double outer_deep(const double *a, int n) {
  return 0.5 * cubes_deep(a, n);
}

double f_chain_written(const double *p, double *w) {
  for (int i = 0; i < N; i++)
    w[i] = p[i] + 1;
  double s = outer_deep(w, N);
  w[2] = w[2] * w[3];
  return s + w[2] * w[2];
}

// The callee overwrites what it read: its own writes count too.
// CHECK-LABEL: cache of the gradient of 'cubes_self' (split mode)
// CHECK: load: double, 8 bytes, per iteration
NOINLINE double cubes_self(double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * a[i] * a[i];
  for (int i = 0; i < n; i++)
    a[i] = 2 * a[i];
  return s;
}

double f_self(const double *p, double *w) {
  for (int i = 0; i < N; i++)
    w[i] = p[i];
  double s = cubes_self(w, N);
  return s + cubes_self(w, N);
}

// A recursive determinant by minors (the DET benchmark's form): each call
// is split, the matrix is the gradient's argument all the way down.
// CHECK-LABEL: cache of the gradient of 'minor' (split mode)
// CHECK-NOT: load{{.*}}per iteration
// CHECK: load: double, 8 bytes, recomputed
NOINLINE double minor(const double *a, int n, int row, unsigned used) {
  if (row == n - 1) {
    int c = 0;
    while (used >> c & 1)
      c++;
    return a[row * n + c];
  }
  double s = 0, sign = 1;
  for (int c = 0; c < n; c++)
    if (!(used >> c & 1)) {
      s += sign * a[row * n + c] * minor(a, n, row + 1, used | 1u << c);
      sign = -sign;
    }
  return s;
}

double f_det(const double *p) { return minor(p, 3, 0, 0) * p[N - 1]; }

#define CHECK(name, call, f_at)                                                \
  do {                                                                         \
    double p[N + 3], dp[N + 3] = {0}, dw[N] = {0};                             \
    for (int i = 0; i < N + 3; i++)                                            \
      p[i] = 0.4 + 0.15 * ((i * 5) % 7) - 0.3 * (i % 2);                       \
    (void)dw;                                                                  \
    call;                                                                      \
    for (int i = 0; i < N + 3; i++) {                                          \
      double pi = p[i];                                                        \
      double fd = ZY_DIFF(t, pi, (p[i] = t, f_at));                            \
      p[i] = pi;                                                               \
      char what[64];                                                           \
      snprintf(what, sizeof what, "%s dp[%d]", name, i);                       \
      zy_check_close(what, dp[i], fd, ZY_FD_TOL);                              \
    }                                                                          \
  } while (0)

int main(void) {
  CHECK("stable", __enzyme_autodiff((void *)f_stable, enzyme_dup, p, dp),
        f_stable(p));
  CHECK("written",
        __enzyme_autodiff((void *)f_written, enzyme_dup, p, dp, enzyme_dup,
                          scratch, dw),
        f_written(p, scratch));
  CHECK("loop",
        __enzyme_autodiff((void *)f_loop, enzyme_dup, p, dp, enzyme_dup,
                          scratch, dw),
        f_loop(p, scratch));
  CHECK("chain", __enzyme_autodiff((void *)f_chain, enzyme_dup, p, dp),
        f_chain(p));
  CHECK("chain_written",
        __enzyme_autodiff((void *)f_chain_written, enzyme_dup, p, dp,
                          enzyme_dup, scratch, dw),
        f_chain_written(p, scratch));
  CHECK("self",
        __enzyme_autodiff((void *)f_self, enzyme_dup, p, dp, enzyme_dup,
                          scratch, dw),
        f_self(p, scratch));
  CHECK("det", __enzyme_autodiff((void *)f_det, enzyme_dup, p, dp),
        f_det(p));
  return zy_report();
}
