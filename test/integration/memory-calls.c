// Calls that receive pointers to memory with a shadow (split mode: an
// augmented forward call and a reverse call): helpers reading arrays,
// helpers updating memory in place (called twice on the same memory, so the
// reverse needs the values from before each call), helpers writing
// outputs, recursion over an array, heap memory allocated in the caller and
// filled by a helper, a constant pointer passed along, and pointers stored
// by a helper into the caller's memory.  The helpers are
// noinline so that the calls stay at every -O level.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-verify %s -lm -o %tv && %tv
// RUN: %valgrind %t0 > /dev/null
// RUN: %valgrind %t2 > /dev/null
#include "fd-memory.h"

#include <string.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

#define NOINLINE __attribute__((noinline))

NOINLINE double dot2(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1];
}

/* x[0] = x[0]^2 x[1] in place */
NOINLINE void square_in_place(double *x) { x[0] = x[0] * x[0] * x[1]; }

NOINLINE void axpy(double *y, double a, const double *x) {
  y[0] += a * x[0];
  y[1] += a * x[1];
}

/* sum of squares of x[0..n) by recursion */
NOINLINE double rsum(const double *x, int n) {
  if (n == 0)
    return 0;
  return x[0] * x[0] + rsum(x + 1, n - 1);
}

NOINLINE void fill(double *t, const double *x, const double *c) {
  t[0] = c[0] * sin(x[0]);
  t[1] = c[1] * x[0] * x[1];
}

/* pointers stored by callees into the caller's memory */
NOINLINE void set(double **slot, double *p) { *slot = p + 1; }

struct Box {
  double *p;
  double s;
};

NOINLINE void fill_box(struct Box *b, double *x) {
  b->p = x;
  b->s = x[0] * 2;
}

double via_slot(double *x) {
  double *q;
  set(&q, x);
  return q[0] * x[0];
}

double via_box(double *x) {
  struct Box b;
  fill_box(&b, x);
  return b.p[1] * b.s;
}

double uses_dot(const double *x, const double *y) {
  return dot2(x, y) * dot2(x, x);
}

/* the same memory updated by two calls, then read */
double twice(double *x) {
  square_in_place(x);
  square_in_place(x);
  return x[0] + x[1];
}

/* y = y + a x, then y is read; a is active */
double with_axpy(double *y, const double *x, double a) {
  axpy(y, a, x);
  axpy(y, a * a, y);
  return y[0] * y[1];
}

double recursive(const double *x) { return sqrt(rsum(x, 3)); }

/* heap memory from the caller, filled by a callee with a constant array */
double heap_fill(const double *x, const double *c) {
  double *t = malloc(2 * sizeof(double));
  fill(t, x, c);
  double r = t[0] * t[1] + t[1];
  free(t);
  return r;
}

int main(void) {
  double x[3] = {0.6, -1.1, 0.8}, y[2] = {1.4, 0.3};
  double dx[3], dy[2], fd[3], want[3];

  memset(dx, 0, sizeof dx);
  memset(dy, 0, sizeof dy);
  __enzyme_autodiff((void *)uses_dot, x, dx, y, dy);
  {
    double d = x[0] * y[0] + x[1] * y[1], n = x[0] * x[0] + x[1] * x[1];
    for (int k = 0; k < 2; k++)
      want[k] = y[k] * n + d * 2 * x[k];
    zy_check_array("uses_dot/dx", dx, want, 2, ZY_TOL);
    zy_check_close("uses_dot/dy[1]", dy[1], x[1] * n, ZY_TOL);
  }

  {
    /* x0 -> x0^2 x1 -> (x0^2 x1)^2 x1 = x0^4 x1^3 */
    double z[2] = {0.6, -1.1}, dz[2] = {1.0, 0.5};
    __enzyme_autodiff((void *)twice, z, dz);
    double x0 = 0.6, x1 = -1.1;
    /* objective: r + seed . z_after = 2 x0^4 x1^3 + 1.5 x1 */
    zy_check_close("twice primal", z[0], pow(x0, 4) * pow(x1, 3), ZY_TOL);
    zy_check_close("twice/dx[0]", dz[0], 2 * 4 * pow(x0, 3) * pow(x1, 3),
                   ZY_TOL);
    zy_check_close("twice/dx[1]", dz[1], 2 * 3 * pow(x0, 4) * x1 * x1 + 1.5,
                   ZY_TOL);
  }

  {
    double yy[2] = {1.4, 0.3}, dyy[2] = {0}, dxx[2] = {0}, a = 0.7;
    double da = __enzyme_autodiff((void *)with_axpy, yy, dyy, x, dxx, a);
    double y0[2] = {1.4, 0.3};
    double ys[2] = {1.4, 0.3};
    zy_check_close("with_axpy/da (finite diff)", da,
                   ZY_DIFF(t, a, ({
                             memcpy(ys, y0, sizeof ys);
                             with_axpy(ys, x, t);
                           })),
                   ZY_FD_TOL);
    for (int k = 0; k < 2; k++) {
      fd[k] = ZY_DIFF_AT(x, k, ({
                           memcpy(ys, y0, sizeof ys);
                           with_axpy(ys, x, a);
                         }));
    }
    zy_check_array("with_axpy/dx (finite diff)", dxx, fd, 2, ZY_FD_TOL);
    for (int k = 0; k < 2; k++) {
      fd[k] = ZY_DIFF_AT(y0, k, ({
                           memcpy(ys, y0, sizeof ys);
                           with_axpy(ys, x, a);
                         }));
    }
    zy_check_array("with_axpy/dy (finite diff)", dyy, fd, 2, ZY_FD_TOL);
  }

  {
    memset(dx, 0, sizeof dx);
    __enzyme_autodiff((void *)recursive, x, dx);
    double n = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    for (int k = 0; k < 3; k++)
      want[k] = x[k] / n;
    zy_check_array("recursive/dx", dx, want, 3, ZY_TOL);
  }

  {
    double c[2] = {2.0, -0.5};
    memset(dx, 0, sizeof dx);
    __enzyme_autodiff((void *)heap_fill, x, dx, enzyme_const, c);
    for (int k = 0; k < 2; k++)
      fd[k] = ZY_DIFF_AT(x, k, heap_fill(x, c));
    zy_check_array("heap_fill/dx (finite diff)", dx, fd, 2, ZY_FD_TOL);
    zy_check_close("heap_fill const memory unchanged", c[1], -0.5, 0);
  }
  {
    double z[2] = {1.5, 0.5}, dz[2] = {0};
    __enzyme_autodiff((void *)via_slot, z, dz);
    zy_check_close("via_slot/dx[0]", dz[0], z[1], ZY_TOL);
    zy_check_close("via_slot/dx[1]", dz[1], z[0], ZY_TOL);
    dz[0] = dz[1] = 0;
    __enzyme_autodiff((void *)via_box, z, dz);
    zy_check_close("via_box/dx[0]", dz[0], 2 * z[1], ZY_TOL);
    zy_check_close("via_box/dx[1]", dz[1], 2 * z[0], ZY_TOL);
  }
  return zy_report();
}
