// Regression: a function with a body that overwrites a mutable global's
// floats, called with no argument or result that carries a derivative,
// was called as plain code: its reverse did not clear the global's
// derivative, which then flowed on into the value the call overwrote
// (d/dx of x^3 + x came out 3x^2 + 1 + 2x^2); forward mode kept the old
// tangent the same way.  A store of a constant, a loop of stores, a
// scaling in place, a memset and a memcpy from a constant table, a write
// two calls deep, recursion, and a write through a global pointer to a
// buffer (the shadow registered).  Primal values
// are checked against the same expressions written without the globals.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %valgrind %t2
#include "check.h"

#include <string.h>

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

double g;
double v[3];
int calls;   /* an integer global: writing it needs no reverse */
double *buf; /* a global pointer to a buffer, and its shadow */
double buf_storage[2], dbuf_storage[2];
double *dbuf = dbuf_storage;
void *__enzyme_shadow_global_buf[] = {&buf, &dbuf};
static const double init[3] = {1.0, 2.0, 3.0};

__attribute__((noinline)) void reset(void) { g = 1.0; }
__attribute__((noinline)) void count_up(int n) {
  for (int i = 0; i < n; i++)
    g = (double)i;
}
__attribute__((noinline)) void twice(void) { g *= 2; }
__attribute__((noinline)) void clear_v(void) { memset(v, 0, sizeof v); }
__attribute__((noinline)) void load_v(void) { memcpy(v, init, sizeof v); }
__attribute__((noinline)) void outer(void) {
  calls++;
  reset();
}
__attribute__((noinline)) void down(int n) {
  if (n > 0)
    down(n - 1);
  else
    g = 0.5;
}
__attribute__((noinline)) void tick(void) { calls++; }
__attribute__((noinline)) void reset_buf(void) { buf[1] = 1.0; }

double f_reset(double x) {
  g = x * x;
  double a = g * x;
  reset();
  return a + g * x; /* x^3 + x */
}
double f_loop(double x) {
  g = x * x;
  double a = g * x;
  count_up(3);
  return a + g * x; /* x^3 + 2x */
}
double f_twice(double x) {
  g = x * x;
  twice();
  return g * x; /* 2x^3 */
}
double f_memset(double x) {
  for (int i = 0; i < 3; i++)
    v[i] = sin(x * (i + 1));
  double a = v[0] + v[2];
  clear_v();
  v[1] += x;
  return a + v[0] + v[1] * x; /* sin(x) + sin(3x) + x^2 */
}
double f_memcpy(double x) {
  for (int i = 0; i < 3; i++)
    v[i] = exp(x * i);
  double a = v[1];
  load_v();
  return a + v[2] * x; /* e^x + 3x */
}
double f_deep(double x) {
  g = sin(x);
  double a = g;
  outer();
  return a * g + x * g; /* sin(x) + x */
}
double f_rec(double x) {
  g = x * x * x;
  double a = g;
  down(3);
  return a + g * x; /* x^3 + x/2 */
}
double f_tick(double x) {
  g = x * x;
  tick();
  return g * x; /* x^3 */
}
double f_buf(double x) {
  buf[1] = x * x;
  double a = buf[1] * x;
  reset_buf();
  return a + buf[1] * x; /* x^3 + x, through the pointer */
}

int main(void) {
  double x = 0.7;
  buf = buf_storage;
  /* The primals, each beside the expression it computes. */
  zy_check_close("primal reset", f_reset(x), x * x * x + x, 1e-15);
  zy_check_close("primal loop", f_loop(x), x * x * x + 2 * x, 1e-15);
  zy_check_close("primal twice", f_twice(x), 2 * x * x * x, 1e-15);
  zy_check_close("primal memset", f_memset(x), sin(x) + sin(3 * x) + x * x,
                 1e-15);
  zy_check_close("primal memcpy", f_memcpy(x), exp(x) + 3 * x, 1e-15);
  zy_check_close("primal deep", f_deep(x), sin(x) + x, 1e-15);
  zy_check_close("primal recursion", f_rec(x), x * x * x + x / 2, 1e-15);
  zy_check_close("primal int global", f_tick(x), x * x * x, 1e-15);
  zy_check_close("primal through a pointer", f_buf(x), x * x * x + x, 1e-15);

  zy_check_close("store of a constant", __enzyme_autodiff((void *)f_reset, x),
                 3 * x * x + 1, 1e-13);
  zy_check_close("stores in a loop", __enzyme_autodiff((void *)f_loop, x),
                 3 * x * x + 2, 1e-13);
  zy_check_close("scaled in place", __enzyme_autodiff((void *)f_twice, x),
                 6 * x * x, 1e-13);
  zy_check_close("memset", __enzyme_autodiff((void *)f_memset, x),
                 cos(x) + 3 * cos(3 * x) + 2 * x, 1e-13);
  zy_check_close("memcpy from a constant table",
                 __enzyme_autodiff((void *)f_memcpy, x), exp(x) + 3, 1e-13);
  zy_check_close("two calls deep", __enzyme_autodiff((void *)f_deep, x),
                 cos(x) + 1, 1e-13);
  zy_check_close("recursion", __enzyme_autodiff((void *)f_rec, x),
                 3 * x * x + 0.5, 1e-13);
  zy_check_close("an integer global", __enzyme_autodiff((void *)f_tick, x),
                 3 * x * x, 1e-13);
  zy_check_close("through a global pointer",
                 __enzyme_autodiff((void *)f_buf, x), 3 * x * x + 1, 1e-13);
  /* And against central differences. */
#define FD(f)                                                                  \
  zy_check_close("finite differences " #f, __enzyme_autodiff((void *)f, x),    \
                 ZY_FD1(f, x, 1e-6), 1e-7)
  FD(f_reset);
  FD(f_loop);
  FD(f_twice);
  FD(f_memset);
  FD(f_memcpy);
  FD(f_deep);
  FD(f_rec);
  FD(f_tick);
  FD(f_buf);
  /* Forward mode: the tangent along 1, the same derivative.  Last: it
   * leaves tangents in the globals' shadows, where a gradient would take
   * them for adjoints (as with Enzyme, a shadow global is the user's). */
#define FWD(f, want)                                                           \
  zy_check_close("forward " #f, __enzyme_fwddiff((void *)f, x, 1.0), want,     \
                 1e-13)
  FWD(f_reset, 3 * x * x + 1);
  FWD(f_loop, 3 * x * x + 2);
  FWD(f_twice, 6 * x * x);
  FWD(f_memset, cos(x) + 3 * cos(3 * x) + 2 * x);
  FWD(f_memcpy, exp(x) + 3);
  FWD(f_deep, cos(x) + 1);
  FWD(f_rec, 3 * x * x + 0.5);
  FWD(f_tick, 3 * x * x);
  FWD(f_buf, 3 * x * x + 1);
  return zy_report();
}
