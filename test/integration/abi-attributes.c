// Enzyme's attributes through the clang plugin (clang
// -fplugin=ClangZymase-NN.so, as Enzyme users load ClangEnzyme), which
// also runs the pass: enzyme_inactive on a function and on a global, and
// enzyme_function_like("log1p") on a function whose body is a truncated
// series (its own derivative would be wrong), and the hints enzyme_nofree
// and enzyme_shouldrecompute.  function_like is also
// checked through annotate("enzyme_function_like=...") and the
// __enzyme_function_like registration global.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: clang-plugin
// RUN: %clang-plugin -O0 %s -lm -o %t0 && %t0
// RUN: %clang-plugin -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang-plugin -O1 %s -lm -o %t1 && %t1 %}
// The attributes are known to clang: no "unknown attribute" warning.
// RUN: %clang-plugin -O0 -c %s -o %t.o 2>&1 | %FileCheck %s --allow-empty --implicit-check-not=warning
#include "check.h"

double __enzyme_autodiff(void *, ...);

/* The derivative of x * scale(x) treats scale(x) as a constant. */
__attribute__((enzyme_inactive)) double scale(double x) {
  return floor(x) + x;
}
double use_scale(double x) { return x * scale(x); }

/* Memory of an inactive global carries no derivative: the value read
 * back (by a call, so that no optimization forwards the stored value) is
 * a constant. */
__attribute__((enzyme_inactive)) double cache;
__attribute__((noinline)) double read_cache(void) { return cache; }
double use_cache(double x) {
  cache = x * x;
  return read_cache() * x;
}

/* Four terms of log1p's series: its own derivative is 1 - x + x^2 - x^3,
 * log1p's is 1 / (1 + x). */
#define SERIES(x) ((x) - (x) * (x) / 2 + (x) * (x) * (x) / 3 - (x) * (x) * (x) * (x) / 4)
__attribute__((enzyme_function_like("log1p"))) double my_log1p(double x) {
  return SERIES(x);
}
__attribute__((annotate("enzyme_function_like=log1p"))) double ann_log1p(
    double x) {
  return SERIES(x);
}
double reg_log1p(double x) { return SERIES(x); }
void *__enzyme_function_like_reg[2] = {(void *)reg_log1p, (void *)"log1p"};

/* Hints: accepted, and the gradient is unchanged. */
__attribute__((enzyme_nofree, noinline)) double first(const double *p) {
  return p[0] * p[1];
}
__attribute__((enzyme_shouldrecompute, noinline)) double sq(double a) {
  return a * a;
}
double use_hints(double x) {
  double t[2] = {x, 3 * x}, s = 0;
  for (int i = 1; i < 4; i++)
    s += sq(x * i) * sq(x * i);
  return first(t) + s; /* 3 x^2 + 98 x^4 */
}

double use_like(double x) { return 3 * my_log1p(x * x); }
double use_ann(double x) { return ann_log1p(2 * x); }
double use_reg(double x) { return reg_log1p(x) * x; }

int main(void) {
  double x = 0.4;
  zy_check_close("enzyme_inactive function",
                 __enzyme_autodiff((void *)use_scale, x), scale(x), 1e-14);
  zy_check_close("enzyme_inactive global",
                 __enzyme_autodiff((void *)use_cache, x), x * x, 1e-14);
  zy_check_close("enzyme_function_like attribute",
                 __enzyme_autodiff((void *)use_like, x),
                 3 * 2 * x / (1 + x * x), 1e-14);
  zy_check_close("enzyme_function_like annotation",
                 __enzyme_autodiff((void *)use_ann, x), 2 / (1 + 2 * x),
                 1e-14);
  zy_check_close("__enzyme_function_like registration",
                 __enzyme_autodiff((void *)use_reg, x),
                 x / (1 + x) + SERIES(x), 1e-14);
  zy_check_close("enzyme_nofree, enzyme_shouldrecompute",
                 __enzyme_autodiff((void *)use_hints, x),
                 6 * x + 4 * 98 * x * x * x, 1e-13);
  return zy_report();
}
