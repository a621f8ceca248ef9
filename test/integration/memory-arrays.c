// Gradients through small fixed-size arrays passed with enzyme_dup (dot
// products, a 3x3 quadratic form, a norm, a matrix-vector product through a
// local array, variable indices, pointer select and phi, aliased arguments,
// accumulation into non-zero shadows), against closed forms and finite
// differences.  The differentiated code is unrolled by hand: no loops.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O0 -Xclang -load -Xclang %plugin -mllvm -zymase-verify -mllvm -zymase-no-preopt %s -lm -o %tn && %tn
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-verify %s -lm -o %tv && %tv
#include "fd-memory.h"

void __enzyme_autodiff(void *, ...);
extern int enzyme_dup;

double dot3(const double *a, const double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* x^T A x */
double quad3(const double (*A)[3], const double *x) {
  double r0 = A[0][0] * x[0] + A[0][1] * x[1] + A[0][2] * x[2];
  double r1 = A[1][0] * x[0] + A[1][1] * x[1] + A[1][2] * x[2];
  double r2 = A[2][0] * x[0] + A[2][1] * x[1] + A[2][2] * x[2];
  return x[0] * r0 + x[1] * r1 + x[2] * r2;
}

double norm3(const double *x) {
  return sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
}

/* sum_i w_i sin((A x)_i), with A x in a local array */
double mv_sin(const double *A, const double *x, const double *w) {
  double y[3];
  y[0] = A[0] * x[0] + A[1] * x[1] + A[2] * x[2];
  y[1] = A[3] * x[0] + A[4] * x[1] + A[5] * x[2];
  y[2] = A[6] * x[0] + A[7] * x[1] + A[8] * x[2];
  return w[0] * sin(y[0]) + w[1] * sin(y[1]) + w[2] * sin(y[2]);
}

/* variable indices: x[i] * x[i + 1] */
double pick(const double *x, int i) { return x[i] * x[i + 1]; }

/* a pointer chosen by a select, and one by a phi */
double sel(const double *a, const double *b, int c) {
  const double *p = c ? a : b;
  return p[0] * p[1];
}

double phi(const double *a, const double *b, int c) {
  const double *p;
  if (c > 1)
    p = a + 1;
  else if (c > 0)
    p = b;
  else
    return exp(a[0]);
  return p[0] * p[0] * p[1];
}

int main(void) {
  double a[3] = {0.5, -1.25, 2.0}, b[3] = {1.5, 0.75, -0.4};
  double da[3] = {0}, db[3] = {0}, want[3], fd[3];

  __enzyme_autodiff((void *)dot3, enzyme_dup, a, da, enzyme_dup, b, db);
  zy_check_array("dot3/da", da, b, 3, ZY_TOL);
  zy_check_array("dot3/db", db, a, 3, ZY_TOL);
  for (int k = 0; k < 3; k++)
    fd[k] = ZY_DIFF_AT(a, k, dot3(a, b));
  zy_check_array("dot3/da (finite diff)", da, fd, 3, ZY_FD_TOL);

  /* a second call accumulates into the same shadows */
  __enzyme_autodiff((void *)dot3, a, da, b, db);
  for (int k = 0; k < 3; k++)
    want[k] = 2 * b[k];
  zy_check_array("dot3/da accumulated", da, want, 3, ZY_TOL);

  /* the same memory twice, with the same shadow: d(x.x)/dx = 2x */
  double dx[3] = {0};
  __enzyme_autodiff((void *)dot3, a, dx, a, dx);
  for (int k = 0; k < 3; k++)
    want[k] = 2 * a[k];
  zy_check_array("dot3(x, x)/dx", dx, want, 3, ZY_TOL);

  double A[3][3] = {{1.0, 0.5, -0.3}, {0.2, 2.0, 0.7}, {-1.1, 0.4, 1.5}};
  double dA[3][3] = {{0}}, *Af = &A[0][0], *dAf = &dA[0][0];
  double x[3] = {0.3, -0.8, 1.2};
  double dq[3] = {0};
  __enzyme_autodiff((void *)quad3, A, dA, x, dq);
  for (int i = 0; i < 3; i++)
    want[i] = (A[i][0] + A[0][i]) * x[0] + (A[i][1] + A[1][i]) * x[1] +
              (A[i][2] + A[2][i]) * x[2];
  zy_check_array("quad3/dx", dq, want, 3, ZY_TOL);
  for (int k = 0; k < 3; k++)
    fd[k] = ZY_DIFF_AT(x, k, quad3((const double(*)[3])A, x));
  zy_check_array("quad3/dx (finite diff)", dq, fd, 3, ZY_FD_TOL);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      zy_check_close("quad3/dA", dA[i][j], x[i] * x[j], ZY_TOL);
  zy_check_close("quad3/dA[1][2] (finite diff)", dAf[5],
                 ZY_DIFF_AT(Af, 5, quad3((const double(*)[3])A, x)),
                 ZY_FD_TOL);

  double dn[3] = {0}, n = norm3(x);
  __enzyme_autodiff((void *)norm3, x, dn);
  for (int k = 0; k < 3; k++) {
    want[k] = x[k] / n;
    fd[k] = ZY_DIFF_AT(x, k, norm3(x));
  }
  zy_check_array("norm3/dx", dn, want, 3, ZY_TOL);
  zy_check_array("norm3/dx (finite diff)", dn, fd, 3, ZY_FD_TOL);

  double dmA[9] = {0}, dmx[3] = {0}, w[3] = {0.9, -0.6, 0.25}, dw[3] = {0};
  __enzyme_autodiff((void *)mv_sin, Af, dmA, x, dmx, w, dw);
  double y[3];
  for (int i = 0; i < 3; i++)
    y[i] = A[i][0] * x[0] + A[i][1] * x[1] + A[i][2] * x[2];
  for (int k = 0; k < 3; k++) {
    want[k] = w[0] * cos(y[0]) * A[0][k] + w[1] * cos(y[1]) * A[1][k] +
              w[2] * cos(y[2]) * A[2][k];
    fd[k] = ZY_DIFF_AT(x, k, mv_sin(Af, x, w));
  }
  zy_check_array("mv_sin/dx", dmx, want, 3, ZY_TOL);
  zy_check_array("mv_sin/dx (finite diff)", dmx, fd, 3, ZY_FD_TOL);
  for (int k = 0; k < 3; k++)
    want[k] = sin(y[k]);
  zy_check_array("mv_sin/dw", dw, want, 3, ZY_TOL);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      zy_check_close("mv_sin/dA", dmA[3 * i + j], w[i] * cos(y[i]) * x[j],
                     ZY_TOL);
  zy_check_close("mv_sin/dA[7] (finite diff)", dmA[7],
                 ZY_DIFF_AT(Af, 7, mv_sin(Af, x, w)), ZY_FD_TOL);

  for (int i = 0; i < 2; i++) {
    double dp[3] = {0};
    __enzyme_autodiff((void *)pick, x, dp, i);
    double wp[3] = {0};
    wp[i] = x[i + 1];
    wp[i + 1] = x[i];
    zy_check_array(i ? "pick(1)/dx" : "pick(0)/dx", dp, wp, 3, ZY_TOL);
  }

  for (int c = 0; c < 2; c++) {
    double d1[3] = {0}, d2[3] = {0}, w1[3] = {0}, w2[3] = {0};
    __enzyme_autodiff((void *)sel, a, d1, b, d2, c);
    double *p = c ? a : b, *wp = c ? w1 : w2;
    wp[0] = p[1];
    wp[1] = p[0];
    zy_check_array(c ? "sel(1)/da" : "sel(0)/da", d1, w1, 3, ZY_TOL);
    zy_check_array(c ? "sel(1)/db" : "sel(0)/db", d2, w2, 3, ZY_TOL);
  }

  for (int c = 0; c < 3; c++) {
    double d1[3] = {0}, d2[3] = {0}, f1[3], f2[3];
    __enzyme_autodiff((void *)phi, a, d1, b, d2, c);
    for (int k = 0; k < 3; k++) {
      f1[k] = ZY_DIFF_AT(a, k, phi(a, b, c));
      f2[k] = ZY_DIFF_AT(b, k, phi(a, b, c));
    }
    zy_check_array("phi/da (finite diff)", d1, f1, 3, ZY_FD_TOL);
    zy_check_array("phi/db (finite diff)", d2, f2, 3, ZY_FD_TOL);
  }
  return zy_report();
}
