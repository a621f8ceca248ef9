// Forward mode (__enzyme_fwddiff) on scalar functions, with Enzyme's
// conventions: a double argument is followed by its tangent unless marked
// enzyme_const, the call returns the tangent of the result, and with
// enzyme_primal_return the struct { result, tangent }.  Arithmetic, casts,
// selects, a loop, recursion, a call that is not inlined, and the math
// functions sin, cos, exp, log, pow, sqrt, fabs, atan2, fmod, against
// closed forms and central finite differences.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 -fno-math-errno %s -lm -o %t3 && %t3
#include "fd.h"

double __enzyme_fwddiff(void *, ...);
float __enzyme_fwddifff(void *, ...);
typedef struct {
  double y, dy;
} Dual;
Dual __enzyme_fwddiff_primal(void *, ...);
extern int enzyme_const, enzyme_dup, enzyme_primal_return;

#define NOINLINE __attribute__((noinline))

double binops(double x1, double x2) { return x1 * x2 + 1.0 / x1 - x2 / 3; }

double math(double x, double y) {
  return sin(x) * cos(y) + exp(x * y) - log(x + 2 * y) + pow(x, y) +
         sqrt(x * x + y) + fabs(x - y) + atan2(y, x) + fmod(x * 5, y);
}

double mixed(double x, int n) {
  float f = (float)x; /* a tangent through fptrunc and fpext */
  double s = x > 1 ? x * x : -x;
  return (double)(f * f) + s * n + (double)n;
}

double loop(double x, int n) {
  double acc = 1;
  for (int i = 0; i < n; i++)
    acc = acc * x + sin(acc) / (i + 1);
  return acc;
}

NOINLINE double helper(double a, double b) { return a * exp(b) + b * b; }
double calls(double x, double y) { return helper(x, y) * helper(y, x) + x; }

double power(double x, int n) {
  if (n == 0)
    return 1;
  return x * power(x, n - 1);
}
double recursion(double x) { return power(x, 5) + power(sin(x), 3); }

float single(float x) { return sinf(x) * x + expf(-x); }

double pick(double a, double b) { return a < b ? b * b : a; }

int main(void) {
  double x = 1.3, y = 0.7;
  /* binops: d/dx1 = x2 - 1/x1^2, d/dx2 = x1 - 1/3 */
  zy_check_close("binops dx", __enzyme_fwddiff((void *)binops, x, 1.0, y, 0.0),
                 y - 1 / (x * x), 1e-12);
  zy_check_close("binops dy",
                 __enzyme_fwddiff((void *)binops, enzyme_const, x, y, 1.0),
                 x - 1.0 / 3, 1e-12);
  zy_check_close("binops dir",
                 __enzyme_fwddiff((void *)binops, x, 0.5, y, -2.0),
                 0.5 * (y - 1 / (x * x)) - 2 * (x - 1.0 / 3), 1e-12);
  Dual d = __enzyme_fwddiff_primal((void *)binops, enzyme_primal_return, x,
                                   1.0, y, 0.0);
  zy_check_close("primal_return y", d.y, binops(x, y), 1e-15);
  zy_check_close("primal_return dy", d.dy, y - 1 / (x * x), 1e-12);

  zy_check_close("math dx", __enzyme_fwddiff((void *)math, x, 1.0, y, 0.0),
                 ZY_DIFF(t, x, math(t, y)), 1e-8);
  zy_check_close("math dy", __enzyme_fwddiff((void *)math, x, 0.0, y, 1.0),
                 ZY_DIFF(t, y, math(x, t)), 1e-8);
  zy_check_close("mixed", __enzyme_fwddiff((void *)mixed, x, 1.0, 3),
                 2 * (double)(float)x + 3 * 2 * x, 1e-6);
  zy_check_close("mixed below", __enzyme_fwddiff((void *)mixed, 0.5, 1.0, 3),
                 2 * 0.5 - 3, 1e-6);
  zy_check_close("loop", __enzyme_fwddiff((void *)loop, 0.9, 1.0, 12),
                 ZY_DIFF(t, 0.9, loop(t, 12)), 1e-8);
  zy_check_close("calls dx", __enzyme_fwddiff((void *)calls, x, 1.0, y, 0.0),
                 ZY_DIFF(t, x, calls(t, y)), 1e-8);
  zy_check_close("calls dy", __enzyme_fwddiff((void *)calls, x, 0.0, y, 1.0),
                 ZY_DIFF(t, y, calls(x, t)), 1e-8);
  zy_check_close("recursion", __enzyme_fwddiff((void *)recursion, x, 1.0),
                 5 * pow(x, 4) + 3 * pow(sin(x), 2) * cos(x), 1e-12);
  zy_check_close("float",
                 __enzyme_fwddifff((void *)single, 0.8f, 1.0f),
                 cos(0.8) * 0.8 + sin(0.8) - exp(-0.8), 1e-5);
  zy_check_close("select a", __enzyme_fwddiff((void *)pick, 2.0, 1.0, 1.0, 0.0),
                 1, 1e-15);
  zy_check_close("select b", __enzyme_fwddiff((void *)pick, 1.0, 0.0, 2.0, 1.0),
                 4, 1e-15);
  return zy_report();
}
