// enzyme_const pointers: constant data (coefficients, integer indices, a
// parameter struct, scratch memory written with constants) read next to dup
// pointers and active scalars.  A constant pointer takes no shadow argument,
// its memory is left alone, and the other gradients are right.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-verify %s -lm -o %tv && %tv
#include "fd-memory.h"

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

double poly(const double *c, const double *x) {
  return c[0] * x[0] + c[1] * x[1] * x[1] + c[2] * x[0] * x[1];
}

double gather(const int *idx, const double *x) {
  return x[idx[0]] * x[idx[1]] + x[idx[2]];
}

double scalar(const double *c, double t) { return c[0] * sin(t) + c[1] * t * t; }

struct Params {
  double k;
  int n;
  const double *table;
};

double model(const struct Params *p, const double *x, double t) {
  return p->k * x[0] * t + p->table[p->n] * x[1] + p->table[0] * t * t;
}

/* constants written to constant scratch memory, then read back */
double scratch(double *s, const double *x) {
  s[0] = 2.0;
  s[1] = s[0] * 3;
  return s[1] * x[0] * x[0];
}

int main(void) {
  double c[3] = {1.5, -0.5, 0.25}, x[2] = {0.8, -1.2}, dx[2] = {0};
  double c0[3] = {1.5, -0.5, 0.25};

  __enzyme_autodiff((void *)poly, enzyme_const, c, enzyme_dup, x, dx);
  zy_check_close("poly/dx[0]", dx[0], c[0] + c[2] * x[1], ZY_TOL);
  zy_check_close("poly/dx[1]", dx[1], 2 * c[1] * x[1] + c[2] * x[0], ZY_TOL);
  zy_check_close("poly/dx[1] (finite diff)", dx[1],
                 ZY_DIFF_AT(x, 1, poly(c, x)), ZY_FD_TOL);
  for (int k = 0; k < 3; k++)
    zy_check_close("poly const memory unchanged", c[k], c0[k], 0);

  /* the unmarked pointer after the constant one is dup */
  dx[0] = dx[1] = 0;
  __enzyme_autodiff((void *)poly, enzyme_const, c, x, dx);
  zy_check_close("poly (unmarked x)/dx[0]", dx[0], c[0] + c[2] * x[1],
                 ZY_TOL);

  {
    double y[3] = {0.5, 2.0, -3.0}, dy[3] = {0};
    int idx[3] = {2, 0, 1};
    __enzyme_autodiff((void *)gather, enzyme_const, idx, y, dy);
    zy_check_close("gather/dy[0]", dy[0], y[2], ZY_TOL);
    zy_check_close("gather/dy[1]", dy[1], 1, ZY_TOL);
    zy_check_close("gather/dy[2]", dy[2], y[0], ZY_TOL);
    zy_check_close("gather idx unchanged", idx[0] == 2 && idx[2] == 1, 1, 0);
  }

  {
    double t = 0.9;
    double dt = __enzyme_autodiff((void *)scalar, enzyme_const, c, t);
    zy_check_close("scalar/dt", dt, c[0] * cos(t) + 2 * c[1] * t, ZY_TOL);
    zy_check_close("scalar/dt (finite diff)", dt,
                   ZY_DIFF(u, t, scalar(c, u)), ZY_FD_TOL);
  }

  {
    double table[3] = {0.3, 1.7, -0.9};
    struct Params p = {2.5, 2, table};
    double dm[2] = {0}, t = -0.6;
    double dt = __enzyme_autodiff((void *)model, enzyme_const, &p, x, dm, t);
    zy_check_close("model/dx[0]", dm[0], p.k * t, ZY_TOL);
    zy_check_close("model/dx[1]", dm[1], table[2], ZY_TOL);
    zy_check_close("model/dt", dt, p.k * x[0] + 2 * table[0] * t, ZY_TOL);
    zy_check_close("model table unchanged", table[2], -0.9, 0);
  }

  {
    double s[2] = {0};
    dx[0] = dx[1] = 0;
    __enzyme_autodiff((void *)scratch, enzyme_const, s, x, dx);
    zy_check_close("scratch/dx[0]", dx[0], 6 * 2 * x[0], ZY_TOL);
    zy_check_close("scratch primal", s[1], 6, 0);
  }

  {
    /* all memory constant: only the scalar is active */
    struct Params p = {1.0, 0, c};
    double dt = __enzyme_autodiff((void *)model, enzyme_const, &p,
                                  enzyme_const, x, 0.5);
    zy_check_close("model (memory constant)/dt", dt,
                   x[0] + 2 * c[0] * 0.5, ZY_TOL);
  }
  return zy_report();
}
