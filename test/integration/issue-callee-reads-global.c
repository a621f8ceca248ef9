// Regression: a function with a body that reads a mutable global the
// differentiated code wrote (not through an argument) returns a value
// that carries a derivative.  Its result was taken as constant, and the
// gradient silently lost the path through the global (got x^2, want
// 3x^2).  Direct reads, an array element at a variable index, a read two
// calls deep, and a callee that only sometimes reads.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %valgrind %t2
#include "check.h"

double __enzyme_autodiff(void *, ...);

double cache;
double table[4];

__attribute__((noinline)) double read_cache(void) { return cache; }
__attribute__((noinline)) double read_table(int i) { return table[i]; }
__attribute__((noinline)) double deep(int i) { return 2 * read_table(i); }
__attribute__((noinline)) double maybe(int k) { return k > 0 ? cache : 1.0; }

double direct(double x) {
  cache = x * x;
  return read_cache() * x; /* x^3 */
}
double indexed(double x) {
  for (int i = 0; i < 4; i++)
    table[i] = sin(x * (i + 1));
  return read_table(2) + deep(1); /* sin(3x) + 2 sin(2x) */
}
double branch(double x, int k) {
  cache = exp(x);
  return maybe(k) * x;
}

int main(void) {
  double x = 0.7;
  zy_check_close("direct", __enzyme_autodiff((void *)direct, x), 3 * x * x,
                 1e-13);
  zy_check_close("indexed, two calls deep",
                 __enzyme_autodiff((void *)indexed, x),
                 3 * cos(3 * x) + 4 * cos(2 * x), 1e-13);
  zy_check_close("read on one path", __enzyme_autodiff((void *)branch, x, 1),
                 exp(x) * (1 + x), 1e-13);
  zy_check_close("not read on the other",
                 __enzyme_autodiff((void *)branch, x, 0), 1.0, 1e-13);
  return zy_report();
}
