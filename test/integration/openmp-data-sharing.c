// Gradients through OpenMP data-sharing clauses (issue #15): shared with
// default(none), private, firstprivate of an active double parameter (clang
// passes it to the outlined region by value, as the bits of an i64; its
// gradient is the sum over all threads' copies, also when each thread
// changes its copy), lastprivate (combined, and on a `for` in a `parallel`
// with a dynamic schedule), and omp_get_thread_num / omp_get_num_threads /
// omp_get_wtime used in the region (inactive: a hand-made partition of the
// loop, a branch and a timing log).  Closed forms and finite differences of
// the same parallel function, with 1, 2 and 4 threads.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openmp
// RUN: %clang -fopenmp -O0 %s -lm -o %t0 && %omp-run %t0
// RUN: %clang -fopenmp -O2 %s -lm -o %t2 && %omp-run %t2
// RUN: %if archer %{ %archer-clang -O2 %s -lm -o %ta && %archer-run %ta %}
#include "omp-grad.h"

static double loss(const double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += omp_w(i) * y[i];
  return s;
}

/* default(none) shared(...): y[i] = x[i]^3 cos(x[i+1]). */
double shared_none(double *x, double *y, int n) {
#pragma omp parallel for default(none) shared(x, y, n)
  for (int i = 0; i < n; i++)
    y[i] = x[i] * x[i] * x[i] * cos(x[(i + 1) % n]);
  return loss(y, n);
}
static void shared_none_grad(const double *x, int n, double *g) {
  for (int i = 0; i < n; i++) {
    int j = (i + 1) % n;
    g[i] += omp_w(i) * 3 * x[i] * x[i] * cos(x[j]);
    g[j] -= omp_w(i) * x[i] * x[i] * x[i] * sin(x[j]);
  }
}

/* private(t): t = x[i] x[i+2], y[i] = t sin t. */
double private_t(double *x, double *y, int n) {
  double t = 0;
#pragma omp parallel for private(t) schedule(static, 4)
  for (int i = 0; i < n; i++) {
    t = x[i] * x[(i + 2) % n];
    y[i] = t * sin(t);
  }
  return loss(y, n) + t; /* the shared t, never written: 0 */
}
static void private_t_grad(const double *x, int n, double *g) {
  for (int i = 0; i < n; i++) {
    int j = (i + 2) % n;
    double t = x[i] * x[j], d = sin(t) + t * cos(t);
    g[i] += omp_w(i) * d * x[j];
    g[j] += omp_w(i) * d * x[i];
  }
}

/* lastprivate(t): t = x[i] x[i+1], y[i] = sin t; after the loop t is the
 * last iteration's, x[n-1] x[0];  loss sum w y + t^2. */
double last_t(double *x, double *y, int n) {
  double t = 0;
#pragma omp parallel for lastprivate(t)
  for (int i = 0; i < n; i++) {
    t = x[i] * x[(i + 1) % n];
    y[i] = sin(t);
  }
  return loss(y, n) + t * t;
}
/* The same on a `for` inside a `parallel`, dynamic schedule.  monotonic:
 * libomp (19 and 22) with nonmonotonic:dynamic, what schedule(dynamic)
 * means since OpenMP 5.0, sometimes gives no thread the last chunk's flag,
 * and t keeps its value from before the loop (35 to 85% of the runs of
 * this loop with 2 threads on 2 cores, 2% of a combined `parallel for`;
 * monotonic and libgomp are right). */
double last_t_dyn(double *x, double *y, int n) {
  double t = 0;
#pragma omp parallel
  {
#pragma omp for lastprivate(t) schedule(monotonic : dynamic, 3)
    for (int i = 0; i < n; i++) {
      t = x[i] * x[(i + 1) % n];
      y[i] = sin(t);
    }
  }
  return loss(y, n) + t * t;
}
static void last_t_grad(const double *x, int n, double *g) {
  for (int i = 0; i < n; i++) {
    int j = (i + 1) % n;
    double t = x[i] * x[j];
    g[i] += omp_w(i) * cos(t) * x[j];
    g[j] += omp_w(i) * cos(t) * x[i];
  }
  double t = x[n - 1] * x[0];
  g[n - 1] += 2 * t * x[0];
  g[0] += 2 * t * x[n - 1];
}
static void last_t_dyn_grad(const double *x, int n, double *g) {
  last_t_grad(x, n, g);
}

/* The thread number and count partition the loop by hand, a branch reads
 * the count, and the time each thread took goes to a log: all inactive. */
static double omp_elapsed[64];
static int thread_of[NMAX];
double thread_info(double *x, double *y, int n) {
#pragma omp parallel
  {
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    double t0 = omp_get_wtime();
    for (int i = t; i < n; i += nt) {
      y[i] = exp(0.5 * x[i]) * x[(i + 1) % n];
      if (nt > 1 && i % 2)
        y[i] += 0.25 * x[i] * x[i];
      else if (i % 2)
        y[i] += 0.25 * x[i] * x[i];
      thread_of[i] = t;
    }
    omp_elapsed[t % 64] = omp_get_wtime() - t0;
  }
  return loss(y, n);
}
static void thread_info_grad(const double *x, int n, double *g) {
  for (int i = 0; i < n; i++) {
    int j = (i + 1) % n;
    g[i] +=
        omp_w(i) * (0.5 * exp(0.5 * x[i]) * x[j] + (i % 2 ? 0.5 * x[i] : 0));
    g[j] += omp_w(i) * exp(0.5 * x[i]);
  }
}

/* firstprivate(a), a an active double: y[i] = a sin x[i] + a^2 x[i]. */
double fp_for(double *x, double *y, double a, int n) {
#pragma omp parallel for firstprivate(a)
  for (int i = 0; i < n; i++)
    y[i] = a * sin(x[i]) + a * a * x[i];
  return loss(y, n);
}
static double fp_for_grad(const double *x, double a, int n, double *g) {
  double da = 0;
  for (int i = 0; i < n; i++) {
    g[i] = omp_w(i) * (a * cos(x[i]) + a * a);
    da += omp_w(i) * (sin(x[i]) + 2 * a * x[i]);
  }
  return da;
}
/* Each thread changes its copy: a = a^2 + 0.1, then y[i] = a x[i]^2. */
double fp_region(double *x, double *y, double a, int n) {
#pragma omp parallel firstprivate(a)
  {
    a = a * a + 0.1;
#pragma omp for schedule(static, 5)
    for (int i = 0; i < n; i++)
      y[i] = a * x[i] * x[i];
  }
  return loss(y, n);
}
static double fp_region_grad(const double *x, double a, int n, double *g) {
  double b = a * a + 0.1, da = 0;
  for (int i = 0; i < n; i++) {
    g[i] = omp_w(i) * b * 2 * x[i];
    da += omp_w(i) * x[i] * x[i] * 2 * a;
  }
  return da;
}

#ifdef ZY_SELFTEST
#define FP_AUTODIFF(f, x, dx, y, dy, a, n) f##_grad(x, a, n, dx)
#else
#define FP_AUTODIFF(f, x, dx, y, dy, a, n)                                     \
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, y, dy, a,        \
                    enzyme_const, n)
#endif

/* dx and the returned da against the closed form and finite differences. */
#define CHECK_FP(f, x0, a, n)                                                  \
  do {                                                                         \
    double x_[NMAX], dx_[NMAX] = {0}, y_[2 * NMAX] = {0};                      \
    double dy_[2 * NMAX] = {0}, want_[NMAX] = {0}, fd_[NMAX] = {0};            \
    double xf_[NMAX], yf_[2 * NMAX];                                           \
    char what_[80];                                                            \
    memcpy(x_, x0, sizeof x_);                                                 \
    double da_ = FP_AUTODIFF(f, x_, dx_, y_, dy_, a, n);                       \
    ZY_PERTURB_AT(dx_);                                                        \
    double wda_ = f##_grad(x0, a, n, want_);                                   \
    memcpy(xf_, x0, sizeof xf_);                                               \
    for (int k_ = 0; k_ < OMP_FD_COUNT(n); k_++)                               \
      fd_[k_] = ZY_DIFF_AT(xf_, k_, f(xf_, yf_, a, n));                        \
    snprintf(what_, sizeof what_, "%s(n=%d) closed form", #f, (int)(n));       \
    omp_check_array(what_, dx_, want_, NMAX, 1e-12);                           \
    snprintf(what_, sizeof what_, "%s(n=%d) finite diff", #f, (int)(n));       \
    omp_check_array(what_, dx_, fd_, OMP_FD_COUNT(n), ZY_FD_TOL);              \
    ZY_CHECK2(#f " d/da", da_, wda_, ZY_DIFF(t_, a, f(xf_, yf_, t_, n)));      \
  } while (0)

int main(void) {
  double x0[NMAX];
  omp_inputs(x0);
  omp_banner("openmp-data-sharing");
  int sizes[] = {37, 101};
  for (int s = 0; s < 2; s++) {
    int n = sizes[s];
    CHECK_OMP(shared_none, x0, n);
    CHECK_OMP(private_t, x0, n);
    CHECK_OMP(last_t, x0, n);
    CHECK_OMP(last_t_dyn, x0, n);
    CHECK_OMP(thread_info, x0, n);
    CHECK_FP(fp_for, x0, 0.7, n);
    CHECK_FP(fp_region, x0, -1.3, n);
  }
  return zy_report();
}
