// In-place updates x[i] = f(x[i], ...) through enzyme_dup pointers: the
// shadow holds the seed of the final values before the call and the
// gradient w.r.t. the values before the overwrite after it (Enzyme's
// semantics); overwritten-only memory gets zero.  Against closed forms and
// finite differences of seed . x_after + return.
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
extern int enzyme_dup;

/* scalar a active, x in place */
void scale2(double *x, double a) {
  x[0] = a * x[0];
  x[1] = a * x[1];
}

/* the same element overwritten twice, then read */
void twice(double *x) {
  x[0] = sin(x[0]);
  x[0] = x[0] * x[0];
  x[1] = x[0] + x[1];
}

/* each update reads earlier updates; also returns a value */
double chain(double *x) {
  x[1] = x[0] + x[1];
  x[0] = x[0] * x[1];
  x[2] = x[0] - x[2] * x[1];
  return x[0] * x[2];
}

void swap_scale(double *x) {
  double t = x[0];
  x[0] = x[1];
  x[1] = 2 * t;
}

/* x[0] is overwritten with a constant, x[1] with values of y only */
void overwrite(double *x, const double *y) {
  x[0] = 0;
  x[1] = 2 * y[0] * y[1];
  x[2] += y[0];
}

/* out[0] = x[0]^2, called with out == x */
void square(double *out, const double *x) { out[0] = x[0] * x[0]; }

/* rotation by an active angle, in place */
void rotate(double *x, double theta) {
  double c = cos(theta), s = sin(theta);
  double x0 = x[0];
  x[0] = c * x0 - s * x[1];
  x[1] = s * x0 + c * x[1];
}

/* seed . x_after + ret, where `call` runs on the copy `w` of x0 */
#define SEEDED(x0, seed, call)                                                 \
  ({                                                                           \
    double w[3];                                                               \
    memcpy(w, x0, sizeof w);                                                   \
    double s = (call);                                                         \
    for (int k = 0; k < 3; k++)                                                \
      s += (seed)[k] * w[k];                                                   \
    s;                                                                         \
  })

/* Runs the gradient of `fn` on x with shadow = seed, checks x after the
 * call against `after` (the primal applied to a copy) and the shadow
 * against finite differences of SEEDED. */
#define CHECK_IN_PLACE(name, fn, call, ...)                                    \
  do {                                                                         \
    double x[3], dx[3], fd[3], after[3];                                       \
    memcpy(x, x0, sizeof x);                                                   \
    memcpy(dx, seed, sizeof dx);                                               \
    memcpy(after, x0, sizeof after);                                           \
    {                                                                          \
      double *w = after;                                                       \
      (void)(call);                                                            \
    }                                                                          \
    __enzyme_autodiff((void *)fn, x, dx, ##__VA_ARGS__);                       \
    zy_check_array(name " primal", x, after, 3, ZY_TOL);                       \
    for (int i = 0; i < 3; i++)                                                \
      fd[i] = ZY_DIFF_AT(x0, i, SEEDED(x0, seed, call));                       \
    zy_check_array(name "/dx (finite diff)", dx, fd, 3, ZY_FD_TOL);            \
  } while (0)

int main(void) {
  double x0[3] = {0.7, -1.3, 0.45};
  double seed[3] = {1.0, 0.5, -2.0};

  CHECK_IN_PLACE("twice", twice, (twice(w), 0.0));
  CHECK_IN_PLACE("chain", chain, chain(w));
  CHECK_IN_PLACE("swap_scale", swap_scale, (swap_scale(w), 0.0));

  {
    /* closed form: twice */
    double x[3] = {0.7, -1.3, 0.45}, dx[3] = {1, 0.5, -2};
    __enzyme_autodiff((void *)twice, x, dx);
    double want[3] = {(1 + 0.5) * 2 * sin(0.7) * cos(0.7), 0.5, -2};
    zy_check_array("twice/dx", dx, want, 3, ZY_TOL);
  }
  {
    /* seed only in memory, nothing returned: swap_scale moves it */
    double x[3] = {0.7, -1.3, 0.45}, dx[3] = {1, 0.5, -2};
    __enzyme_autodiff((void *)swap_scale, x, dx);
    double want[3] = {1.0, 1.0, -2};
    zy_check_array("swap_scale/dx", dx, want, 3, ZY_TOL);
  }
  {
    double x[3] = {0.7, -1.3, 0.45}, dx[3] = {1, 0.5, -2};
    double y[2] = {1.5, -0.25}, dy[2] = {0};
    __enzyme_autodiff((void *)overwrite, x, dx, y, dy);
    double want[3] = {0, 0, -2};
    zy_check_array("overwrite/dx", dx, want, 3, ZY_TOL);
    double wy[2] = {0.5 * 2 * y[1] - 2, 0.5 * 2 * y[0]};
    zy_check_array("overwrite/dy", dy, wy, 2, ZY_TOL);
    zy_check_close("overwrite primal", x[1], 2 * 1.5 * -0.25, ZY_TOL);
  }
  {
    double x[1] = {1.75}, dx[1] = {3.0};
    __enzyme_autodiff((void *)square, x, dx, x, dx);
    zy_check_close("square(x, x) primal", x[0], 1.75 * 1.75, ZY_TOL);
    zy_check_close("square(x, x)/dx", dx[0], 3.0 * 2 * 1.75, ZY_TOL);
    double out[1] = {9.0}, dout[1] = {1.0}, y[1] = {1.75}, dy[1] = {0.5};
    __enzyme_autodiff((void *)square, out, dout, y, dy);
    zy_check_close("square/dout", dout[0], 0, ZY_TOL);
    zy_check_close("square/dx", dy[0], 0.5 + 2 * 1.75, ZY_TOL);
  }
  {
    double x[2] = {0.7, -1.3}, dx[2] = {1, 0.5}, a = 1.25;
    double da = __enzyme_autodiff((void *)scale2, x, dx, a);
    zy_check_close("scale2/da", da, 1 * 0.7 + 0.5 * -1.3, ZY_TOL);
    double want[2] = {1 * a, 0.5 * a};
    zy_check_array("scale2/dx", dx, want, 2, ZY_TOL);
    zy_check_close("scale2 primal", x[1], -1.3 * a, ZY_TOL);
  }
  {
    double x[2] = {0.7, -1.3}, dx[2] = {1, 0.5}, th = 0.4;
    double c = cos(th), s = sin(th);
    double dth = __enzyme_autodiff((void *)rotate, x, dx, th);
    /* d/dth (seed . R(th) x) */
    zy_check_close("rotate/dtheta", dth,
                   1 * (-s * 0.7 - c * -1.3) + 0.5 * (c * 0.7 - s * -1.3),
                   ZY_TOL);
    double want[2] = {c * 1 + s * 0.5, -s * 1 + c * 0.5};
    zy_check_array("rotate/dx", dx, want, 2, ZY_TOL);
  }
  return zy_report();
}
