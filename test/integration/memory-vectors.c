// Vector loads and stores of memory with shadows (vector_size types and
// the vector code -O2 makes of unrolled loops), with vector arithmetic.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 -march=x86-64-v3 %s -lm -o %t3 && %t3 %}
#include "check.h"

void __enzyme_autodiff(void *, ...);
double __enzyme_autodiffd(void *, ...);

typedef double v2d __attribute__((vector_size(16)));
typedef float v4f __attribute__((vector_size(16)));

/* out = x * y elementwise, then a shuffle and a reduction by hand. */
double vec(const v2d *x, const v2d *y, v2d *out) {
  v2d p = *x * *y;
  *out = p + (v2d){1, 2};
  v2d s = __builtin_shufflevector(p, p, 1, 0);
  return s[0] * 3 + s[1];
}

float vecf(const v4f *x) {
  v4f a = *x * *x;
  return a[0] + a[1] * 2 + a[2] * 3 + a[3] * 4;
}

/* Four products the SLP vectorizer may turn into vector loads/stores. */
void axpy4(double *restrict y, const double *restrict x, double a) {
  y[0] += a * x[0];
  y[1] += a * x[1];
  y[2] += a * x[2];
  y[3] += a * x[3];
}

int main(void) {
  v2d x = {1.5, -2}, y = {0.5, 3}, dx = {0, 0}, dy = {0, 0}, out,
      dout = {0.25, 0.5};
  __enzyme_autodiff((void *)vec, &x, &dx, &y, &dy, &out, &dout);
  /* r = 3 x1 y1 + x0 y0, plus the seeds of out: 0.25 x0 y0 + 0.5 x1 y1 */
  zy_check_close("vec dx0", dx[0], y[0] + 0.25 * y[0], 1e-12);
  zy_check_close("vec dx1", dx[1], 3 * y[1] + 0.5 * y[1], 1e-12);
  zy_check_close("vec dy0", dy[0], x[0] + 0.25 * x[0], 1e-12);
  zy_check_close("vec dy1", dy[1], 3 * x[1] + 0.5 * x[1], 1e-12);
  zy_check_close("vec dout consumed", dout[0] + dout[1], 0, 0);
  v4f f = {1, 2, 3, 4}, df = {0, 0, 0, 0};
  __enzyme_autodiff((void *)vecf, &f, &df);
  for (int i = 0; i < 4; i++)
    zy_check_close("vecf", df[i], 2 * f[i] * (i + 1), 1e-6);
  double ys[4] = {1, 2, 3, 4}, dys[4] = {1, 1, 1, 1}, xs[4] = {5, 6, 7, 8},
         dxs[4] = {0};
  double a = 0.5;
  double da = __enzyme_autodiffd((void *)axpy4, ys, dys, xs, dxs, a);
  zy_check_close("axpy da", da, 5 + 6 + 7 + 8, 1e-12);
  for (int i = 0; i < 4; i++) {
    zy_check_close("axpy dx", dxs[i], a, 1e-12);
    zy_check_close("axpy dy (kept)", dys[i], 1, 1e-12);
  }
  return zy_report();
}
