// A function's address stored into memory that has a shadow, as a struct
// with a callback beside its doubles (what std::function's constructor
// does at -O0): the shadow of the stored pointer is the function itself,
// as in a constant table of pointers.  Before, reverse mode refused it
// ("a pointer without a shadow is stored to memory that has one") and
// forward mode stopped on an internal error (shadow.c: sv && sp) after
// clang had been told nothing.  Cases: a noinline initializer storing the
// callback and a value, read by another noinline function; an array of
// such structs filled in a loop by two initializers, the callback
// compared and the function called directly.  (A function pointer
// passed as an argument and stored is still refused: it has no shadow.)  Gradients and tangents against
// central differences; the primal against a plain evaluation.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
#include "fd.h"

#include <string.h>

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup;

#define N 6

static double square(double t) { return t * t; }
static double cube(double t) { return t * t * t; }

typedef struct {
  double (*f)(double);
  double v;
} Op;

__attribute__((noinline)) void init_cube(Op *o, double v) {
  o->f = cube;
  o->v = v;
}
__attribute__((noinline)) void init_square(Op *o, double v) {
  o->f = square;
  o->v = v;
}
__attribute__((noinline)) double apply(const Op *o, double t) {
  return o->f == square ? square(o->v * t) : cube(o->v * t);
}

double one(double *x) {
  Op o;
  init_square(&o, x[0] * x[1]);
  return o.v * sin(o.v) + apply(&o, x[2]);
}
double table(double *x) {
  Op ops[N];
  for (int i = 0; i < N; i++)
    if (i % 2)
      init_cube(&ops[i], x[i]);
    else
      init_square(&ops[i], x[i]);
  double s = 0;
  for (int i = 0; i < N; i++)
    s += apply(&ops[i], x[(i + 1) % N]);
  return s;
}

static double table_plain(const double *x) {
  double s = 0;
  for (int i = 0; i < N; i++) {
    double t = x[i] * x[(i + 1) % N];
    s += i % 2 ? t * t * t : t * t;
  }
  return s;
}

#include "check-modes.h"
MODES(one)
MODES(table)

int main(void) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.4 + 0.3 * i - 0.05 * i * i;
  zy_check_close("table primal", table(x), table_plain(x), 1e-14);
  check("one", one, grad_one, tan_one, x);
  check("table", table, grad_table, tan_table, x);
  return zy_report();
}
