// Gradients through nested loops: a triple loop computing a non-square
// matrix product reduced to a scalar, triangular bounds (j <= i, k <= j),
// inner trip counts and steps that depend on the outer index, an inner
// loop that leaves on a data-dependent test, and loops calling noinline
// helpers that read and write the arrays, one of which loops itself (so
// the callee's gradient has a loop inside the caller's), a value of an
// inner loop used after the outer one, and a recursive function with a
// loop.  Checked against
// finite differences at several inputs and sizes.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O0 -Xclang -load -Xclang %plugin -mllvm -zymase-verify -mllvm -zymase-no-preopt %s -lm -o %tn && %tn
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-verify %s -lm -o %tv && %tv
// RUN: %valgrind %t0 > /dev/null
// RUN: %valgrind %t2 > /dev/null
#include "fd-memory.h"

void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

#define N 12

/* sum_ij (A B)_ij^2 sin(1 + (A B)_ij) for A m x k and B k x p (row-major):
 * three loops, every bound from an argument. */
double matprod(const double *A, const double *B, int m, int k, int p) {
  double s = 0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < p; j++) {
      double c = 0;
      for (int l = 0; l < k; l++)
        c += A[i * k + l] * B[l * p + j];
      s += c * c * sin(1 + c);
    }
  return s;
}

/* Triangular bounds: j <= i and l <= j, with a carried value across the
 * whole nest. */
double triangular(const double *x, int n) {
  double s = 0.25;
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++) {
      double t = x[j];
      for (int l = 0; l <= j; l++)
        t = t * cos(x[l]) + 0.1 * s;
      s = s * 0.8 + t * x[i];
    }
  return s;
}

/* The inner loop's start and step depend on the outer index. */
double outer_step(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double p = 1;
    for (int j = i; j < n; j += i + 1)
      p = 0.5 * p * x[j] + sin(x[i] * p);
    s += p * x[i];
  }
  return s;
}

/* For each element, iterate t <- t^2/2 + x[i] until |t| reaches 3 (or 8
 * steps): an inner loop with a data-dependent exit inside a counted loop. */
double inner_until(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double t = x[i];
    int k = 0;
    while (fabs(t) < 3 && k < 8) {
      t = 0.5 * t * t + x[i];
      k++;
    }
    s += t * (k + 1);
  }
  return s;
}

/* A value of the inner loop used after the outer loop. */
double inner_after_outer(const double *x, int n) {
  double last = 0, acc = 0;
  for (int i = 0; i < n; i++) {
    double t = x[i];
    for (int j = 0; j < i; j++) {
      t = t * cos(x[j]) + 0.2;
      last = t * x[j];
    }
    acc += t;
  }
  return acc * last + last;
}

/* Recursion around a loop: each level's loop is in its own activation. */
double recursive(const double *x, int n) {
  if (n <= 0)
    return 1.0;
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return sin(0.1 * s) + recursive(x, n - 1) * x[n - 1];
}

/* Helpers kept out of line: the callee's gradient is a separate function
 * called from inside the caller's loop. */
__attribute__((noinline)) static void scale_shift(double *y, const double *x,
                                                  int i) {
  y[i] = y[i] * cos(x[i]) + x[(i + 1) % 4] * y[i] * 0.5;
}

__attribute__((noinline)) static double dotn(const double *a, const double *b,
                                             int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

__attribute__((noinline)) static void axpy(double *y, double a, const double *x,
                                           int n) {
  for (int i = 0; i < n; i++)
    y[i] += a * sin(x[i]);
}

/* y is written through a helper at every step of a loop over steps, and
 * every step also calls a helper with its own loop. */
double with_helpers(const double *x, double *y, int n, int steps) {
  double r = 0;
  for (int t = 0; t < steps; t++) {
    for (int i = 0; i < n; i++)
      scale_shift(y, x, i);
    double d = dotn(x, y, n);
    axpy(y, 0.1 * d, x, n);
    r += d * d;
  }
  return r + dotn(y, y, n);
}
/* with_helpers writes y: start every finite-difference evaluation from a
 * copy. */
static double with_helpers_ref(const double *x, const double *y0, int n,
                               int steps) {
  double y[N];
  for (int i = 0; i < n; i++)
    y[i] = y0[i];
  return with_helpers(x, y, n, steps);
}

#define CHECK_XN(f, x, n)                                                      \
  do {                                                                         \
    double dx_[N] = {0}, fd_[N];                                               \
    char what_[64];                                                            \
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx_, enzyme_const, n);         \
    for (int k = 0; k < N; k++)                                                \
      fd_[k] = ZY_DIFF_AT(x, k, f(x, n));                                      \
    snprintf(what_, sizeof what_, "%s(n=%d)", #f, n);                          \
    zy_check_array(what_, dx_, fd_, N, ZY_FD_TOL);                             \
  } while (0)

int main(void) {
  double xs[3][N] = {
      {0.3, -0.7, 1.1, 0.4, -1.3, 0.9, 0.2, -0.5, 0.8, -0.1, 0.6, -1.0},
      {1.2, 0.8, -0.6, 1.5, 0.1, -0.9, 1.3, 0.7, -0.3, 0.45, -1.2, 0.05},
      {-0.4, 1.6, 0.5, -1.1, 0.6, 0.3, -0.8, 1.9, 0.15, -0.65, 1.05, 0.35}};

  /* non-square shapes, a 1 x 1 x 1 product and an empty one */
  int shapes[][3] = {{2, 3, 4}, {4, 3, 2}, {3, 1, 3}, {1, 1, 1}, {2, 0, 2}};
  for (int p = 0; p < 3; p++)
    for (int q = 0; q < 5; q++) {
      int m = shapes[q][0], k = shapes[q][1], pp = shapes[q][2];
      double *A = xs[p], B[N], dA[N] = {0}, dB[N] = {0}, fA[N], fB[N];
      for (int i = 0; i < N; i++)
        B[i] = xs[(p + 1) % 3][N - 1 - i];
      __enzyme_autodiff((void *)matprod, enzyme_dup, A, dA, enzyme_dup, B, dB,
                        enzyme_const, m, enzyme_const, k, enzyme_const, pp);
      for (int i = 0; i < N; i++) {
        fA[i] = ZY_DIFF_AT(A, i, matprod(A, B, m, k, pp));
        fB[i] = ZY_DIFF_AT(B, i, matprod(A, B, m, k, pp));
      }
      char what[64];
      snprintf(what, sizeof what, "matprod(%dx%dx%d)/dA", m, k, pp);
      zy_check_array(what, dA, fA, N, ZY_FD_TOL);
      snprintf(what, sizeof what, "matprod(%dx%dx%d)/dB", m, k, pp);
      zy_check_array(what, dB, fB, N, ZY_FD_TOL);
    }

  int ns[] = {0, 1, 3, 7, N};
  for (int p = 0; p < 3; p++)
    for (int q = 0; q < 5; q++) {
      double *x = xs[p];
      CHECK_XN(triangular, x, ns[q]);
      CHECK_XN(outer_step, x, ns[q]);
      CHECK_XN(inner_until, x, ns[q]);
      CHECK_XN(inner_after_outer, x, ns[q]);
      if (ns[q] <= 7) /* the product of x[i] grows with the depth */
        CHECK_XN(recursive, x, ns[q]);
    }

  for (int p = 0; p < 3; p++)
    for (int steps = 0; steps <= 3; steps++) {
      int n = 4;
      double *x = xs[p], y0[N], y[N], dx[N] = {0}, dy[N] = {0}, fx[N], fy[N];
      for (int i = 0; i < N; i++)
        y[i] = y0[i] = xs[(p + 2) % 3][i];
      __enzyme_autodiff((void *)with_helpers, enzyme_dup, x, dx, enzyme_dup, y,
                        dy, enzyme_const, n, enzyme_const, steps);
      for (int i = 0; i < N; i++) {
        fx[i] = ZY_DIFF_AT(x, i, with_helpers_ref(x, y0, n, steps));
        fy[i] = ZY_DIFF_AT(y0, i, with_helpers_ref(x, y0, n, steps));
      }
      char what[64];
      snprintf(what, sizeof what, "with_helpers(steps=%d)/dx", steps);
      zy_check_array(what, dx, fx, N, ZY_FD_TOL);
      snprintf(what, sizeof what, "with_helpers(steps=%d)/dy", steps);
      zy_check_array(what, dy, fy, N, ZY_FD_TOL);
    }
  return zy_report();
}
