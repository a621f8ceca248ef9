// Scalar gradients of a product with sin and of a branch, against closed forms.
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
#include "check.h"

double __enzyme_autodiff(void *, ...);
typedef struct { double dx, dy; } G2;
G2 __enzyme_autodiff2(void *, ...);

double f(double x) { return x * x * sin(x); }
double g(double x, double y) { return x > y ? x * y : exp(x) / y; }

int main(void) {
  double x = 1.5;
  zy_check_close("f", __enzyme_autodiff((void *)f, x), 2 * x * sin(x) + x * x * cos(x), 1e-12);
  G2 r = __enzyme_autodiff2((void *)g, 2.0, 3.0);
  zy_check_close("g/dx (else)", r.dx, exp(2.0) / 3, 1e-12);
  zy_check_close("g/dy (else)", r.dy, -exp(2.0) / 9, 1e-12);
  r = __enzyme_autodiff2((void *)g, 4.0, 3.0);
  zy_check_close("g/dx (then)", r.dx, 3.0, 1e-12);
  zy_check_close("g/dy (then)", r.dy, 4.0, 1e-12);
  return zy_report();
}
