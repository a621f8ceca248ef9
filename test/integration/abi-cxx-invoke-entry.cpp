// In C++, a call to an entry point in the scope of an object with a
// destructor, or in a try block, is an `invoke`; it was not recognized
// and the program failed to link.  It is lowered like a call.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lstdc++ -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lstdc++ -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O1 %s -lstdc++ -lm -o %t1 && %t1 %}
#include <cmath>
#include <cstdio>
#include <vector>

#include "check.h"

extern "C" double __enzyme_autodiff(void *, ...);
void __enzyme_autodiff(void *, std::vector<double> *, std::vector<double> *);

static double f(double x) { return std::exp(x) * x; }

/* sum of v[i]^3 */
static double cubes(const std::vector<double> &v) {
  double s = 0;
  for (double a : v)
    s += a * a * a;
  return s;
}

int main() {
  std::vector<double> keep(3, 1.0); /* a destructor in scope */
  double x = 0.4;
  zy_check_close("f' (cleanup in scope)", __enzyme_autodiff((void *)f, x),
                 std::exp(x) * (1 + x), 1e-14);
  try {
    zy_check_close("f' (in try)", __enzyme_autodiff((void *)f, -x),
                   std::exp(-x) * (1 - x), 1e-14);
  } catch (...) {
    zy_check_close("no exception", 1, 0, 0);
  }
  std::vector<double> v = {0.5, -1.5, 2.0}, dv(3, 0.0);
  __enzyme_autodiff((void *)cubes, &v, &dv);
  for (int i = 0; i < 3; i++)
    zy_check_close("d cubes", dv[i], 3 * v[i] * v[i], 1e-14);
  return zy_report() + (keep.size() != 3);
}
