// Calls to functions that return a pointer whose shadow the caller needs:
// an argument itself (`return x;`, which crashed clang at -O0: the
// augmented function returned the deleted combined function's parameter),
// a table of pointers, an offset into the argument, a fresh array filled
// from active scalars, and __enzyme_autodiff of a function that returns a
// pointer (the returned pointer carries no derivative back: as in Enzyme's
// combined mode, only the dup memory and active scalars do).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %valgrind %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %valgrind %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
#include "fd.h"

double __enzyme_autodiff(void *, ...);
typedef struct { double da, db; } G2;
G2 __enzyme_autodiff2(void *, ...);

/* Enzyme's differential_pointer_return: the callee returns its argument. */
__attribute__((noinline)) static double *scale(double *x, double by) {
  *x = *x * by;
  return x;
}
static double chain(double *x) {
  double p = x[0] * x[0];
  double *y = scale(x, p);
  return *y * sin(x[1]);
}

__attribute__((noinline)) static double **table(double **t) { return t; }
static double through_table(double *x) {
  double *rows[2] = {x, x + 1};
  double **q = table(rows);
  return q[1][0] * q[0][0] * q[0][0];
}

__attribute__((noinline)) static double *pick(double *a, int i) {
  return a + i;
}
static double picked(double *x) {
  double *p = pick(x, 1);
  return *p * *p + x[0] * *pick(x, 2);
}

__attribute__((noinline)) static double *fill(double a, double b) {
  double *t = malloc(3 * sizeof(double));
  t[0] = a * b;
  t[1] = sin(a);
  t[2] = exp(b);
  return t;
}
static double filled(double a, double b) {
  double *t = fill(a, b);
  double r = t[0] * t[1] + t[2];
  free(t);
  return r;
}

/* The entry point's function itself returns a pointer. */
static double *square_second(double *x) {
  x[1] = x[1] * x[0];
  return x + 1;
}

static double chain_v(double x0, double x1) {
  double x[2] = {x0, x1};
  return chain(x);
}
static double table_v(double x0, double x1) {
  double x[2] = {x0, x1};
  return through_table(x);
}
static double picked_v(double x0, double x1, double x2) {
  double x[3] = {x0, x1, x2};
  return picked(x);
}

int main(void) {
  double x[3] = {1.25, 0.5, -0.75}, dx[3] = {0};
  __enzyme_autodiff((void *)chain, x, dx);
  x[0] = 1.25; /* chain overwrote it */
  ZY_CHECK2("chain/dx0", dx[0], 3 * x[0] * x[0] * sin(x[1]),
            ZY_DIFF(t, x[0], chain_v(t, x[1])));
  ZY_CHECK2("chain/dx1", dx[1], x[0] * x[0] * x[0] * cos(x[1]),
            ZY_DIFF(t, x[1], chain_v(x[0], t)));

  dx[0] = dx[1] = 0;
  __enzyme_autodiff((void *)through_table, x, dx);
  ZY_CHECK2("table/dx0", dx[0], 2 * x[0] * x[1],
            ZY_DIFF(t, x[0], table_v(t, x[1])));
  ZY_CHECK2("table/dx1", dx[1], x[0] * x[0],
            ZY_DIFF(t, x[1], table_v(x[0], t)));

  dx[0] = dx[1] = dx[2] = 0;
  __enzyme_autodiff((void *)picked, x, dx);
  ZY_CHECK2("pick/dx0", dx[0], x[2], ZY_DIFF(t, x[0], picked_v(t, x[1], x[2])));
  ZY_CHECK2("pick/dx1", dx[1], 2 * x[1],
            ZY_DIFF(t, x[1], picked_v(x[0], t, x[2])));
  ZY_CHECK2("pick/dx2", dx[2], x[0], ZY_DIFF(t, x[2], picked_v(x[0], x[1], t)));

  double a = 0.7, b = -0.4;
  G2 g = __enzyme_autodiff2((void *)filled, a, b);
  ZY_CHECK2("fill/da", g.da, b * sin(a) + a * b * cos(a),
            ZY_DIFF(t, a, filled(t, b)));
  ZY_CHECK2("fill/db", g.db, a * sin(a) + exp(b), ZY_DIFF(t, b, filled(a, t)));

  /* x1 <- x1 * x0 with the seed 1 in dx[1]: dx0 = x1, dx1 = x0. */
  double y[2] = {1.5, -2.0}, dy[2] = {0, 1};
  __enzyme_autodiff((void *)square_second, y, dy);
  zy_check_close("returns-pointer/dx0", dy[0], -2.0, 0);
  zy_check_close("returns-pointer/dx1", dy[1], 1.5, 0);
  return zy_report();
}
