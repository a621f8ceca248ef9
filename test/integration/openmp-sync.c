// Gradients through OpenMP synchronization (issue #15): critical (a product
// p = p * (1 + x/5), and a named critical whose update s = sin(s) + x[i]
// depends on the order the threads come in), atomic updates of a scalar and
// of histogram bins, a barrier between two phases where phase 2 reads what
// other threads wrote in phase 1, single, master and masked computing a
// value every thread reads afterwards, sections, and a lock around an
// update.  Closed forms and finite differences of the same parallel
// function, with 1, 2 and 4 threads; for the order-dependent critical the
// order the threads took is recorded during the gradient's forward run and
// the reference is the same sequence of updates replayed in that order.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openmp
// RUN: %clang -fopenmp -O0 %s -lm -o %t0 && %omp-run %t0
// RUN: %clang -fopenmp -O2 %s -lm -o %t2 && %omp-run %t2
// RUN: %if archer %{ %archer-clang -O2 %s -lm -o %ta && %archer-run %ta %}
#include "omp-grad.h"

/* critical: p = prod (1 + x[i]/5) in any order;  loss p. */
double crit_mul(double *x, double *y, int n) {
  double p = 1;
#pragma omp parallel for schedule(dynamic, 2)
  for (int i = 0; i < n; i++) {
    double f = 1 + 0.2 * x[i];
#pragma omp critical
    p = p * f;
  }
  return p;
}
static void crit_mul_grad(const double *x, int n, double *g) {
  double p = 1;
  for (int i = 0; i < n; i++)
    p *= 1 + 0.2 * x[i];
  for (int i = 0; i < n; i++)
    g[i] = p * 0.2 / (1 + 0.2 * x[i]);
}

/* critical(order): s = sin(s) + x[i], from s = 0.3; the order the threads
 * entered is written to crit_order (an integer log, inactive). */
static int crit_order[NMAX], crit_count;
double crit_order_dep(double *x, double *y, int n) {
  double s = 0.3;
#pragma omp parallel for schedule(static, 2)
  for (int i = 0; i < n; i++) {
#pragma omp critical(order)
    {
      s = sin(s) + x[i];
      crit_order[crit_count++] = i;
    }
  }
  return s;
}
/* The same updates, serially, in the order `o`. */
static double crit_replay(const double *x, const int *o, int n) {
  double s = 0.3;
  for (int k = 0; k < n; k++)
    s = sin(s) + x[o[k]];
  return s;
}
static void crit_replay_grad(const double *x, const int *o, int n, double *g) {
  double s[NMAX + 1];
  s[0] = 0.3;
  for (int k = 0; k < n; k++)
    s[k + 1] = sin(s[k]) + x[o[k]];
  double a = 1;
  for (int k = n - 1; k >= 0; k--) {
    g[o[k]] += a;
    a *= cos(s[k]);
  }
}
static void check_crit_order(const double *x0, int n) {
  double x[NMAX], dx[NMAX] = {0}, y[2 * NMAX], dy[2 * NMAX] = {0};
  double want[NMAX] = {0}, fd[NMAX] = {0};
  int o[NMAX], seen[NMAX] = {0};
  memcpy(x, x0, sizeof x);
  crit_count = 0;
#ifdef ZY_SELFTEST
  crit_order_dep(x, y, n);
  crit_replay_grad(x0, crit_order, n, dx);
#else
  __enzyme_autodiff((void *)crit_order_dep, enzyme_dup, x, dx, enzyme_dup, y,
                    dy, enzyme_const, n);
#endif
  ZY_PERTURB_AT(dx);
  /* The forward run went through the critical section once per i. */
  zy_check_close("crit_order_dep: updates logged", crit_count, n, 0);
  int perm = crit_count == n;
  for (int k = 0; k < n && perm; k++) {
    perm = crit_order[k] >= 0 && crit_order[k] < n && !seen[crit_order[k]];
    if (perm)
      seen[crit_order[k]] = 1;
  }
  zy_check_close("crit_order_dep: log is a permutation", perm, 1, 0);
  if (!perm)
    return;
  memcpy(o, crit_order, sizeof o);
  crit_replay_grad(x0, o, n, want);
  memcpy(x, x0, sizeof x);
  for (int k = 0; k < n; k++)
    fd[k] = ZY_DIFF_AT(x, k, crit_replay(x, o, n));
  omp_check_array("crit_order_dep closed form (logged order)", dx, want, NMAX,
                  1e-12);
  omp_check_array("crit_order_dep finite diff (logged order)", dx, fd, n,
                  ZY_FD_TOL);
  /* With one thread the order is 0..n-1: the parallel function itself. */
  if (omp_get_max_threads() == 1) {
    memcpy(x, x0, sizeof x);
    for (int k = 0; k < n; k++)
      fd[k] = ZY_DIFF_AT(x, k, (crit_count = 0, crit_order_dep(x, y, n)));
    omp_check_array("crit_order_dep finite diff (1 thread)", dx, fd, n,
                    ZY_FD_TOL);
  }
}

/* atomic: s = sum x^2 (atomic update), and histogram bins
 * h[i % 4] += x[i] x[i+1] (atomic, contended);  loss s + s^2 + sum h^2. */
double atomics(double *x, double *y, int n) {
  double s = 0, *h = y;
  for (int b = 0; b < 4; b++)
    h[b] = 0;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
#pragma omp atomic
    s += x[i] * x[i];
#pragma omp atomic update
    h[i % 4] += x[i] * x[(i + 1) % n];
  }
  double l = s + s * s;
  for (int b = 0; b < 4; b++)
    l += h[b] * h[b];
  return l;
}
static void atomics_grad(const double *x, int n, double *g) {
  double s = 0, h[4] = {0};
  for (int i = 0; i < n; i++) {
    s += x[i] * x[i];
    h[i % 4] += x[i] * x[(i + 1) % n];
  }
  for (int i = 0; i < n; i++) {
    int j = (i + 1) % n;
    g[i] += (1 + 2 * s) * 2 * x[i] + 2 * h[i % 4] * x[j];
    g[j] += 2 * h[i % 4] * x[i];
  }
}

/* barrier: u = exp(0.3 x) (for nowait), barrier, z[i] = u[i+1] u[i]. */
double barrier2(double *x, double *y, int n) {
  double *u = y, *z = y + NMAX;
#pragma omp parallel
  {
#pragma omp for schedule(static) nowait
    for (int i = 0; i < n; i++)
      u[i] = exp(0.3 * x[i]);
#pragma omp barrier
#pragma omp for schedule(static) nowait
    for (int i = 0; i < n; i++)
      z[i] = u[(i + 1) % n] * u[i];
  }
  double l = 0;
  for (int i = 0; i < n; i++)
    l += omp_w(i) * z[i];
  return l;
}
static void barrier2_grad(const double *x, int n, double *g) {
  for (int i = 0; i < n; i++) {
    int j = (i + 1) % n;
    double z = exp(0.3 * x[i]) * exp(0.3 * x[j]);
    g[i] += omp_w(i) * 0.3 * z;
    g[j] += omp_w(i) * 0.3 * z;
  }
}

/* u = sin x (for), then one thread computes s = sum u^2 (single, master or
 * masked), then all threads z[i] = s u[i];  loss sum w_i z[i]. */
#define ONE_THREAD_TEST(name, construct, after)                                \
  double name(double *x, double *y, int n) {                                   \
    double *u = y, *z = y + NMAX, s = 0;                                       \
    _Pragma("omp parallel") {                                                  \
      _Pragma("omp for") for (int i = 0; i < n; i++) u[i] = sin(x[i]);         \
      _Pragma(construct) {                                                     \
        for (int i = 0; i < n; i++)                                            \
          s += u[i] * u[i];                                                    \
      }                                                                        \
      _Pragma(after);                                                          \
      _Pragma("omp for") for (int i = 0; i < n; i++) z[i] = s * u[i];          \
    }                                                                          \
    double l = 0;                                                              \
    for (int i = 0; i < n; i++)                                                \
      l += omp_w(i) * z[i];                                                    \
    return l;                                                                  \
  }                                                                            \
  static void name##_grad(const double *x, int n, double *g) {                 \
    one_thread_grad(x, n, g);                                                  \
  }
static void one_thread_grad(const double *x, int n, double *g) {
  double s = 0, wu = 0;
  for (int i = 0; i < n; i++) {
    s += sin(x[i]) * sin(x[i]);
    wu += omp_w(i) * sin(x[i]);
  }
  for (int i = 0; i < n; i++)
    g[i] = cos(x[i]) * (2 * sin(x[i]) * wu + s * omp_w(i));
}
/* single ends with a barrier; master and masked do not. */
ONE_THREAD_TEST(single1, "omp single", "omp flush")
ONE_THREAD_TEST(master1, "omp master", "omp barrier")
ONE_THREAD_TEST(masked1, "omp masked", "omp barrier")

/* sections: a = sum over even i of sin x, b = sum over odd i of x^2,
 * c = exp(x[0] x[n-1]);  loss a b + c. */
double sections3(double *x, double *y, int n) {
  double a = 0, b = 0, c = 0;
#pragma omp parallel sections
  {
#pragma omp section
    for (int i = 0; i < n; i += 2)
      a += sin(x[i]);
#pragma omp section
    for (int i = 1; i < n; i += 2)
      b += x[i] * x[i];
#pragma omp section
    c = exp(x[0] * x[n - 1]);
  }
  return a * b + c;
}
static void sections3_grad(const double *x, int n, double *g) {
  double a = 0, b = 0, c = exp(x[0] * x[n - 1]);
  for (int i = 0; i < n; i++)
    if (i % 2)
      b += x[i] * x[i];
    else
      a += sin(x[i]);
  for (int i = 0; i < n; i++)
    g[i] = i % 2 ? a * 2 * x[i] : cos(x[i]) * b;
  g[0] += c * x[n - 1];
  g[n - 1] += c * x[0];
}

/* A lock around s += x[i] exp(x[i+1]/10);  loss s^2. */
double locked(double *x, double *y, int n) {
  double s = 0;
  omp_lock_t lock;
  omp_init_lock(&lock);
#pragma omp parallel for schedule(guided)
  for (int i = 0; i < n; i++) {
    double v = x[i] * exp(0.1 * x[(i + 1) % n]);
    omp_set_lock(&lock);
    s += v;
    omp_unset_lock(&lock);
  }
  omp_destroy_lock(&lock);
  return s * s;
}
static void locked_grad(const double *x, int n, double *g) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * exp(0.1 * x[(i + 1) % n]);
  for (int i = 0; i < n; i++) {
    int j = (i + 1) % n;
    g[i] += 2 * s * exp(0.1 * x[j]);
    g[j] += 2 * s * 0.1 * x[i] * exp(0.1 * x[j]);
  }
}

int main(void) {
  double x0[NMAX];
  omp_inputs(x0);
  omp_banner("openmp-sync");
  int sizes[] = {37, 101};
  for (int s = 0; s < 2; s++) {
    int n = sizes[s];
    CHECK_OMP(crit_mul, x0, n);
    check_crit_order(x0, n);
    CHECK_OMP(atomics, x0, n);
    CHECK_OMP(barrier2, x0, n);
    CHECK_OMP(single1, x0, n);
    CHECK_OMP(master1, x0, n);
    CHECK_OMP(masked1, x0, n);
    CHECK_OMP(sections3, x0, n);
    CHECK_OMP(locked, x0, n);
  }
  return zy_report();
}
