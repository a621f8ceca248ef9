/* app.c - a user's program: gradients through __enzyme_autodiff, checked
 * against central finite differences; exits non-zero on a mismatch.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#define ZYMASE_DEFINE_MARKERS
#include <math.h>
#include <stdio.h>
#include <zymase/enzyme.h>

typedef struct {
  double dx, dy;
} G2;
ZYMASE_DECLARE_AUTODIFF(G2, g2);

static double f(double x, double y, int n) {
  double s = 0;
  for (int i = 1; i <= n; i++)
    s += sin(x * i) * exp(y / i);
  return s;
}

static int close_to(const char *what, double got, double want) {
  double tol = 1e-6 * (1 + fabs(want));
  if (fabs(got - want) <= tol)
    return 0;
  fprintf(stderr, "app: %s: gradient %.17g, finite differences %.17g\n", what,
          got, want);
  return 1;
}

int main(void) {
  double x = 0.7, y = -0.4, h = 1e-6;
  int n = 3;
  G2 g = __enzyme_autodiff_g2((void *)f, x, y, enzyme_const, n);
  double fx = (f(x + h, y, n) - f(x - h, y, n)) / (2 * h);
  double fy = (f(x, y + h, n) - f(x, y - h, n)) / (2 * h);
  int bad = close_to("df/dx", g.dx, fx) + close_to("df/dy", g.dy, fy);
  if (g.dx == 0 && g.dy == 0)
    bad++;
  printf("app: df/dx = %.12f, df/dy = %.12f (%s)\n", g.dx, g.dy,
         bad ? "WRONG" : "ok");
  return bad != 0;
}
