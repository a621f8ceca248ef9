/* omp-grad.h - helpers of the OpenMP integration tests (openmp-*.c).  A
 * test function is  double f(double *x, double *y, int n): a loss of the
 * inputs x[0..n) computed with OpenMP, y a scratch array (2 * NMAX) that f
 * may write.  CHECK_OMP(f, x0, n) takes the gradient with
 *   __enzyme_autodiff(f, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, n)
 * and compares every entry of dx (all NMAX: those past n must stay 0) with
 * the closed form f_grad(x0, n, g) and with a central finite difference of
 * the same parallel f.
 * Without the plugin: -DZY_SELFTEST makes the "gradient" the closed form
 * itself (plain clang -fopenmp), which checks the closed forms against the
 * finite differences; -DZY_PERTURB=k then adds 1e-3 to entry k of that
 * gradient, and the test must fail.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_TEST_OMP_GRAD_H
#define ZY_TEST_OMP_GRAD_H

#include "fd-memory.h"
#include <omp.h>
#include <string.h>

#define NMAX 101

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const, enzyme_out;

/* Inputs: smooth, distinct, in [-0.25, 0.85]. */
static void omp_inputs(double *x) {
  for (int i = 0; i < NMAX; i++)
    x[i] = 0.3 + 0.55 * sin(1.7 * i + 0.2);
}

/* Weights of a sum, so that no two entries of a gradient coincide. */
static inline double omp_w(int i) { return 1 + 0.01 * i; }

#ifdef ZY_PERTURB
#define ZY_PERTURB_AT(g) ((g)[ZY_PERTURB] += 1e-3)
#else
#define ZY_PERTURB_AT(g) ((void)0)
#endif

#ifdef ZY_SELFTEST
#define OMP_AUTODIFF(f, x, dx, y, dy, n) f##_grad(x, n, dx)
#else
#define OMP_AUTODIFF(f, x, dx, y, dy, n)                                       \
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, y, dy,           \
                    enzyme_const, n)
#endif

/* Like zy_check_array, but prints one line per array, and the failing
 * entries: the OpenMP tests check thousands of entries per run. */
static void omp_check_array(const char *what, const double *got,
                            const double *want, int n, double tol) {
  int bad = 0;
  for (int k = 0; k < n; k++) {
    double scale = fabs(want[k]) > 1 ? fabs(want[k]) : 1;
    zy_checks++;
    if (!(fabs(got[k] - want[k]) <= tol * scale)) {
      zy_failures++;
      bad++;
      printf("FAIL %s[%d]: got %.17g, want %.17g\n", what, k, got[k], want[k]);
    }
  }
  if (!bad)
    printf("ok   %s: %d entries\n", what, n);
}

/* Which entries get a finite difference: all inputs and one past them
 * (which f does not read); the closed form covers all NMAX. */
#define OMP_FD_COUNT(n) ((n) + 1 < NMAX ? (n) + 1 : NMAX)

#define CHECK_OMP_TOL(f, x0, n, tol_closed, tol_fd)                            \
  do {                                                                         \
    double x_[NMAX], dx_[NMAX] = {0}, y_[2 * NMAX] = {0};                      \
    double dy_[2 * NMAX] = {0}, want_[NMAX] = {0}, fd_[NMAX] = {0};            \
    double xf_[NMAX], yf_[2 * NMAX];                                           \
    char what_[80];                                                            \
    memcpy(x_, x0, sizeof x_);                                                 \
    OMP_AUTODIFF(f, x_, dx_, y_, dy_, n);                                      \
    ZY_PERTURB_AT(dx_);                                                        \
    f##_grad(x0, n, want_);                                                    \
    memcpy(xf_, x0, sizeof xf_);                                               \
    for (int k_ = 0; k_ < OMP_FD_COUNT(n); k_++)                               \
      fd_[k_] = ZY_DIFF_AT(xf_, k_, f(xf_, yf_, n));                           \
    snprintf(what_, sizeof what_, "%s(n=%d) closed form", #f, (int)(n));       \
    omp_check_array(what_, dx_, want_, NMAX, tol_closed);                      \
    snprintf(what_, sizeof what_, "%s(n=%d) finite diff", #f, (int)(n));       \
    omp_check_array(what_, dx_, fd_, OMP_FD_COUNT(n), tol_fd);                 \
    zy_check_close(#f " leaves x alone", memcmp(x_, x0, sizeof x_) == 0, 1,    \
                   0);                                                         \
  } while (0)

#define CHECK_OMP(f, x0, n) CHECK_OMP_TOL(f, x0, n, 1e-12, ZY_FD_TOL)

/* Prints the thread count once, so a failure says which run it was. */
static void omp_banner(const char *test) {
  int t = 0;
#pragma omp parallel
  {
#pragma omp single
    t = omp_get_num_threads();
  }
  printf("%s: %d threads\n", test, t);
}

#endif
