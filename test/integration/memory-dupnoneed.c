// enzyme_dupnoneed: a pointer and its shadow where the caller does not need
// the primal values written through the pointer.  The gradients are those of
// enzyme_dup (the primal memory is not checked); outputs, in-place updates,
// inputs, outputs read back after being written, and dup and dupnoneed
// mixed in one call.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O0 -Xclang -load -Xclang %plugin -mllvm -zymase-verify -mllvm -zymase-no-preopt %s -lm -o %tn && %tn
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-verify %s -lm -o %tv && %tv
#include "fd-memory.h"

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_dupnoneed;

void outputs(double *out, const double *x) {
  out[0] = x[0] * x[1];
  out[1] = sin(x[0]) + x[1] * x[1];
}

/* in place: x[0] = x[0]^2 x[1], x[1] = exp(x[1]) */
void in_place(double *x) {
  x[0] = x[0] * x[0] * x[1];
  x[1] = exp(x[1]);
}

double reads(const double *x, double a) { return a * x[0] * x[1] + x[1]; }

/* out gets a value of x that is also returned */
double both(double *out, const double *x, double *tmp) {
  tmp[0] = x[0] * x[0];
  out[0] = tmp[0] * x[1];
  return tmp[0] + out[0];
}

/* the output is read back (through a call) after it is written */
__attribute__((noinline)) double get(const double *p) { return p[0]; }

void read_back(double *out, const double *x) {
  out[0] = x[0] * x[0];
  out[1] = get(out) * x[1];
}

int main(void) {
  double x[2] = {0.7, -1.4};
  {
    double out[2], dout[2] = {1.0, 0.5}, dx[2] = {0};
    __enzyme_autodiff((void *)outputs, enzyme_dupnoneed, out, dout,
                      enzyme_dup, x, dx);
    zy_check_close("outputs/dx[0]", dx[0], 1.0 * x[1] + 0.5 * cos(x[0]),
                   ZY_TOL);
    zy_check_close("outputs/dx[1]", dx[1], 1.0 * x[0] + 0.5 * 2 * x[1],
                   ZY_TOL);
    zy_check_close("outputs/dout[0]", dout[0], 0, 0);
    zy_check_close("outputs/dout[1]", dout[1], 0, 0);
  }
  {
    double y[2] = {0.7, -1.4}, dy[2] = {2.0, 3.0};
    __enzyme_autodiff((void *)in_place, enzyme_dupnoneed, y, dy);
    zy_check_close("in_place/dx[0]", dy[0], 2.0 * 2 * x[0] * x[1], ZY_TOL);
    zy_check_close("in_place/dx[1]", dy[1],
                   2.0 * x[0] * x[0] + 3.0 * exp(x[1]), ZY_TOL);
  }
  {
    double dx[2] = {0};
    double da =
        __enzyme_autodiff((void *)reads, enzyme_dupnoneed, x, dx, 1.5);
    zy_check_close("reads/da", da, x[0] * x[1], ZY_TOL);
    zy_check_close("reads/dx[0]", dx[0], 1.5 * x[1], ZY_TOL);
    zy_check_close("reads/dx[1]", dx[1], 1.5 * x[0] + 1, ZY_TOL);
  }
  {
    double out[1], dout[1] = {0.25}, dx[2] = {0}, tmp[1], dtmp[1] = {0};
    __enzyme_autodiff((void *)both, enzyme_dupnoneed, out, dout, x, dx,
                      enzyme_dupnoneed, tmp, dtmp);
    /* r = x0^2 + x0^2 x1, objective r + 0.25 x0^2 x1 */
    zy_check_close("both/dx[0]", dx[0],
                   2 * x[0] + 1.25 * 2 * x[0] * x[1], ZY_TOL);
    zy_check_close("both/dx[1]", dx[1], 1.25 * x[0] * x[0], ZY_TOL);
    zy_check_close("both/dx[1] (finite diff)", dx[1],
                   ZY_DIFF_AT(x, 1, ({
                     double r = both(out, x, tmp);
                     r + 0.25 * out[0];
                   })),
                   ZY_FD_TOL);
    zy_check_close("both/dtmp", dtmp[0], 0, 0);
  }
  {
    double out[2] = {-100, -100}, dout[2] = {0, 1}, dx[2] = {0};
    __enzyme_autodiff((void *)read_back, enzyme_dupnoneed, out, dout,
                      enzyme_dup, x, dx);
    zy_check_close("read_back/dx[0]", dx[0], 2 * x[0] * x[1], ZY_TOL);
    zy_check_close("read_back/dx[1]", dx[1], x[0] * x[0], ZY_TOL);
  }
  return zy_report();
}
