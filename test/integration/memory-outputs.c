// Void functions writing their results through dup pointers: the caller
// seeds the output's shadow (one seed per output gives one row of the
// Jacobian), the shadow is cleared by the call, and outputs that are read
// before being written (+=) keep their seed.  Outputs in structs, outputs
// written twice, several output pointers, and active scalar inputs whose
// gradients are returned.  Against closed forms and finite differences.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O0 -Xclang -load -Xclang %plugin -mllvm -zymase-verify -mllvm -zymase-no-preopt %s -lm -o %tn && %tn
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-verify %s -lm -o %tv && %tv
#include "fd-memory.h"

#include <string.h>

double __enzyme_autodiff(void *, ...);
typedef struct {
  double da, db;
} G2;
G2 __enzyme_autodiff2(void *, ...);
extern int enzyme_dup;

void jac(double *out, const double *x) {
  out[0] = x[0] * x[1];
  out[1] = x[0] + sin(x[1]);
  out[2] = x[0] / x[1];
}

void add_square(double *out, const double *x) { out[0] += x[0] * x[0]; }

/* written twice, the second time from its own value */
void twice(double *out, const double *x) {
  out[0] = x[0];
  out[0] = out[0] * x[1];
}

struct Res {
  double v;
  double g[2];
  int status;
};

void eval(struct Res *r, double a, double b) {
  r->v = a * b * b;
  r->g[0] = b * b;
  r->g[1] = 2 * a * b;
  r->status = 0;
}

/* two output pointers, and a return value */
double split(double *lo, double *hi, const double *x) {
  lo[0] = x[0] * x[2];
  hi[0] = exp(x[1]) * x[2];
  return x[0] + x[1];
}

/* out[j] for the finite differences */
static double jac_out(const double *x, int j) {
  double o[3];
  jac(o, x);
  return o[j];
}

int main(void) {
  double x[3] = {0.9, -1.6, 0.35};
  for (int j = 0; j < 3; j++) {
    double out[3] = {0}, dout[3] = {0}, dx[2] = {0}, fd[2];
    dout[j] = 1;
    __enzyme_autodiff((void *)jac, out, dout, x, dx);
    for (int k = 0; k < 2; k++)
      fd[k] = ZY_DIFF_AT(x, k, jac_out(x, j));
    char what[64];
    snprintf(what, sizeof what, "jac row %d (finite diff)", j);
    zy_check_array(what, dx, fd, 2, ZY_FD_TOL);
    zy_check_close("jac/dout cleared", dout[j], 0, 0);
    zy_check_close("jac primal", out[2], x[0] / x[1], ZY_TOL);
  }
  {
    /* all rows at once: J^T seed */
    double out[3], dout[3] = {0.5, -2.0, 3.0}, dx[2] = {0};
    __enzyme_autodiff((void *)jac, out, dout, x, dx);
    double x0 = x[0], x1 = x[1];
    zy_check_close("jac/dx[0]", dx[0], 0.5 * x1 - 2.0 + 3.0 / x1, ZY_TOL);
    zy_check_close("jac/dx[1]", dx[1],
                   0.5 * x0 - 2.0 * cos(x1) - 3.0 * x0 / (x1 * x1), ZY_TOL);
  }
  {
    double out[1] = {4.0}, dout[1] = {2.5}, dx[1] = {0};
    __enzyme_autodiff((void *)add_square, out, dout, x, dx);
    zy_check_close("add_square primal", out[0], 4.0 + x[0] * x[0], ZY_TOL);
    zy_check_close("add_square/dout kept", dout[0], 2.5, 0);
    zy_check_close("add_square/dx", dx[0], 2.5 * 2 * x[0], ZY_TOL);
  }
  {
    double out[1], dout[1] = {-1.5}, dx[2] = {0};
    __enzyme_autodiff((void *)twice, out, dout, x, dx);
    zy_check_close("twice/dx[0]", dx[0], -1.5 * x[1], ZY_TOL);
    zy_check_close("twice/dx[1]", dx[1], -1.5 * x[0], ZY_TOL);
    zy_check_close("twice/dout", dout[0], 0, 0);
  }
  {
    struct Res r, dr;
    memset(&r, 0, sizeof r);
    memset(&dr, 0, sizeof dr);
    dr.v = 1.0;
    dr.g[0] = 0.5;
    dr.g[1] = -0.25;
    double a = 1.3, b = -0.7;
    G2 g = __enzyme_autodiff2((void *)eval, &r, &dr, a, b);
    zy_check_close("eval/da", g.da, b * b - 0.25 * 2 * b, ZY_TOL);
    zy_check_close("eval/db", g.db, 2 * a * b + 0.5 * 2 * b - 0.25 * 2 * a,
                   ZY_TOL);
    zy_check_close("eval/db (finite diff)", g.db,
                   ZY_DIFF(t, b, ({
                             struct Res s;
                             eval(&s, a, t);
                             s.v + 0.5 * s.g[0] - 0.25 * s.g[1];
                           })),
                   ZY_FD_TOL);
    zy_check_close("eval/dr cleared", dr.v + dr.g[0] + dr.g[1], 0, 0);
  }
  {
    double lo[1], hi[1], dlo[1] = {2.0}, dhi[1] = {-1.0}, dx[3] = {0};
    __enzyme_autodiff((void *)split, lo, dlo, hi, dhi, x, dx);
    zy_check_close("split/dx[0]", dx[0], 1 + 2.0 * x[2], ZY_TOL);
    zy_check_close("split/dx[1]", dx[1], 1 - exp(x[1]) * x[2], ZY_TOL);
    zy_check_close("split/dx[2]", dx[2], 2.0 * x[0] - exp(x[1]), ZY_TOL);
    zy_check_close("split/dlo", dlo[0], 0, 0);
    zy_check_close("split/dhi", dhi[0], 0, 0);
  }
  return zy_report();
}
