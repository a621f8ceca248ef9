// A running maximum or minimum (m = x[i] > m ? x[i] : m) whose final
// value only is used: the pre-AD copy records the iteration of the last
// replacement and reads the replacing value again there after the loop,
// so the running value is only compared, carries no derivative, and the
// reverse sweep keeps no condition per iteration (the derivative goes to
// that element alone).  Forms: > and >= (ties: first or last winner),
// min, the select written the other way round, a computed value
// (w[i] * x[i]), no replacement at all (m stays x[0]), a maximum per row
// of a matrix (an inner loop), and a running value also used inside the
// loop (left as it is).  Gradients against closed forms (one-hot) and
// central finite differences, at -O0 to -O3; the cache report shows no
// condition cached per iteration.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O2 -fno-discard-value-names -Xclang -load -Xclang %plugin -mllvm -zymase-print-cache -c %s -o /dev/null 2> %t.cache && %FileCheck %s < %t.cache
#include "fd.h"

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

// CHECK-LABEL: cache of the gradient of 'max_gt'
// CHECK-NOT: i1, 1 bytes, per iteration
// CHECK-LABEL: cache of the gradient of 'max_ge'
// CHECK-NOT: i1, 1 bytes, per iteration
// CHECK-LABEL: cache of the gradient of 'min_other_way'
// CHECK-NOT: i1, 1 bytes, per iteration
// CHECK-LABEL: cache of the gradient of 'max_weighted'
// CHECK-NOT: i1, 1 bytes, per iteration
// CHECK-LABEL: cache of the gradient of 'row_max'
// CHECK-NOT: i1, 1 bytes, per iteration
// CHECK-LABEL: cache of the gradient of 'used_inside'
double max_gt(const double *x, int n) {
  double m = x[0];
  for (int i = 1; i < n; i++)
    m = x[i] > m ? x[i] : m;
  return m * m + sin(m);
}
double max_ge(const double *x, int n) {
  double m = x[0];
  for (int i = 1; i < n; i++)
    m = x[i] >= m ? x[i] : m;
  return exp(m);
}
double min_other_way(const double *x, int n) {
  double m = x[0];
  for (int i = 1; i < n; i++)
    m = x[i] >= m ? m : x[i];
  return m * 3 + m * m;
}
static const double w[8] = {1.5, -0.5, 2, 0.25, -1, 3, 0.5, -2};
double max_weighted(const double *x, int n) {
  double m = -1e300;
  for (int i = 0; i < n; i++)
    m = w[i % 8] * x[i] > m ? w[i % 8] * x[i] : m;
  return m * m;
}
// The maximum of each row of a 4 x (n/4) matrix, summed with weights.
double row_max(const double *x, int n) {
  int c = n / 4;
  double s = 0;
  for (int r = 0; r < 4; r++) {
    double m = x[r * c];
    for (int j = 1; j < c; j++)
      if (x[r * c + j] > m)
        m = x[r * c + j];
    s += (r + 1) * m;
  }
  return s;
}
// The running maximum is also summed: every intermediate value matters.
double used_inside(const double *x, int n) {
  double m = x[0], s = 0;
  for (int i = 1; i < n; i++) {
    m = x[i] > m ? x[i] : m;
    s += m;
  }
  return s * m;
}

static int arg(const double *v, int n, int ge, int sign) {
  int k = 0;
  for (int i = 1; i < n; i++)
    if (ge ? sign * v[i] >= sign * v[k] : sign * v[i] > sign * v[k])
      k = i;
  return k;
}

#define N 24
#define GRAD(f, x, dx, n)                                                      \
  do {                                                                         \
    for (int i = 0; i < (n); i++)                                              \
      dx[i] = 0;                                                               \
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);         \
  } while (0)
#define FD(f, x, dx, n, what)                                                  \
  for (int i = 0; i < (n); i++) {                                              \
    double xi = x[i];                                                          \
    double fd = ZY_DIFF(t, xi, (x[i] = t, f(x, n)));                           \
    x[i] = xi;                                                                 \
    char s[64];                                                                \
    snprintf(s, sizeof s, "%s dx[%d] (finite diff)", what, i);                \
    zy_check_close(s, dx[i], fd, ZY_FD_TOL);                                   \
  }

int main(void) {
  double x[N], dx[N], want[N];
  for (int i = 0; i < N; i++)
    x[i] = sin(1.7 * i + 0.3) * (1 + 0.1 * i); /* distinct values */
  GRAD(max_gt, x, dx, N);
  int k = arg(x, N, 0, 1);
  for (int i = 0; i < N; i++)
    zy_check_close("max_gt (closed form)", dx[i],
                   i == k ? 2 * x[k] + cos(x[k]) : 0, ZY_TOL);
  FD(max_gt, x, dx, N, "max_gt");
  GRAD(max_ge, x, dx, N);
  FD(max_ge, x, dx, N, "max_ge");
  GRAD(min_other_way, x, dx, N);
  FD(min_other_way, x, dx, N, "min_other_way");
  GRAD(max_weighted, x, dx, N);
  FD(max_weighted, x, dx, N, "max_weighted");
  GRAD(row_max, x, dx, N);
  FD(row_max, x, dx, N, "row_max");
  GRAD(used_inside, x, dx, N);
  FD(used_inside, x, dx, N, "used_inside");

  /* Ties: > keeps the first of three equal maxima, >= the last; min. */
  double t[N];
  for (int i = 0; i < N; i++)
    t[i] = 0.1 * (i % 5);
  t[6] = t[13] = t[20] = 2.5;
  t[3] = t[9] = t[17] = -1.5;
  GRAD(max_gt, t, dx, N);
  for (int i = 0; i < N; i++)
    want[i] = i == arg(t, N, 0, 1) ? 2 * 2.5 + cos(2.5) : 0;
  for (int i = 0; i < N; i++)
    zy_check_close("max_gt tie: the first", dx[i], want[i], ZY_TOL);
  GRAD(max_ge, t, dx, N);
  for (int i = 0; i < N; i++)
    zy_check_close("max_ge tie: the last", dx[i],
                   i == arg(t, N, 1, 1) ? exp(2.5) : 0, ZY_TOL);
  GRAD(min_other_way, t, dx, N);
  for (int i = 0; i < N; i++)
    zy_check_close("min tie: the first", dx[i],
                   i == arg(t, N, 0, -1) ? 3 + 2 * -1.5 : 0, ZY_TOL);

  /* No replacement: x[0] is the largest. */
  double d[N];
  for (int i = 0; i < N; i++)
    d[i] = 5 - 0.1 * i;
  GRAD(max_gt, d, dx, N);
  for (int i = 0; i < N; i++)
    zy_check_close("max_gt without replacement", dx[i],
                   i == 0 ? 10 + cos(5.0) : 0, ZY_TOL);
  /* One element: the loop does not run. */
  GRAD(max_gt, d, dx, 1);
  zy_check_close("max_gt of one", dx[0], 10 + cos(5.0), ZY_TOL);
  return zy_report();
}
