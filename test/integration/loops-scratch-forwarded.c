// A scratch array filled element by element by one loop and read by later
// loops of the same outer iteration (GMM's xc[i] = x[i] - mu[i], read by
// the q = diag * xc loop and the triangular loop): the pre-AD copy reads
// the stored value computed again (x[i] - mu[i]) instead of the array, so
// the reverse sweep computes it again instead of caching every reading
// loop's loads.  Cases where that would read the wrong value are left as
// they are: the array written in between, read at another offset or
// beyond what was written, filled conditionally, or filled from memory
// that changes in between.  Every gradient against central finite
// differences at -O0 to -O3; the cache report shows what is no longer
// cached.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O2 -fno-discard-value-names -Xclang -load -Xclang %plugin -mllvm -zymase-print-cache -c %s -o /dev/null 2> %t.cache && %FileCheck %s < %t.cache
#include <stdlib.h>

#include "fd.h"

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

#define D 5  /* dimensions */
#define K 3  /* components */
#define NP 4 /* points */
#define NX (2 * K * D + K * D * (D - 1) / 2)

static double pts[NP * D];

// As GMM: per point and component, xc = x - mu, q = diag * xc, q[j] +=
// lt * xc[i] over the strict lower triangle, loss sum of |q|^2.  Only the
// loads of q in the last loop stay cached.
// CHECK-LABEL: cache of the gradient of 'gmm_like'
// CHECK: load{{.*}}per iteration
// CHECK-NOT: load{{.*}}per iteration
double gmm_like(const double *p, const double *x, int d) {
  const double *mu = p, *diag = p + K * d, *lt = p + 2 * K * d;
  double *xc = malloc(sizeof(double) * d), *q = malloc(sizeof(double) * d);
  double s = 0;
  for (int n = 0; n < NP; n++)
    for (int k = 0; k < K; k++) {
      for (int i = 0; i < d; i++)
        xc[i] = x[n * d + i] - mu[k * d + i];
      for (int i = 0; i < d; i++)
        q[i] = diag[k * d + i] * xc[i];
      int li = 0;
      for (int i = 0; i < d; i++)
        for (int j = i + 1; j < d; j++)
          q[j] += lt[k * d * (d - 1) / 2 + li++] * xc[i];
      for (int i = 0; i < d; i++)
        s += q[i] * q[i];
    }
  free(xc);
  free(q);
  return s;
}

// xc[0] is doubled between the filling loop and the reading one.
// CHECK-LABEL: cache of the gradient of 'written_between'
double written_between(const double *p, const double *x, int d) {
  double *xc = malloc(sizeof(double) * d);
  double s = 0;
  for (int n = 0; n < NP; n++) {
    for (int i = 0; i < d; i++)
      xc[i] = x[n * d + i] * p[i];
    xc[n % d] *= 2;
    for (int i = 0; i < d; i++)
      s += xc[i] * xc[i] * p[d + i];
  }
  free(xc);
  return s;
}

// The reading loop reads one element further (xc[i + 1]), and runs to an
// element the filling loop did not write in this outer iteration (it
// holds the previous one's value).
double shifted(const double *p, const double *x, int d) {
  double *xc = calloc(d + 1, sizeof(double));
  double s = 0;
  for (int n = 0; n < NP; n++) {
    int m = d - (n & 1);
    for (int i = 0; i < m; i++)
      xc[i + (n & 1)] = x[n * d + i] * p[i];
    for (int i = 0; i < d; i++)
      s += xc[i + 1] * xc[i + 1] * p[d + i];
  }
  free(xc);
  return s;
}

// Reads more elements than were written: the rest are from the previous
// outer iteration.
double reads_beyond(const double *p, const double *x, int d, int m) {
  double *xc = calloc(d, sizeof(double));
  double s = 0;
  for (int n = 0; n < NP; n++) {
    int w = n % 2 ? m : d;
    for (int i = 0; i < w; i++)
      xc[i] = x[n * d + i] * p[i];
    for (int i = 0; i < d; i++)
      s += xc[i] * xc[i] * p[d + i];
  }
  free(xc);
  return s;
}

// Filled only where x > 0 (the others keep older values).
double conditional(const double *p, const double *x, int d) {
  double *xc = calloc(d, sizeof(double));
  double s = 0;
  for (int n = 0; n < NP; n++) {
    for (int i = 0; i < d; i++)
      if (x[n * d + i] > 0)
        xc[i] = x[n * d + i] * p[i];
    for (int i = 0; i < d; i++)
      s += xc[i] * xc[i] * p[d + i];
  }
  free(xc);
  return s;
}

// Filled from y, which changes between the filling and the reading loop.
double source_changes(const double *p, const double *x, int d) {
  double *xc = malloc(sizeof(double) * d), *y = malloc(sizeof(double) * d);
  double s = 0;
  for (int i = 0; i < d; i++)
    y[i] = 1.5 * p[i];
  for (int n = 0; n < NP; n++) {
    for (int i = 0; i < d; i++)
      xc[i] = y[i] * x[n * d + i];
    for (int i = 0; i < d; i++)
      y[i] = y[i] * 0.5 + p[d + i];
    for (int i = 0; i < d; i++)
      s += xc[i] * xc[i] * y[i];
  }
  free(xc);
  free(y);
  return s;
}

// Filled from an affine function of the index (x[2i + 1] * i): forwarded.
// CHECK-LABEL: cache of the gradient of 'strided_source'
// CHECK-NOT: load{{.*}}per iteration
double strided_source(const double *p, const double *x, int d) {
  double *xc = malloc(sizeof(double) * d);
  double s = 0;
  for (int n = 0; n < NP; n++) {
    for (int i = 0; i < d; i++)
      xc[i] = (x[(2 * i + n) % (NP * d)] + 0.5 * i) * p[n + i];
    for (int i = 0; i < d; i++)
      s += xc[i] * p[d + i];
    for (int i = 0; i < d; i++)
      s += xc[i] * xc[i] * xc[i];
  }
  free(xc);
  return s;
}

#define CHECK(name, call, f_at)                                                \
  do {                                                                         \
    double p[NX], dp[NX] = {0};                                                \
    for (int i = 0; i < NX; i++)                                               \
      p[i] = 0.3 + 0.1 * ((i * 7) % 11) - 0.45;                                \
    call;                                                                      \
    for (int i = 0; i < NX; i++) {                                             \
      double pi = p[i];                                                        \
      double fd = ZY_DIFF(t, pi, (p[i] = t, f_at));                            \
      p[i] = pi;                                                               \
      char what[64];                                                           \
      snprintf(what, sizeof what, "%s dp[%d]", name, i);                       \
      zy_check_close(what, dp[i], fd, ZY_FD_TOL);                              \
    }                                                                          \
  } while (0)

int main(void) {
  for (int i = 0; i < NP * D; i++)
    pts[i] = 0.2 * ((i * 5) % 9) - 0.7;
  CHECK("gmm_like",
        __enzyme_autodiff((void *)gmm_like, enzyme_dup, p, dp, enzyme_const,
                          pts, enzyme_const, D),
        gmm_like(p, pts, D));
  CHECK("written_between",
        __enzyme_autodiff((void *)written_between, enzyme_dup, p, dp,
                          enzyme_const, pts, enzyme_const, D),
        written_between(p, pts, D));
  CHECK("shifted",
        __enzyme_autodiff((void *)shifted, enzyme_dup, p, dp, enzyme_const,
                          pts, enzyme_const, D),
        shifted(p, pts, D));
  CHECK("reads_beyond",
        __enzyme_autodiff((void *)reads_beyond, enzyme_dup, p, dp,
                          enzyme_const, pts, enzyme_const, D, enzyme_const, D - 2),
        reads_beyond(p, pts, D, D - 2));
  CHECK("conditional",
        __enzyme_autodiff((void *)conditional, enzyme_dup, p, dp, enzyme_const,
                          pts, enzyme_const, D),
        conditional(p, pts, D));
  CHECK("source_changes",
        __enzyme_autodiff((void *)source_changes, enzyme_dup, p, dp,
                          enzyme_const, pts, enzyme_const, D),
        source_changes(p, pts, D));
  CHECK("strided_source",
        __enzyme_autodiff((void *)strided_source, enzyme_dup, p, dp,
                          enzyme_const, pts, enzyme_const, D),
        strided_source(p, pts, D));
  return zy_report();
}
