// integration/openmp-alone.c - the adjoints of reads another iteration of a
// worksharing loop may also make (a stencil's neighbours) are added
// atomically only while other OpenMP threads run: the reverse of a region
// asks omp_get_active_level() once and, when no active region encloses it
// (a team of one thread), adds plainly (ownership.c).  A region nested in
// another region's team (inactive, one thread, but beside the other
// threads of the outer team, which add to the same shadows) must stay
// atomic.  Checked against central finite differences and a hand-written
// adjoint with 1, 2 and 4 threads: plain adds where atomic ones are needed
// lose updates at 2 threads (seen with the flag made constant true).  The
// Archer run does not see them (the region reverses' loads and stores
// carry no ThreadSanitizer instrumentation), but checks the rest.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openmp
// RUN: %clang -fopenmp -O0 %s -lm -o %t0 && %omp-run %t0
// RUN: %clang -fopenmp -O2 %s -lm -o %t2 && %omp-run %t2
// RUN: %if archer %{ %archer-clang -O2 %s -lm -o %ta && %archer-run %ta %}
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

enum { N = 67, STEPS = 5, REPS = 200 };
static const double A = 0.2, B = 0.5;

static double w(int i) { return 1 + 0.01 * i; }

/* A 1-D Fisher-KPP step, zero outside: each row reads its neighbours, which
 * other iterations (other threads near a chunk boundary) own. */
double stencil(const double *x, double *u, double *v, int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    u[i] = x[i];
  for (int t = 0; t < STEPS; t++) {
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
      double c = u[i], l = -2 * c;
      if (i > 0)
        l += u[i - 1];
      if (i < n - 1)
        l += u[i + 1];
      v[i] = c + A * l + B * c * (1 - c);
    }
    double *s = u;
    u = v;
    v = s;
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += w(i) * u[i] * u[i];
  return s;
}

/* The same gradient by hand: every field kept, the adjoint stepped back. */
static void stencil_grad(const double *x, int n, double *g) {
  static double us[STEPS + 1][N];
  double gv[N], gu[N];
  memcpy(us[0], x, sizeof(double) * n);
  for (int t = 0; t < STEPS; t++)
    for (int i = 0; i < n; i++) {
      double c = us[t][i], l = -2 * c;
      if (i > 0)
        l += us[t][i - 1];
      if (i < n - 1)
        l += us[t][i + 1];
      us[t + 1][i] = c + A * l + B * c * (1 - c);
    }
  for (int i = 0; i < n; i++)
    gv[i] = 2 * w(i) * us[STEPS][i];
  for (int t = STEPS - 1; t >= 0; t--) {
    for (int i = 0; i < n; i++) {
      double s = (i > 0 ? gv[i - 1] : 0) + (i < n - 1 ? gv[i + 1] : 0);
      gu[i] = gv[i] * (1 - 2 * A + B * (1 - 2 * us[t][i])) + A * s;
    }
    memcpy(gv, gu, sizeof(double) * n);
  }
  for (int i = 0; i < n; i++)
    g[i] = gv[i];
}

/* sum_i w_i x_i x_{i+1} (mod n), over this thread's rows; in a region
 * nested in another's team it runs with one thread (the outer team keeps
 * the only active level), beside the outer team's other threads. */
static __attribute__((noinline)) double ring(const double *x, int n, int b) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += w(i + b) * x[i] * x[(i + 1) % n];
  return s;
}

/* Two outer threads, each calling ring REPS times: all of them add to every
 * element of the shadow of x. */
double nested(const double *x, int n) {
  double s = 0;
#pragma omp parallel for num_threads(2) reduction(+ : s) schedule(static, 1)
  for (int b = 0; b < 2 * REPS; b++)
    s += ring(x, n, b % 3);
  return s;
}

static void nested_grad(const double *x, int n, double *g) {
  for (int i = 0; i < n; i++)
    g[i] = 0;
  for (int b = 0; b < 2 * REPS; b++)
    for (int i = 0; i < n; i++) {
      g[i] += w(i + b % 3) * x[(i + 1) % n];
      g[(i + 1) % n] += w(i + b % 3) * x[i];
    }
}

static int bad;

static void check(const char *what, const double *got, const double *want,
                  const double *fd, int n, double tol) {
  int fails = 0;
  for (int i = 0; i < n; i++) {
    double scale = fabs(want[i]) > 1 ? fabs(want[i]) : 1;
    if (!(fabs(got[i] - want[i]) <= 1e-10 * scale) ||
        !(fabs(got[i] - fd[i]) <= tol * scale)) {
      if (fails++ < 5)
        printf("FAIL %s[%d] = %.17g, hand-written %.17g, finite diff %.17g\n",
               what, i, got[i], want[i], fd[i]);
    }
  }
  bad += fails;
  if (!fails)
    printf("ok   %s: %d entries\n", what, n);
}

int main(void) {
  static double x[N], dx[N], u[N], v[N], du[N], dv[N], want[N], fd[N];
  omp_set_max_active_levels(1); /* ring's region in nested: inactive */
  int t = 0;
#pragma omp parallel
#pragma omp single
  t = omp_get_num_threads();
  printf("openmp-alone: %d threads\n", t);
  for (int i = 0; i < N; i++)
    x[i] = 0.3 + 0.25 * sin(1.7 * i + 0.2);

  for (int n = N - 30; n <= N; n += 30) {
    memset(dx, 0, sizeof dx);
    __enzyme_autodiff((void *)stencil, enzyme_dup, x, dx, enzyme_dup, u, du,
                      enzyme_dup, v, dv, enzyme_const, n);
    stencil_grad(x, n, want);
    for (int i = 0; i < n; i++) {
      double h = 1e-6, xi = x[i];
      x[i] = xi + h;
      double up = stencil(x, u, v, n);
      x[i] = xi - h;
      double dn = stencil(x, u, v, n);
      x[i] = xi;
      fd[i] = (up - dn) / (2 * h);
    }
    check(n == N ? "stencil(n=67)" : "stencil(n=37)", dx, want, fd, n, 1e-6);
  }

  memset(dx, 0, sizeof dx);
  __enzyme_autodiff((void *)nested, enzyme_dup, x, dx, enzyme_const, N);
  nested_grad(x, N, want);
  for (int i = 0; i < N; i++) {
    double h = 1e-5, xi = x[i];
    x[i] = xi + h;
    double up = nested(x, N);
    x[i] = xi - h;
    double dn = nested(x, N);
    x[i] = xi;
    fd[i] = (up - dn) / (2 * h);
  }
  check("nested", dx, want, fd, N, 1e-6);
  return bad != 0;
}
