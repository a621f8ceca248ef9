// Forward mode through memory: arrays passed with enzyme_dup (value then
// shadow) and enzyme_dupnoneed, outputs written through pointers, loops
// over arrays, a struct, heap memory (malloc/free, calloc, realloc) and
// local arrays, memcpy and memset, pointers stored in memory, a callee
// that writes through its pointer argument; tangents against central
// finite differences and closed forms; sincos, modf and frexp writing
// their results through pointers (the tangents go to the shadows).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
#define _GNU_SOURCE
#include "fd.h"

#include <string.h>

double __enzyme_fwddiff(void *, ...);
void __enzyme_fwddiff_void(void *, ...);
extern int enzyme_const, enzyme_dup, enzyme_dupnoneed;

#define N 6
#define NOINLINE __attribute__((noinline))

/* sum_i x_i^2 sin(x_{i+1}) over a loop */
double sumsq(const double *x, int n) {
  double s = 0;
  for (int i = 0; i + 1 < n; i++)
    s += x[i] * x[i] * sin(x[i + 1]);
  return s;
}

/* y_i = exp(x_i) * c + x_{i-1}; no result */
void map(double *y, const double *x, double c, int n) {
  for (int i = 0; i < n; i++)
    y[i] = exp(x[i]) * c + (i ? x[i - 1] : 0);
}

typedef struct {
  double a, b;
  int k;
  double *p;
} S;
double structs(S *s) { return s->a * s->b * s->k + s->p[0] * s->a; }

/* heap and stack scratch memory, memcpy, memset, realloc */
double scratch(const double *x, int n) {
  double *t = malloc(n * sizeof *t);
  double loc[N];
  memcpy(t, x, n * sizeof *t);
  memset(loc, 0, sizeof loc);
  for (int i = 0; i < n; i++)
    loc[i % N] += t[i] * t[i];
  t = realloc(t, 2 * n * sizeof *t);
  for (int i = 0; i < n; i++)
    t[n + i] = loc[i % N] * x[i];
  double *z = calloc(n, sizeof *z);
  for (int i = 0; i < 2 * n; i++)
    z[i % n] += sqrt(t[i] * t[i] + 1);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += z[i] * (i + 1);
  free(t);
  free(z);
  return s;
}

/* a table of pointers in memory: the shadow pointers go along */
double pointers(double *a, double *b) {
  double *tab[2] = {a, b};
  double s = 0;
  for (int i = 0; i < 2; i++)
    s += tab[i][0] * tab[1 - i][1];
  return s;
}

NOINLINE void scale(double *v, double f, int n) {
  for (int i = 0; i < n; i++)
    v[i] *= f;
}
double callee_writes(double *v, double f) {
  scale(v, f, N);
  scale(v, v[0], N);
  return v[1] + v[2] * v[3];
}

/* math functions writing results through pointers */
void writers(double x, double *s, double *c, double *ip, int *e, double *fr) {
  sincos(x, s, c);
  *fr = modf(x * 3, ip) + frexp(x, e);
}

static void fill(double *x, int n, double base) {
  for (int i = 0; i < n; i++)
    x[i] = base + 0.17 * i - 0.05 * i * i;
}

int main(void) {
  double x[N], dx[N], y[N], dy[N];
  char what[64];
  fill(x, N, 0.4);
  for (int k = 0; k < N; k++) {
    memset(dx, 0, sizeof dx);
    dx[k] = 1;
    double got = __enzyme_fwddiff((void *)sumsq, x, dx, N);
    double x0 = x[k];
    double want = ZY_DIFF(t, x0, (x[k] = t, sumsq(x, N)));
    x[k] = x0;
    snprintf(what, sizeof what, "sumsq d/dx%d", k);
    zy_check_close(what, got, want, 1e-8);
  }
  /* a random direction, and dupnoneed */
  for (int k = 0; k < N; k++)
    dx[k] = 0.3 * k - 0.7;
  double dir = __enzyme_fwddiff((void *)sumsq, enzyme_dupnoneed, x, dx, N);
  double fd = ZY_DIFF(t, 0, ({
                        double xt[N];
                        for (int k = 0; k < N; k++)
                          xt[k] = x[k] + t * dx[k];
                        sumsq(xt, N);
                      }));
  zy_check_close("sumsq along v (dupnoneed)", dir, fd, 1e-8);

  /* outputs through a pointer: dy = d(map)/dx . dx + d/dc * dc */
  for (int k = 0; k < N; k++)
    dy[k] = 99; /* overwritten: the tangent of what is stored */
  __enzyme_fwddiff_void((void *)map, enzyme_dup, y, dy, enzyme_dup, x, dx,
                        1.5, 0.25, N);
  for (int i = 0; i < N; i++) {
    double want = exp(x[i]) * dx[i] * 1.5 + exp(x[i]) * 0.25 +
                  (i ? dx[i - 1] : 0);
    snprintf(what, sizeof what, "map dy[%d]", i);
    zy_check_close(what, dy[i], want, 1e-12);
    snprintf(what, sizeof what, "map y[%d]", i);
    zy_check_close(what, y[i], exp(x[i]) * 1.5 + (i ? x[i - 1] : 0), 1e-15);
  }

  double p0 = 2.5, dp0 = 1;
  S s = {1.2, 0.8, 3, &p0}, ds = {0.5, -1, 77, &dp0};
  zy_check_close("struct", __enzyme_fwddiff((void *)structs, &s, &ds),
                 0.5 * 0.8 * 3 + 1.2 * -1 * 3 + 1 * 1.2 + 2.5 * 0.5, 1e-12);

  fd = ZY_DIFF(t, 0, ({
                 double xt[N];
                 for (int k = 0; k < N; k++)
                   xt[k] = x[k] + t * dx[k];
                 scratch(xt, N);
               }));
  zy_check_close("scratch along v", __enzyme_fwddiff((void *)scratch, x, dx, N),
                 fd, 1e-8);

  double a[2] = {1.5, -0.5}, da[2] = {1, 2}, b[2] = {0.25, 3}, db[2] = {-1, 0.5};
  /* a0 b1 + b0 a1 */
  zy_check_close("pointers", __enzyme_fwddiff((void *)pointers, a, da, b, db),
                 da[0] * b[1] + a[0] * db[1] + db[0] * a[1] + b[0] * da[1],
                 1e-12);

  double v[N], dv[N];
  fill(v, N, 0.9);
  for (int k = 0; k < N; k++)
    dv[k] = 0.1 * k;
  double v0[N];
  memcpy(v0, v, sizeof v);
  double got = __enzyme_fwddiff((void *)callee_writes, v, dv, 1.3, 0.5);
  fd = ZY_DIFF(t, 0, ({
                 double vt[N];
                 for (int k = 0; k < N; k++)
                   vt[k] = v0[k] + t * 0.1 * k;
                 callee_writes(vt, 1.3 + 0.5 * t);
               }));
  zy_check_close("callee writes", got, fd, 1e-8);
  double s0, ds0 = 5, c0, dc0 = 5, ip, dip = 5, fr, dfr = 5;
  int e;
  __enzyme_fwddiff_void((void *)writers, 0.7, 1.0, &s0, &ds0, &c0, &dc0, &ip,
                        &dip, enzyme_const, &e, &fr, &dfr);
  zy_check_close("sincos sin", ds0, cos(0.7), 1e-15);
  zy_check_close("sincos cos", dc0, -sin(0.7), 1e-15);
  zy_check_close("modf integral part", dip, 0, 0);
  /* frexp(0.7) = 0.7 * 2^0: dm/dx = 2^0 */
  zy_check_close("modf + frexp", dfr, 3 + 1, 1e-15);
  return zy_report();
}
