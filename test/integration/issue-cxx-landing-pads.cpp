// C++ code with cleanups (a destructor) and a try/catch around calls
// that may throw: the gradient copies the landing pads, so it needs the
// primal's personality function (clang crashed on the invalid IR).  Calls
// that may throw and carry no derivative are copied as they are; one that
// carries a derivative is refused (errors/cxx-invoke-active.cpp).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lstdc++ -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lstdc++ -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O1 %s -lstdc++ -lm -o %t1 && %t1 %}
#include <cmath>
#include <cstdio>

#include "check.h"

extern "C" void __enzyme_autodiff(void *, ...);
extern "C" double __enzyme_autodiff_d(void *, ...);

static int logged, guarded;

/* May throw; reads and writes no float memory. */
__attribute__((noinline)) void note(int k) {
  if (k < 0)
    throw k;
  logged += k;
}

struct Guard {
  ~Guard() { ++guarded; }
};

/* x[0] <- x[0]^2 sin(x[1]), x[1] <- x[1] exp(x[0]) */
void f(double *x) {
  Guard g;
  note(1);
  double a = x[0] * x[0] * std::sin(x[1]);
  note(2);
  x[1] = x[1] * std::exp(x[0]);
  x[0] = a;
}

double h(double x) {
  double r = 0;
  try {
    note(3);
    r = x * std::cos(x);
  } catch (int) {
    r = -1;
  }
  Guard g;
  note(4);
  return r * r;
}

int main() {
  double x0 = 0.6, x1 = -0.3;
  /* Reverse of f with seed (s0, s1): dx0 = s0 2 x0 sin x1 + s1 x1 exp x0,
   * dx1 = s0 x0^2 cos x1 + s1 exp x0 */
  double x[2] = {x0, x1}, dx[2] = {1.5, -2.0};
  __enzyme_autodiff((void *)f, x, dx);
  zy_check_close("dx0", dx[0],
                 1.5 * 2 * x0 * std::sin(x1) - 2.0 * x1 * std::exp(x0), 1e-14);
  zy_check_close("dx1", dx[1],
                 1.5 * x0 * x0 * std::cos(x1) - 2.0 * std::exp(x0), 1e-14);
  zy_check_close("f primal", x[0], x0 * x0 * std::sin(x1), 1e-15);
  double y = 0.8, r = y * std::cos(y);
  zy_check_close("h'", __enzyme_autodiff_d((void *)h, y),
                 2 * r * (std::cos(y) - y * std::sin(y)), 1e-14);
  zy_check_close("side effects ran", logged, 3 + 7, 0);
  zy_check_close("destructors ran", guarded, 2, 0);
  return zy_report();
}
