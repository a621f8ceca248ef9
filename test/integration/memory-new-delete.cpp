// C++ heap memory: operator new[]/delete[] and new/delete temporaries get
// zeroed shadows that the gradient frees (checked under valgrind).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lstdc++ -lm -o %t0 && %valgrind %t0
// RUN: %clang -O2 %s -lstdc++ -lm -o %t2 && %valgrind %t2
#include <cmath>
#include <cstdio>

extern "C" void __enzyme_autodiff(void *, ...);

struct Pair {
  double a, b;
};

double f(const double *x) {
  double *t = new double[2];
  t[0] = x[0] * x[1];
  t[1] = std::sin(t[0]);
  Pair *p = new Pair{t[1], x[0]};
  double r = p->a * p->b;
  delete p;
  delete[] t;
  return r;
}

int main() {
  double x[2] = {0.7, 1.3}, dx[2] = {0, 0};
  __enzyme_autodiff((void *)f, x, dx);
  // r = sin(x0 x1) x0
  double u = x[0] * x[1];
  double w0 = std::cos(u) * x[1] * x[0] + std::sin(u), w1 = std::cos(u) * x[0] * x[0];
  int bad = std::fabs(dx[0] - w0) > 1e-12 || std::fabs(dx[1] - w1) > 1e-12;
  std::printf("%s dx = %.15g %.15g, want %.15g %.15g\n", bad ? "FAIL" : "ok", dx[0], dx[1], w0, w1);
  return bad;
}
