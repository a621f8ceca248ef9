// A loop whose bound is read through a pointer and whose body calls math
// functions (exp, sin, cos): under -fmath-errno those calls write errno,
// an int, so LLVM reloads an int bound (d->n) after each of them and the
// trip count was unknown: the cache of each iteration grew geometrically.
// The pre-AD copy takes the math calls as not touching memory (their
// errno does not matter to AD), the bound moves out of the loop, and the
// buffers are reserved from the trip count.  Gradients against closed
// forms and central finite differences at -O0 to -O3; errno as the
// program sets it is left alone by the gradient's own math.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// The math calls are cached here (-zymase-math-log-mb=0); by default they
// are recomputed, and their log grows the same way.
// RUN: %clang -O2 -fno-discard-value-names -Xclang -load -Xclang %plugin -mllvm -zymase-math-log-mb=0 -mllvm -zymase-print-cache -c %s -o /dev/null 2> %t.cache && %FileCheck %s < %t.cache
#include <errno.h>

#include "fd.h"

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

typedef struct Data {
  int n;
  double scale;
} Data;

// CHECK-LABEL: cache of the gradient of 'lse'
// CHECK-NOT: grown geometrically
// CHECK: call: double, 8 bytes, per iteration{{.*}}reserved from the trip count
// CHECK-NOT: grown geometrically
double lse(const double *x, const Data *d) {
  double s = 0;
  for (int i = 0; i < d->n; i++)
    s += exp(d->scale * x[i]);
  return log(s);
}

// Two math calls of one angle per iteration, as bundle adjustment's
// rotation does.
// CHECK-LABEL: cache of the gradient of 'rot'
// CHECK-NOT: grown geometrically
// CHECK: per iteration{{.*}}reserved from the trip count
// CHECK-NOT: grown geometrically
double rot(const double *x, const Data *d) {
  double e = 0;
  for (int i = 0; i < d->n; i++) {
    double t = sqrt(x[i] * x[i] + 1);
    double c = cos(t), s = sin(t);
    e += (c * x[i] + s) * (c * x[i] + s);
  }
  return e;
}

#define N 7

#define CHECK(name, f, d, closed)                                              \
  do {                                                                         \
    double x[N], dx[N] = {0};                                                  \
    for (int i = 0; i < N; i++)                                                \
      x[i] = 0.3 * i - 0.8;                                                    \
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, d);          \
    for (int i = 0; i < N; i++) {                                              \
      double xi = x[i];                                                        \
      double fd = ZY_DIFF(t, xi, (x[i] = t, f(x, d)));                         \
      x[i] = xi;                                                               \
      char what[64];                                                           \
      snprintf(what, sizeof what, "%s dx[%d] (finite diff)", name, i);         \
      zy_check_close(what, dx[i], fd, ZY_FD_TOL);                              \
      if (closed) {                                                            \
        snprintf(what, sizeof what, "%s dx[%d] (closed form)", name, i);       \
        zy_check_close(what, dx[i], ((const double *)closed)[i], ZY_TOL);      \
      }                                                                        \
    }                                                                          \
  } while (0)

int main(void) {
  Data d = {N, 0.7};
  double x[N], g[N], s = 0;
  for (int i = 0; i < N; i++)
    s += exp(d.scale * (x[i] = 0.3 * i - 0.8));
  for (int i = 0; i < N; i++)
    g[i] = d.scale * exp(d.scale * x[i]) / s;
  errno = 0;
  CHECK("lse", lse, &d, g);
  zy_check_close("errno left alone", errno, 0, 0);
  CHECK("rot", rot, &d, NULL);
  return zy_report();
}
