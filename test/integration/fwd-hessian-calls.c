// Forward over reverse where the inner gradient calls functions it cannot
// inline: each such call becomes a call of the callee's augmented forward,
// which returns its tape (a heap block) alone or beside its result in a
// struct, {tape} or {double, tape}.  Forward mode gives that struct a
// shadow (the tape's shadow, and the result's tangent), so the tape's
// cached values carry tangents into the reverse part.  Cases: a
// determinant by expansion in minors (recursion: never inlined), a
// rotation helper with heap scratch called in a loop (noinline: a {tape}
// of a void function), a noinline function called once (its tape stored
// nowhere), and all through -O0, where nothing is inlined.
// Hessian-vector products against central differences of the gradient,
// and the symmetry w.(H v) = v.(H w).  Before forward mode knew these
// structs, the first two were refused ("a pointer without a shadow is
// stored to memory that has one") and the third was silently wrong.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
#include "fd.h"

#include <stdlib.h>
#include <string.h>

void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);
extern int enzyme_const, enzyme_dup;

/* det of the n x n matrix a (row stride ld) by minors along row 0 */
double det(const double *a, int n, int ld) {
  if (n == 1)
    return a[0];
  double *m = malloc(sizeof(double) * (n - 1) * (n - 1)), s = 0;
  for (int j = 0; j < n; j++) {
    for (int r = 1; r < n; r++)
      for (int c = 0, k = 0; c < n; c++)
        if (c != j)
          m[(r - 1) * (n - 1) + k++] = a[r * ld + c];
    double d = a[j] * det(m, n - 1, n - 1);
    s += j % 2 ? -d : d;
  }
  free(m);
  return s;
}
double det4(const double *a) { return det(a, 4, 4); }

/* out = R(r) x, a rotation by the Rodrigues vector r, through scratch on
 * the heap that the gradient caches */
__attribute__((noinline)) void rotate(const double *r, const double *x,
                                      double *out) {
  double *w = malloc(3 * sizeof *w);
  double th = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
  for (int k = 0; k < 3; k++)
    w[k] = r[k] / th;
  double c = cos(th), s = sin(th);
  double d = (1 - c) * (w[0] * x[0] + w[1] * x[1] + w[2] * x[2]);
  out[0] = x[0] * c + (w[1] * x[2] - w[2] * x[1]) * s + w[0] * d;
  out[1] = x[1] * c + (w[2] * x[0] - w[0] * x[2]) * s + w[1] * d;
  out[2] = x[2] * c + (w[0] * x[1] - w[1] * x[0]) * s + w[2] * d;
  free(w);
}
#define NPTS 4
/* p = [r (3) | points (3 NPTS)]: sum over points of x_rot / z_rot^2 */
double project(const double *p) {
  double out[3], e = 0;
  for (int i = 0; i < NPTS; i++) {
    rotate(p, p + 3 + 3 * i, out);
    e += out[0] * out[1] / (out[2] * out[2]) + out[0];
  }
  return e;
}

/* a noinline callee called once, outside any loop: its tape pointer goes
 * straight from its augmented forward to its reverse, stored nowhere (so
 * nothing was refused: H v came out wrong, Hv[5] -7.02 for -4.54, before
 * the struct had a shadow) */
__attribute__((noinline)) double wsq(const double *p, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += p[i] * p[i] * sin(p[i]);
  return s;
}
double once(const double *x) {
  return sin(x[0]) * wsq(x + 4, 3) + x[1] * x[2] * x[3];
}

#define MAXN 16
/* g += the gradient of f; hv = H(x) v through forward over reverse */
#define GRAD_HVP(f)                                                            \
  void grad_##f(const double *x, double *g) {                                  \
    __enzyme_autodiff((void *)f, enzyme_dup, x, g);                            \
  }                                                                            \
  static void hvp_##f(const double *x, const double *v, double *hv, int n) {   \
    double g[MAXN] = {0};                                                      \
    memset(hv, 0, n * sizeof *hv);                                             \
    __enzyme_fwddiff((void *)grad_##f, enzyme_dup, x, v, enzyme_dup, g, hv);   \
  }
GRAD_HVP(det4)
GRAD_HVP(project)
GRAD_HVP(once)

typedef void (*GradFn)(const double *, double *);
typedef void (*HvpFn)(const double *, const double *, double *, int);
static void gradient(GradFn gf, const double *x, double *g, int n) {
  memset(g, 0, n * sizeof *g);
  gf(x, g);
}

static void check(const char *name, GradFn gf, HvpFn hvp, const double *x,
                  int n) {
  double v[MAXN], w[MAXN], hv[MAXN], hw[MAXN], xt[MAXN], gp[MAXN], gm[MAXN];
  char what[96];
  for (int i = 0; i < n; i++)
    v[i] = 0.7 - 0.3 * i + 0.05 * i * i, w[i] = sin(1.0 + i);
  hvp(x, v, hv, n);
  hvp(x, w, hw, n);
  /* central differences of the gradient along v, two steps combined
   * (Richardson): error O(h^4) */
  double fd[2][MAXN];
  for (int s = 0; s < 2; s++) {
    double h = s ? 5e-4 : 1e-3;
    for (int i = 0; i < n; i++)
      xt[i] = x[i] + h * v[i];
    gradient(gf, xt, gp, n);
    for (int i = 0; i < n; i++)
      xt[i] = x[i] - h * v[i];
    gradient(gf, xt, gm, n);
    for (int i = 0; i < n; i++)
      fd[s][i] = (gp[i] - gm[i]) / (2 * h);
  }
  for (int i = 0; i < n; i++) {
    snprintf(what, sizeof what, "%s Hv[%d]", name, i);
    zy_check_close(what, hv[i], (4 * fd[1][i] - fd[0][i]) / 3, 1e-8);
  }
  double a = 0, b = 0;
  for (int i = 0; i < n; i++)
    a += w[i] * hv[i], b += v[i] * hw[i];
  snprintf(what, sizeof what, "%s w.(H v) = v.(H w)", name);
  zy_check_close(what, a, b, 1e-12);
}

int main(void) {
  double a[16], p[3 + 3 * NPTS];
  for (int i = 0; i < 16; i++)
    a[i] = sin(0.7 * i + 0.3) + (i % 5 == 0 ? 2 : 0);
  p[0] = 0.3, p[1] = -0.2, p[2] = 0.25;
  for (int i = 0; i < 3 * NPTS; i++)
    p[3 + i] = 0.4 * cos(1.3 * i) + (i % 3 == 2 ? 5 : 0);
  check("det", grad_det4, hvp_det4, a, 16);
  check("project", grad_project, hvp_project, p, 3 + 3 * NPTS);
  check("once", grad_once, hvp_once, p, 7);
  return zy_report();
}
