// C++: operator new in the scope of an object with a destructor is an
// `invoke` (it may throw bad_alloc).  Its memory got no shadow, and the
// active values stored there were refused; the allocation is now
// differentiated as a call (if it fails, the program ends instead of
// running the cleanups).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lstdc++ -lm -o %t0 && %valgrind %t0
// RUN: %clang -O2 %s -lstdc++ -lm -o %t2 && %valgrind %t2
// RUN: %if !quick %{ %clang -O1 %s -lstdc++ -lm -o %t1 && %t1 %}
#include <cmath>
#include <cstdio>

#include "check.h"

extern "C" void __enzyme_autodiff(void *, ...);

static int cleanups;
struct Guard {
  ~Guard() { ++cleanups; }
};

/* sum_i sin(x_i)^2 x_i, through a heap temporary */
double f(const double *x, int n) {
  Guard g;
  double *t = new double[n];
  for (int i = 0; i < n; i++)
    t[i] = std::sin(x[i]) * std::sin(x[i]);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += t[i] * x[i];
  delete[] t;
  return s;
}

int main() {
  double x[3] = {0.3, -1.2, 2.5}, dx[3] = {0, 0, 0};
  extern int enzyme_const;
  __enzyme_autodiff((void *)f, x, dx, enzyme_const, 3);
  for (int i = 0; i < 3; i++) {
    double s = std::sin(x[i]), c = std::cos(x[i]);
    zy_check_close("dx", dx[i], 2 * s * c * x[i] + s * s, 1e-14);
  }
  zy_check_close("cleanups", cleanups, 1, 0);
  return zy_report();
}
int enzyme_const;
