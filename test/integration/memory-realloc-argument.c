// realloc of memory the caller allocated (a pointer argument with a
// shadow): the shadow follows the primal (a new shadow with the old one's
// contents, zero beyond, stored where the caller's shadow pointer is), so
// after the call the caller finds the gradients of the kept elements, and
// the seeds it placed, in the new shadow; the old shadow is freed like the
// old primal block.  Growing, shrinking, seeds of an output buffer, and a
// callee (split mode); a shadow larger than the primal block whose bytes
// past it hold other data (the old size is the primal block's usable size,
// not the shadow's: before, those bytes were taken as the shadow of the new
// elements, and append's dx0 was 1001 instead of 1, db0 502.5 instead of
// 2.5); the way out of the error for realloc in a loop (realloc once, to
// the final size, before the loop); a realloc under a branch, taken or not
// (before, the end of the reverse sweep moved and freed shadows of a realloc
// that had not run: a crash); under valgrind (no leak, no invalid access).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %valgrind %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %valgrind %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
#include "fd.h"
#include <stdlib.h>

double __enzyme_autodiff(void *, ...);
int enzyme_const;

/* Appends x0 x1 to a buffer of n doubles; returns sum b_i^2 + b0 b1 with
 * b0 b1 read before the realloc. */
double append(double **buf, const double *x, int n) {
  double *b = *buf;
  double early = b[0] * b[1];
  double *t = realloc(b, (n + 1) * sizeof(double));
  t[n] = x[0] * x[1];
  double s = early;
  for (int i = 0; i <= n; i++)
    s += t[i] * t[i];
  *buf = t;
  return s;
}

/* Shrinks to n - 1 elements after reading the last one. */
double shrink(double **buf, int n) {
  double *b = *buf;
  double last = b[n - 1];
  b = realloc(b, (n - 1) * sizeof(double));
  *buf = b;
  return last * b[0] * b[n - 2];
}

/* An output buffer: scaled by x and grown by one element. */
void scale_grow(double **buf, const double *x, int n) {
  double *t = realloc(*buf, (n + 1) * sizeof(double));
  for (int i = 0; i < n; i++)
    t[i] *= x[0];
  t[n] = x[0];
  *buf = t;
}

/* A callee given the caller's pointer: split mode. */
__attribute__((noinline)) static double *grow_one(double *p, int n) {
  double *t = realloc(p, (n + 1) * sizeof(double));
  t[n] = t[0] * t[n - 1];
  return t;
}
double via_callee(double **buf, int n) {
  double *t = grow_one(*buf, n);
  *buf = t;
  return t[n] * t[1];
}

/* The way out of errors/memory-realloc.c: one realloc to the final size
 * before the loop, which fills the new elements: s = b0 (x + ... + x^(n-1)). */
double grow_once(double **buf, const double *x, int n) {
  double *t = realloc(*buf, n * sizeof(double));
  double s = 0;
  for (int k = 1; k < n; k++) {
    t[k] = x[0] * t[k - 1];
    s += t[k];
  }
  *buf = t;
  return s;
}

/* A realloc that may not run: s = sum b_i^2 (+ (x b0)^2 when grown). */
double maybe_grow(double **buf, const double *x, int n, int grow) {
  double *t = *buf;
  if (grow) {
    t = realloc(t, (n + 1) * sizeof(double));
    t[n] = x[0] * t[0];
    *buf = t;
    n++;
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += t[i] * t[i];
  return s;
}

static double append_v(const double *b0, const double *x, int n, int k,
                       double v, int in_x) {
  double *b = malloc(n * sizeof(double));
  double y[2] = {x[0], x[1]};
  for (int i = 0; i < n; i++)
    b[i] = b0[i];
  if (in_x)
    y[k] = v;
  else
    b[k] = v;
  double r = append(&b, y, n);
  free(b);
  return r;
}

int main(void) {
  enum { N = 3 };
  const double init[N] = {0.5, -1.25, 2.0};
  double x[2] = {0.8, 1.5};
  {
    double *b = malloc(N * sizeof(double));
    double *db = calloc(N, sizeof(double));
    double dx[2] = {0};
    for (int i = 0; i < N; i++)
      b[i] = init[i];
    __enzyme_autodiff((void *)append, &b, &db, x, dx, N);
    double t = x[0] * x[1];
    for (int i = 0; i < N; i++) {
      double closed = 2 * init[i] + (i == 0 ? init[1] : i == 1 ? init[0] : 0);
      ZY_CHECK2("append/db", db[i], closed,
                ZY_DIFF(v, init[i], append_v(init, x, N, i, v, 0)));
    }
    zy_check_close("append/db[new]", db[N], 0, 0);
    ZY_CHECK2("append/dx0", dx[0], 2 * t * x[1],
              ZY_DIFF(v, x[0], append_v(init, x, N, 0, v, 1)));
    ZY_CHECK2("append/dx1", dx[1], 2 * t * x[0],
              ZY_DIFF(v, x[1], append_v(init, x, N, 1, v, 1)));
    zy_check_close("append/primal", b[N], t, 0);
    free(b);
    free(db);
  }
  {
    double *b = malloc(N * sizeof(double));
    double *db = calloc(N, sizeof(double));
    for (int i = 0; i < N; i++)
      b[i] = init[i];
    __enzyme_autodiff((void *)shrink, &b, &db, N);
    /* r = b2 b0 b1: the gradients of the kept b0 and b1 */
    zy_check_close("shrink/db0", db[0], init[2] * init[1], ZY_TOL);
    zy_check_close("shrink/db1", db[1], init[2] * init[0], ZY_TOL);
    free(b);
    free(db);
  }
  {
    double *b = malloc(N * sizeof(double));
    double *db = calloc(N, sizeof(double));
    double dx[2] = {0}, w[N] = {1.0, -2.0, 0.5};
    for (int i = 0; i < N; i++) {
      b[i] = init[i];
      db[i] = w[i]; /* seeds of the outputs */
    }
    __enzyme_autodiff((void *)scale_grow, &b, &db, x, dx, N);
    double want = 0;
    for (int i = 0; i < N; i++) {
      want += w[i] * init[i];
      zy_check_close("scale_grow/db", db[i], w[i] * x[0], ZY_TOL);
    }
    zy_check_close("scale_grow/dx0", dx[0], want, ZY_TOL);
    zy_check_close("scale_grow/primal", b[N], x[0], 0);
    free(b);
    free(db);
  }
  {
    double *b = malloc(N * sizeof(double));
    double *db = calloc(N, sizeof(double));
    for (int i = 0; i < N; i++)
      b[i] = init[i];
    __enzyme_autodiff((void *)via_callee, &b, &db, N);
    /* r = b0 b2 b1 */
    zy_check_close("callee/db0", db[0], init[2] * init[1], ZY_TOL);
    zy_check_close("callee/db1", db[1], init[0] * init[2], ZY_TOL);
    zy_check_close("callee/db2", db[2], init[0] * init[1], ZY_TOL);
    zy_check_close("callee/db[new]", db[N], 0, 0);
    free(b);
    free(db);
  }
  {
    /* The caller's shadow: a larger scratch block, zero over the data,
     * other values past it. */
    double *b = malloc(N * sizeof(double));
    double *db = malloc(16 * sizeof(double));
    double dx[2] = {0};
    for (int i = 0; i < 16; i++)
      db[i] = i < N ? 0 : 1000.0;
    for (int i = 0; i < N; i++)
      b[i] = init[i];
    __enzyme_autodiff((void *)append, &b, &db, x, dx, N);
    double t = x[0] * x[1];
    for (int i = 0; i < N; i++) {
      double closed = 2 * init[i] + (i == 0 ? init[1] : i == 1 ? init[0] : 0);
      zy_check_close("append, larger shadow/db", db[i], closed, ZY_TOL);
    }
    zy_check_close("append, larger shadow/dx0", dx[0], 2 * t * x[1], ZY_TOL);
    zy_check_close("append, larger shadow/dx1", dx[1], 2 * t * x[0], ZY_TOL);
    free(b);
    free(db);
  }
  {
    enum { M = 5 };
    double *b = malloc(sizeof(double)), *db = calloc(1, sizeof(double));
    double dx[1] = {0}, xs = x[0], p = 0, dp = 0;
    b[0] = init[2];
    __enzyme_autodiff((void *)grow_once, &b, &db, x, dx, M);
    for (int k = 1; k < M; k++) {
      p += pow(xs, k);
      dp += k * pow(xs, k - 1);
    }
    zy_check_close("grow_once/dx", dx[0], init[2] * dp, ZY_TOL);
    zy_check_close("grow_once/db0", db[0], p, ZY_TOL);
    zy_check_close("grow_once/primal", b[M - 1], init[2] * pow(xs, M - 1),
                   1e-15);
    free(b);
    free(db);
  }
  for (int grow = 0; grow < 2; grow++) {
    double *b = malloc(N * sizeof(double));
    double *db = calloc(N, sizeof(double));
    double dx[1] = {0};
    for (int i = 0; i < N; i++)
      b[i] = init[i];
    __enzyme_autodiff((void *)maybe_grow, &b, &db, x, dx, N, grow);
    zy_check_close("maybe_grow/dx", dx[0],
                   grow ? 2 * x[0] * init[0] * init[0] : 0, ZY_TOL);
    zy_check_close("maybe_grow/db0", db[0],
                   2 * init[0] + (grow ? 2 * x[0] * x[0] * init[0] : 0),
                   ZY_TOL);
    zy_check_close("maybe_grow/db2", db[2], 2 * init[2], ZY_TOL);
    free(b);
    free(db);
  }
  return zy_report();
}
