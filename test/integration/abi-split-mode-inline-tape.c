// Split mode with the tape by value, as Enzyme's GPU examples keep it per
// thread: `enzyme_allocated, N` without enzyme_tape puts the tape inline in
// the N bytes of __enzyme_augmentfwd's declared result (a struct of 8, 20
// and 64 bytes here: returned in a register, in memory, in memory), and
// __enzyme_reverse takes it back by value after the arguments (and the
// return adjoint); nothing is allocated for it.  With a result, the
// declared type is { char tape[N]; the result } at C offsets.  Tapes kept
// in an array, one per call, reversed in any order.  A function with a
// custom gradient keeps its aug's own tape (a float here) inline.  Gradients against
// __enzyme_autodiff, closed forms and finite differences.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
#include "fd.h"

int enzyme_dup, enzyme_const, enzyme_allocated, enzyme_noret;

typedef struct { char b[8]; } Tape8;
typedef struct { char b[20]; } Tape20;
typedef struct { char b[64]; } Tape64;
typedef struct { Tape64 tape; double y; } Aug64;

Tape8 __enzyme_augmentfwd8(void *, ...);
Tape20 __enzyme_augmentfwd20(void *, ...);
Aug64 __enzyme_augmentfwd64(void *, ...);
Tape64 __enzyme_augmentfwd64_noret(void *, ...);
void __enzyme_reverse(void *, ...);
double __enzyme_reverse_d(void *, ...);
void __enzyme_autodiff(void *, ...);
double __enzyme_autodiff_d(void *, ...);

/* The tape holds x[0] (sin(x[0]) is computed again from it): 8 bytes. */
void f8(double *x) { x[0] = sin(x[0]) * x[0]; }

/* x[0] and x[1]: 16 bytes. */
void f20(const double *x, double *y) { y[0] += x[0] * x[1] + exp(x[1]); }

/* Six loaded values: 48 bytes, and a double result. */
double f64(const double *x, double c) {
  return x[0] * x[1] + x[2] * x[3] + sin(x[4]) * x[5] * c;
}

/* A custom gradient whose tape is a float, x's own value (x itself
 * passes again, so the reverse adds the two: 2x). */
double h(double x) { return exp(x); }
typedef struct {
  float tape;
  double y;
} HAug;
HAug h_aug(double x) { return (HAug){(float)x, exp(x)}; }
double h_rev(double x, double dy, float tape) { return dy * (x + tape); }
void *__enzyme_register_gradient_h[3] = {(void *)h, (void *)h_aug,
                                         (void *)h_rev};
typedef struct {
  Tape8 tape;
  double y;
} Aug8;
Aug8 __enzyme_augmentfwd_h(void *, ...);

static double f8_value(double x) { return sin(x) * x; }
static double f20_value(double x0, double x1) { return x0 * x1 + exp(x1); }

int main(void) {
  enum { N = 6 };
  /* f8: one tape per element, reversed backwards. */
  double x[N], dx[N];
  Tape8 t8[N];
  for (int k = 0; k < N; k++) {
    x[k] = 0.3 * k - 0.7;
    dx[k] = 1.0;
    t8[k] = __enzyme_augmentfwd8((void *)f8, enzyme_allocated, sizeof(Tape8),
                                 enzyme_dup, &x[k], &dx[k]);
  }
  for (int k = N; k-- > 0;)
    __enzyme_reverse((void *)f8, enzyme_allocated, sizeof(Tape8), enzyme_dup,
                     &x[k], &dx[k], t8[k]);
  for (int k = 0; k < N; k++) {
    double x0 = 0.3 * k - 0.7;
    zy_check_close("f8 primal", x[k], f8_value(x0), 1e-15);
    ZY_CHECK2("f8 dx", dx[k], cos(x0) * x0 + sin(x0),
              ZY_DIFF(t, x0, f8_value(t)));
  }

  /* f20: tapes reversed in forward order. */
  double a[N][2], da[N][2], y[N], dy[N];
  Tape20 t20[N];
  for (int k = 0; k < N; k++) {
    a[k][0] = 0.2 * k + 0.1, a[k][1] = 0.5 - 0.15 * k;
    da[k][0] = da[k][1] = 0;
    y[k] = 1, dy[k] = 1;
    t20[k] = __enzyme_augmentfwd20((void *)f20, enzyme_allocated, 20,
                                   enzyme_dup, a[k], da[k], enzyme_dup, &y[k],
                                   &dy[k]);
  }
  for (int k = 0; k < N; k++)
    __enzyme_reverse((void *)f20, enzyme_allocated, 20, enzyme_dup, a[k],
                     da[k], enzyme_dup, &y[k], &dy[k], t20[k]);
  for (int k = 0; k < N; k++) {
    double x0 = 0.2 * k + 0.1, x1 = 0.5 - 0.15 * k;
    zy_check_close("f20 primal", y[k], 1 + f20_value(x0, x1), 1e-15);
    ZY_CHECK2("f20 dx0", da[k][0], x1, ZY_DIFF(t, x0, f20_value(t, x1)));
    ZY_CHECK2("f20 dx1", da[k][1], x0 + exp(x1),
              ZY_DIFF(t, x1, f20_value(x0, t)));
  }

  /* f64: the result after the tape; the return adjoint, then the tape. */
  double v[6] = {0.3, -1.2, 0.8, 2.1, 0.45, -0.6}, dv[6] = {0}, c = 1.7;
  Aug64 r = __enzyme_augmentfwd64((void *)f64, enzyme_allocated, sizeof(Tape64),
                                  enzyme_dup, v, dv, enzyme_const, c);
  zy_check_close("f64 primal", r.y, f64(v, c), 1e-15);
  double dc = __enzyme_reverse_d((void *)f64, enzyme_allocated, sizeof(Tape64),
                                 enzyme_dup, v, dv, enzyme_const, c, 2.0,
                                 r.tape);
  (void)dc;
  double w[6] = {0};
  __enzyme_autodiff((void *)f64, enzyme_dup, v, w, enzyme_const, c);
  for (int k = 0; k < 6; k++) {
    double want = 2 * w[k];
    zy_check_close("f64 dv vs autodiff", dv[k], want, ZY_TOL);
    double vk = v[k];
    double fd = ZY_DIFF(t, vk, (v[k] = t, f64(v, c)));
    v[k] = vk;
    zy_check_close("f64 dv vs finite diff", dv[k], 2 * fd, ZY_FD_TOL);
  }
  /* enzyme_noret: the declared type is the tape alone. */
  double dv2[6] = {0};
  Tape64 t64 = __enzyme_augmentfwd64_noret(
      (void *)f64, enzyme_allocated, 64, enzyme_noret, enzyme_dup, v, dv2,
      enzyme_const, c);
  __enzyme_reverse_d((void *)f64, enzyme_allocated, 64, enzyme_dup, v, dv2,
                     enzyme_const, c, 1.0, t64);
  for (int k = 0; k < 6; k++)
    zy_check_close("f64 noret dv", dv2[k], w[k], ZY_TOL);
  /* h: the custom pair's double tape, inline. */
  Aug8 ah = __enzyme_augmentfwd_h((void *)h, enzyme_allocated, 8, 0.7);
  zy_check_close("h primal", ah.y, exp(0.7), 1e-15);
  double dh = __enzyme_reverse_d((void *)h, enzyme_allocated, 8, 0.7, 3.0,
                                 ah.tape);
  zy_check_close("h custom gradient (tape inline)", dh,
                 3 * (0.7 + (double)(float)0.7), ZY_TOL);
  return zy_report();
}
