// Custom gradients registered as Enzyme programs do
// (`void *__enzyme_register_gradient_f[3] = {f, aug, rev}`): the engine
// calls the user's pair, never differentiates f's body.  Each pair below
// computes a gradient that differs from the derivative of the body (a
// smooth surrogate, a scaled one), so using the body would fail the
// checks; the pairs also count their calls.  Covers scalar functions
// (aug returning nothing, the result, {tape, result}), several and float
// arguments (adjoints returned as a scalar, a struct in registers, a
// struct in memory), pointers with shadows, a heap tape, calls in a loop
// (one tape per iteration) and functions that also have callers
// differentiated through their bodies.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %valgrind %t2
#include "check.h"

#include <stdlib.h>

double __enzyme_autodiff(void *, ...);
typedef struct { double dx, dy; } G2;
G2 __enzyme_autodiff2(void *, ...);
extern int enzyme_dup, enzyme_const;

static int augs, revs;

/* 1. A step function: the body's derivative is 0; the pair gives the
 *    derivative of its smooth surrogate 1/(1 + exp(-10 x)). */
double step(double x) { return x > 0 ? 1.0 : 0.0; }
void step_aug(double x) { augs++; }
double step_rev(double x, double dret) {
  revs++;
  double e = exp(-10 * x);
  return dret * 10 * e / ((1 + e) * (1 + e));
}
void *__enzyme_register_gradient_step[3] = {(void *)step, (void *)step_aug,
                                            (void *)step_rev};
static double surrogate_d(double x) {
  double e = exp(-10 * x);
  return 10 * e / ((1 + e) * (1 + e));
}
double use_step(double x) { return x * x * step(x) + 3 * step(x * 2); }

/* 2. aug returns the result (its type is f's return type); rev scales by
 *    2 to prove it is used. */
double twice(double x) { return sin(x); }
double twice_aug(double x) {
  augs++;
  return sin(x);
}
double twice_rev(double x, double dret) {
  revs++;
  return 2 * dret * cos(x);
}
void *__enzyme_register_gradient_twice[3] = {(void *)twice, (void *)twice_aug,
                                             (void *)twice_rev};
double use_twice(double x) { return twice(x) * twice(x * x) + x; }

/* 3. Two arguments, {tape, result} from aug, a heap tape, the adjoints as
 *    a struct in registers. */
typedef struct { void *tape; double r; } AugTR;
typedef struct { double da, db; } D2;
double hyp(double a, double b) { return sqrt(a * a + b * b); }
AugTR hyp_aug(double a, double b) {
  augs++;
  double *t = malloc(sizeof *t);
  *t = sqrt(a * a + b * b);
  return (AugTR){t, *t};
}
D2 hyp_rev(double a, double b, double dret, void *tape) {
  revs++;
  double r = *(double *)tape;
  free(tape);
  return (D2){3 * dret * a / r, 3 * dret * b / r}; /* 3x the derivative */
}
void *__enzyme_register_gradient_hyp[3] = {(void *)hyp, (void *)hyp_aug,
                                           (void *)hyp_rev};
double use_hyp(double x, double y) { return hyp(x * y, y) + x; }

/* 4. Three arguments (a float among them): the adjoints come back as a
 *    struct in memory (sret); the tape is a float, boxed by Zymase.  (A
 *    struct of two fields of one type would be {result, shadow}.) */
typedef struct { double da; float db; double dc; } D3;
typedef struct { float tape; double r; } AugFR;
double tri(double a, float b, double c) { return a * b * c; }
AugFR tri_aug(double a, float b, double c) {
  augs++;
  return (AugFR){(float)(a * b), a * b * c};
}
D3 tri_rev(double a, float b, double c, double dret, float ab) {
  revs++;
  return (D3){dret * b * c, (float)(dret * a * c), 5 * dret * ab};
}
void *__enzyme_register_gradient_tri[3] = {(void *)tri, (void *)tri_aug,
                                           (void *)tri_rev};
double use_tri(double x, double y) { return tri(x, (float)y, x + y); }

/* 5. Pointers with shadows (customcombined.c of Enzyme's tests): the
 *    result goes through memory; the integer argument is passed once. */
__attribute__((noinline)) void square_n(const double *src, double *dest,
                                        int n) {
  for (int i = 0; i < n; i++)
    dest[i] = src[i] * src[i];
}
void *square_aug(const double *src, const double *d_src, double *dest,
                 double *d_dest, int n) {
  augs++;
  for (int i = 0; i < n; i++)
    dest[i] = src[i] * src[i];
  return NULL;
}
void square_rev(const double *src, double *d_src, const double *dest,
                double *d_dest, int n, void *tape) {
  revs++;
  for (int i = 0; i < n; i++) {
    d_src[i] += 7 * src[i] * d_dest[i]; /* 3.5x the derivative */
    d_dest[i] = 0;
  }
}
void *__enzyme_register_gradient_square_n[3] = {
    (void *)square_n, (void *)square_aug, (void *)square_rev};
double use_square(double *x) {
  double y[3];
  square_n(x, y, 3);
  return y[0] + 2 * y[1] + 3 * y[2];
}

/* 6. In a loop: one aug call, and one tape, per iteration. */
double loop_step(double x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += hyp(x, i + 1.0) * step(x - 0.1 * i);
  return s;
}

static void reset(void) { augs = revs = 0; }

int main(void) {
  double x = 0.3, y = 1.7;

  reset();
  double d = __enzyme_autodiff((void *)use_step, x);
  zy_check_close("step: surrogate used", d,
                 x * x * surrogate_d(x) + 2 * x * step(x) +
                     3 * 2 * surrogate_d(2 * x),
                 1e-12);
  zy_check_close("step: aug calls", augs, 2, 0);
  zy_check_close("step: rev calls", revs, 2, 0);

  reset();
  d = __enzyme_autodiff((void *)step, x);
  zy_check_close("step itself", d, surrogate_d(x), 1e-12);
  zy_check_close("step itself: rev calls", revs, 1, 0);

  reset();
  d = __enzyme_autodiff((void *)use_twice, x);
  zy_check_close("aug returns the result", d,
                 2 * cos(x) * sin(x * x) + sin(x) * 2 * cos(x * x) * 2 * x + 1,
                 1e-12);
  zy_check_close("aug returns the result: aug calls", augs, 2, 0);

  reset();
  G2 g = __enzyme_autodiff2((void *)use_hyp, x, y);
  double r = hypot(x * y, y);
  zy_check_close("{tape, result}: dx", g.dx, 3 * (x * y) / r * y + 1, 1e-12);
  zy_check_close("{tape, result}: dy", g.dy,
                 3 * ((x * y) / r * x + y / r), 1e-12);
  zy_check_close("{tape, result}: rev calls", revs, 1, 0);

  reset();
  g = __enzyme_autodiff2((void *)use_tri, x, y);
  double fy = (float)y, ab = (float)(x * fy);
  /* d/dx: dret*b*c (through a) + 5*dret*ab (through c); d/dy: float
   * adjoint of b, then c. */
  zy_check_close("sret adjoints: dx", g.dx, fy * (x + y) + 5 * ab, 1e-6);
  zy_check_close("sret adjoints: dy", g.dy, x * (x + y) + 5 * ab, 1e-6);

  reset();
  double xs[3] = {0.5, -1.25, 2.0}, dxs[3] = {0, 0, 0};
  __enzyme_autodiff((void *)use_square, xs, dxs);
  for (int i = 0; i < 3; i++) {
    char what[64];
    snprintf(what, sizeof what, "pointers: dx[%d]", i);
    zy_check_close(what, dxs[i], 3.5 * 2 * xs[i] * (i + 1), 1e-12);
  }
  zy_check_close("pointers: aug calls", augs, 1, 0);

  reset();
  d = __enzyme_autodiff((void *)loop_step, x, 5);
  double want = 0;
  for (int i = 0; i < 5; i++) {
    double ri = hypot(x, i + 1.0);
    want += 3 * x / ri * step(x - 0.1 * i) + ri * surrogate_d(x - 0.1 * i);
  }
  zy_check_close("in a loop", d, want, 1e-12);
  zy_check_close("in a loop: aug calls", augs, 10, 0);
  zy_check_close("in a loop: rev calls", revs, 10, 0);
  return zy_report();
}
