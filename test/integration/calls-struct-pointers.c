// Calls of functions (not inlined) that return a small struct of pointers
// by value, in registers ({ptr, ptr}, {ptr, double}, {ptr, i64}): the
// pointers taken out of the returned struct get their shadows from the
// callee's struct of shadows, in reverse mode (the augmented forward
// returns it beside the result) and in forward mode (the tangent function
// returns it).  Before, the struct had no shadow, its pointers none
// either, and the gradient and the tangent through them were silently
// zero.  Cases: views into the argument, a view with a scale, a heap
// block the callee allocates and the caller fills, a view in a loop (the
// shadow struct cached per iteration), a struct built from a constant
// table and the argument (forward mode reads the table's shadow as
// tangents: it must be zeros, not the shadow the gradient, run first, adds
// the adjoints of the table's loads to; at -O0 it was that one, and the
// tangent 0.97 for -0.14).  Gradients and tangents against central
// differences; the primal against a plain evaluation computed apart.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
#include "fd.h"

#include <stdlib.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

#define N 6

typedef struct {
  double *a, *b;
} Two;
typedef struct {
  double *p;
  double scale;
} Scaled;
typedef struct {
  double *p;
  long n;
} Span;

__attribute__((noinline)) Two halves(double *x, int n) {
  Two t = {x, x + n / 2};
  return t;
}
__attribute__((noinline)) Scaled scaled(double *x, int k) {
  Scaled s = {x + k, x[k] * x[k]};
  return s;
}
__attribute__((noinline)) Span block(int n) {
  Span s = {malloc(n * sizeof(double)), n};
  return s;
}
static const double table[3] = {0.5, -1.25, 2.0};
typedef struct {
  const double *w;
  double *x;
} Weighted;
__attribute__((noinline)) Weighted weighted(double *x) {
  Weighted r = {table, x + 1};
  return r;
}

double views(double *x) {
  Two t = halves(x, N);
  double s = 0;
  for (int i = 0; i < N / 2; i++)
    s += t.a[i] * sin(t.b[i]);
  return s;
}
double scale(double *x) {
  Scaled s = scaled(x, 2);
  return s.scale * s.p[1] + s.p[0] * s.p[2];
}
double heap(double *x) {
  Span s = block(N);
  for (long i = 0; i < s.n; i++)
    s.p[i] = x[i] * x[(i + 1) % N];
  double r = 0;
  for (long i = 0; i < s.n; i++)
    r += exp(0.3 * s.p[i]);
  free(s.p);
  return r;
}
double looped(double *x) {
  double r = 0;
  for (int k = 0; k < 3; k++) {
    Scaled s = scaled(x, k);
    r += s.scale * cos(s.p[1]) + s.p[2] * s.p[0];
  }
  return r;
}
double weights(double *x) {
  Weighted r = weighted(x);
  double s = 0;
  for (int i = 0; i < 3; i++)
    s += r.w[i] * r.x[i] * r.x[i];
  return s;
}

/* the same objectives evaluated without the calls, for the primal */
static double views_plain(const double *x) {
  double s = 0;
  for (int i = 0; i < N / 2; i++)
    s += x[i] * sin(x[i + N / 2]);
  return s;
}

#include "check-modes.h"

MODES(views)
MODES(scale)
MODES(heap)
MODES(looped)
MODES(weights)

int main(void) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.4 + 0.3 * i - 0.05 * i * i;
  zy_check_close("views primal", views(x), views_plain(x), 1e-15);
  check("views", views, grad_views, tan_views, x);
  check("scale", scale, grad_scale, tan_scale, x);
  check("heap", heap, grad_heap, tan_heap, x);
  check("looped", looped, grad_looped, tan_looped, x);
  check("weights", weights, grad_weights, tan_weights, x);
  return zy_report();
}
