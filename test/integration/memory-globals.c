// Mutable globals carry derivatives through shadow globals (made by
// Zymase, or supplied in __enzyme_shadow_global pairs); constant globals
// are inactive; globals listed in __enzyme_inactive_global drop
// derivatives on purpose; functions listed in __enzyme_inactivefn or
// annotated enzyme_inactive stay in the forward sweep only.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
#include "fd.h"

double __enzyme_autodiff(void *, ...);

double scale = 2.0;                 /* active: a shadow global is made */
double buf[3];                      /* scratch in global memory        */
const double table[2] = {3.0, 4.0}; /* read-only: inactive             */
double weight, dweight;             /* shadow supplied by the user     */
void *__enzyme_shadow_global[] = {&weight, &dweight};
double trace;                       /* marked inactive                 */
void *__enzyme_inactive_global[] = {&trace};
static int logged;
double log_value(double v) { logged++; return v; }
void *__enzyme_inactivefn[] = {(void *)log_value};
__attribute__((annotate("enzyme_inactive"))) double note(double v) {
  logged++;
  return 2 * v;
}

double f(double x) {
  buf[1] = x * scale;
  buf[2] = buf[1] * table[1];
  trace = buf[2];
  log_value(x);
  note(x);
  return buf[2] * buf[1] + weight * sin(x);
}

int main(void) {
  static const double xs[] = {1.5, -0.7};
  for (int i = 0; i < 2; i++) {
    double x = xs[i];
    weight = 5;
    dweight = 0;
    /* f = 4 (x s)^2 + w sin x with s = 2 */
    double d = __enzyme_autodiff((void *)f, x);
    zy_check_close("df/dx", d, 8 * x * 4 + 5 * cos(x), 1e-12);
    zy_check_close("df/dweight (user shadow)", dweight, sin(x), 1e-12);
    zy_check_close("df/dx (finite diff)", d, ZY_DIFF(t, x, f(t)), 1e-7);
  }
  zy_check_close("inactive functions ran in the forward only", logged,
                 2 * 2 + 2 * 4 * 2, 0); /* + 4 calls per finite diff */
  return zy_report();
}
