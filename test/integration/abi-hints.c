// Enzyme's hints: enzyme_shouldrecompute (a call in a loop whose result
// the reverse sweep needs is made again instead of cached, shown by the
// cache report) and enzyme_nofree (the function frees no memory), through
// __enzyme_shouldrecompute / __enzyme_nofree registration globals and
// annotate(...); the gradients are checked against closed forms.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 -Xclang -load -Xclang %plugin -mllvm -zymase-print-cache 2>%t0.cache && %t0 && %FileCheck %s < %t0.cache
// RUN: %clang -O2 %s -lm -o %t2 -Xclang -load -Xclang %plugin -mllvm -zymase-print-cache 2>%t2.cache && %t2 && %FileCheck %s < %t2.cache
// RUN: %valgrind %t2
// Without the hints the calls' results are cached per iteration:
// RUN: sed -e 's/__enzyme_shouldrecompute_/unused_/' -e 's/annotate("enzyme_shouldrecompute")/annotate("other")/' %s > %t.nohint.c
// RUN: %clang -O2 -I%S %t.nohint.c -lm -o %t3 -Xclang -load -Xclang %plugin -mllvm -zymase-print-cache 2>&1 | %FileCheck %s --check-prefix=NOHINT
// CHECK-LABEL: cache of the gradient of 'by_global'
// CHECK: call: double, 8 bytes, recomputed
// CHECK-LABEL: cache of the gradient of 'by_annotation'
// CHECK: call: double, 8 bytes, recomputed
// NOHINT-LABEL: cache of the gradient of 'by_global'
// NOHINT: call: double, 8 bytes, per iteration of loop
// NOHINT-LABEL: cache of the gradient of 'by_annotation'
// NOHINT: call: double, 8 bytes, per iteration of loop
#include "check.h"

#include <stdlib.h>

double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double heavy(double a) { return exp(sin(a)); }
void *__enzyme_shouldrecompute_heavy[] = {(void *)heavy};

__attribute__((noinline, annotate("enzyme_shouldrecompute"))) double
light(double a) {
  return a / (1 + a * a);
}

/* sum_i heavy(x i)^2 x: the reverse needs heavy(x i) in every iteration. */
double by_global(double x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double h = heavy(x * i);
    s += h * h * x;
  }
  return s;
}

double by_annotation(double x, int n) {
  double s = 0;
  for (int i = 1; i <= n; i++) {
    double l = light(x * i);
    s += l * l;
  }
  return s;
}

/* A helper that frees nothing, registered so; the caller frees. */
__attribute__((noinline, annotate("enzyme_nofree"))) double
total(const double *p, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += p[i] * p[i];
  return s;
}
__attribute__((noinline)) double scale(const double *p) { return p[0]; }
void *__enzyme_nofree_scale[] = {(void *)scale};

double with_nofree(double x, int n) {
  double *t = malloc(n * sizeof *t);
  for (int i = 0; i < n; i++)
    t[i] = x * (i + 1);
  double s = total(t, n) * scale(t);
  free(t);
  return s;
}

int main(void) {
  double x = 0.7;
  int n = 5;
  double want = 0;
  for (int i = 0; i < n; i++) {
    double h = exp(sin(x * i)), dh = h * cos(x * i) * i;
    want += 2 * h * dh * x + h * h;
  }
  zy_check_close("shouldrecompute (global)",
                 __enzyme_autodiff((void *)by_global, x, n), want, 1e-12);
  want = 0;
  for (int i = 1; i <= n; i++) {
    double a = x * i, l = a / (1 + a * a);
    double dl = (1 - a * a) / ((1 + a * a) * (1 + a * a)) * i;
    want += 2 * l * dl;
  }
  zy_check_close("shouldrecompute (annotation)",
                 __enzyme_autodiff((void *)by_annotation, x, n), want, 1e-12);
  /* total = x^2 sum (i+1)^2, scale = x: d/dx (x^3 S) = 3 x^2 S */
  double S = 0;
  for (int i = 0; i < n; i++)
    S += (i + 1) * (i + 1);
  zy_check_close("nofree", __enzyme_autodiff((void *)with_nofree, x, n),
                 3 * x * x * S, 1e-12);
  return zy_report();
}
