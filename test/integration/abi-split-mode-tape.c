// Split mode with the tape in a caller's buffer: __enzyme_augmentsize gives
// its size in bytes (a compile-time constant: the size of a pointer), and
// `enzyme_allocated, N, enzyme_tape, buf` in both calls makes
// __enzyme_augmentfwd write the tape into buf and __enzyme_reverse read it
// from there (Enzyme's allocatedtape.c, whose buffer is 100 bytes).  The
// struct result then holds the primal result without the tape, and a
// void result drops it.  Buffers are also kept per iteration of a loop.
// Checked against __enzyme_autodiff and finite differences.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
#include "fd.h"

#include <stddef.h>

int enzyme_dup, enzyme_const, enzyme_allocated, enzyme_tape;

size_t __enzyme_augmentsize(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
double __enzyme_augmentfwd_d(void *, ...);
void __enzyme_augmentfwd_v(void *, ...);
void __enzyme_reverse(void *, ...);
double __enzyme_reverse_d(void *, ...);
void __enzyme_autodiff(void *, ...);
typedef struct { double dx, dy; } G2;
G2 __enzyme_reverse_2(void *, ...);
double __enzyme_autodiff_d(void *, ...);

#define TAPE_SIZE 100

/* jac(f)(x) is [1 2*x1; 0 -1] (Enzyme's allocatedtape.c) */
void f(double *x) {
  x[0] += x[1] * x[1];
  x[1] = -x[1];
}

static void f_aug(double *x, double *x_b, void *tape) {
  __enzyme_augmentfwd((void *)f, enzyme_dup, x, x_b, enzyme_allocated,
                      TAPE_SIZE, enzyme_tape, tape);
}

static void f_rev(double *x, double *x_b, void *tape) {
  __enzyme_reverse((void *)f, enzyme_dup, x, x_b, enzyme_allocated, TAPE_SIZE,
                   enzyme_tape, tape);
}

double g(double x, double y) { return exp(x * y) * cos(x) + y; }

int main(void) {
  size_t size = __enzyme_augmentsize((void *)g, enzyme_const);
  zy_check_close("augmentsize", (double)size, (double)sizeof(void *), 0);
  zy_check_close("augmentsize f",
                 (double)__enzyme_augmentsize((void *)f, enzyme_dup),
                 (double)sizeof(void *), 0);

  double x0 = 1.2, x1 = 3.4, x0_b = 5.6, x1_b = 7.8;
  double x[2] = {x0, x1}, x_b[2] = {x0_b, x1_b};
  char tape[TAPE_SIZE];
  f_aug(x, x_b, tape);
  f_rev(x, x_b, tape);
  zy_check_close("allocated f x0", x[0], x0 + x1 * x1, 1e-15);
  zy_check_close("allocated f x1", x[1], -x1, 1e-15);
  zy_check_close("allocated f dx0", x_b[0], x0_b, 1e-15);
  zy_check_close("allocated f dx1", x_b[1], x0_b * 2 * x1 - x1_b, 1e-15);

  /* One buffer of exactly augmentsize bytes per iteration; the struct
   * result (declared double) is the primal result alone.  The buffers
   * are offset by one byte to be misaligned. */
  enum { N = 5 };
  char raw[N * 8 + 1];
  char *bufs = raw + 1;
  double xs[N], ys[N];
  for (int k = 0; k < N; k++) {
    xs[k] = 0.2 * k - 0.3;
    double v = __enzyme_augmentfwd_d((void *)g, xs[k], enzyme_const, 0.7,
                                     enzyme_allocated, sizeof(void *),
                                     enzyme_tape, bufs + k * size);
    zy_check_close("g primal", v, g(xs[k], 0.7), 1e-15);
  }
  for (int k = N; k-- > 0;)
    ys[k] = __enzyme_reverse_d((void *)g, xs[k], enzyme_const, 0.7, 1.0,
                               enzyme_tape, bufs + k * size);
  for (int k = 0; k < N; k++)
    ZY_CHECK2("g dx", ys[k],
              __enzyme_autodiff_d((void *)g, xs[k], enzyme_const, 0.7),
              ZY_DIFF(t, xs[k], g(t, 0.7)));

  /* Declared void: the primal result is dropped, the tape is in buf. */
  void *buf[1];
  __enzyme_augmentfwd_v((void *)g, 0.4, 1.1, enzyme_tape, buf);
  G2 d = __enzyme_reverse_2((void *)g, 0.4, 1.1, 1.0, enzyme_tape, buf);
  ZY_CHECK2("g void dx", d.dx, __enzyme_autodiff_d((void *)g, 0.4,
                                                   enzyme_const, 1.1),
            ZY_DIFF(t, 0.4, g(t, 1.1)));
  ZY_CHECK2("g void dy", d.dy, __enzyme_autodiff_d((void *)g, enzyme_const,
                                                   0.4, 1.1),
            ZY_DIFF(t, 1.1, g(0.4, t)));
  return zy_report();
}
