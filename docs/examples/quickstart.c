/* quickstart.c - the gradient of a two-variable function with Zymase,
 * checked against its closed form.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 *   tools/zymase-clang -O2 docs/examples/quickstart.c -lm -o quickstart */
#include <math.h>
#include <stdio.h>

/* Enzyme's interface: declare the entry point yourself, with the return
 * type you want.  With two active arguments, the gradient comes back as a
 * struct with one field per argument, in argument order. */
typedef struct {
  double dx, dy;
} Grad;
Grad __enzyme_autodiff(void *, ...);

static double f(double x, double y) {
  return x * sin(y) + exp(x * y) / (1 + y * y);
}

int main(void) {
  double x = 0.5, y = 1.25;
  Grad g = __enzyme_autodiff((void *)f, x, y);

  /* The same derivatives, by hand. */
  double e = exp(x * y), q = 1 + y * y;
  double dx = sin(y) + y * e / q;
  double dy = x * cos(y) + x * e / q - 2 * y * e / (q * q);

  printf("f(x, y) = x sin(y) + exp(x y) / (1 + y^2) at x = %g, y = %g\n", x, y);
  printf("          %-22s %s\n", "Zymase", "closed form");
  printf("df/dx    %- 22.15g % .15g\n", g.dx, dx);
  printf("df/dy    %- 22.15g % .15g\n", g.dy, dy);
  int ok = fabs(g.dx - dx) <= 1e-12 * fabs(dx) &&
           fabs(g.dy - dy) <= 1e-12 * fabs(dy);
  printf("%s\n", ok ? "the gradient matches the closed form"
                    : "the gradient DOES NOT match the closed form");
  return ok ? 0 : 1;
}
