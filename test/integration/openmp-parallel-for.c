// Gradients through `#pragma omp parallel for` (issue #15): the schedules
// static, static,3, dynamic, dynamic,2, guided and runtime (set by
// omp_set_schedule), collapse(2) over a 2-D array, a region calling a
// noinline static helper, two regions where the second reads what the
// first wrote, num_threads(3), and if(n > 10) on both of its branches.
// Every body reads x[i] and its neighbour, which another thread owns near
// a chunk boundary: their shadows are added to from two threads.  Each
// gradient entry is checked against a closed form and a central finite
// difference of the same parallel function, with 1, 2 and 4 threads, n = 37
// (no multiple of a thread count or chunk) and n = 101; the Archer run
// checks that the gradient code has no data race.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openmp
// RUN: %clang -fopenmp -O0 %s -lm -o %t0 && %omp-run %t0
// RUN: %clang -fopenmp -O2 %s -lm -o %t2 && %omp-run %t2
// RUN: %if archer %{ %archer-clang -O2 %s -lm -o %ta && %archer-run %ta %}
#include "omp-grad.h"

/* The body shared by the schedules: y[i] = sin(x[i]) x[i+1] + exp(x[i]/2),
 * indices mod n, and the loss sum_i w_i y[i]. */
#define BODY(x, y, i, n)                                                       \
  ((y)[i] = sin((x)[i]) * (x)[((i) + 1) % (n)] + exp(0.5 * (x)[i]))

static double loss(const double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += omp_w(i) * y[i];
  return s;
}

static void body_grad(const double *x, int n, double *g) {
  for (int i = 0; i < n; i++) {
    int j = (i + 1) % n;
    g[i] += omp_w(i) * (cos(x[i]) * x[j] + 0.5 * exp(0.5 * x[i]));
    g[j] += omp_w(i) * sin(x[i]);
  }
}

#define SCHEDULE_TEST(name, clause)                                            \
  double name(double *x, double *y, int n) {                                   \
    _Pragma(clause) for (int i = 0; i < n; i++) BODY(x, y, i, n);              \
    return loss(y, n);                                                         \
  }                                                                            \
  static void name##_grad(const double *x, int n, double *g) {                 \
    body_grad(x, n, g);                                                        \
  }

SCHEDULE_TEST(sched_static, "omp parallel for schedule(static)")
SCHEDULE_TEST(sched_static3, "omp parallel for schedule(static, 3)")
SCHEDULE_TEST(sched_dynamic, "omp parallel for schedule(dynamic)")
SCHEDULE_TEST(sched_dynamic2, "omp parallel for schedule(dynamic, 2)")
SCHEDULE_TEST(sched_guided, "omp parallel for schedule(guided)")
SCHEDULE_TEST(sched_runtime, "omp parallel for schedule(runtime)")
SCHEDULE_TEST(threads3, "omp parallel for num_threads(3)")
/* if(n > 10): forked for n = 37, serialized for n = 7. */
SCHEDULE_TEST(if_clause, "omp parallel for if(n > 10) schedule(static, 2)")

/* collapse(2) over a 5 x (n / 5) array: t[i][j] = exp(x[i][j]) x[i][j+1]
 * (j + 1 mod the row length); the entries past 5 * (n / 5) are not read. */
#define ROWS 5
double collapse2(double *x, double *y, int n) {
  int c = n / ROWS;
#pragma omp parallel for collapse(2) schedule(static)
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < c; j++)
      y[i * c + j] = exp(x[i * c + j]) * x[i * c + (j + 1) % c];
  return loss(y, ROWS * c);
}
static void collapse2_grad(const double *x, int n, double *g) {
  int c = n / ROWS;
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < c; j++) {
      int k = i * c + j, l = i * c + (j + 1) % c;
      g[k] += omp_w(k) * exp(x[k]) * x[l];
      g[l] += omp_w(k) * exp(x[k]);
    }
}

/* A region that calls a helper (kept a call): h = x[i]^2 cos(x[i-1]). */
static __attribute__((noinline)) double helper(const double *x, int i, int n) {
  return x[i] * x[i] * cos(x[(i + n - 1) % n]);
}
double calls_helper(double *x, double *y, int n) {
#pragma omp parallel for schedule(dynamic, 3)
  for (int i = 0; i < n; i++)
    y[i] = helper(x, i, n);
  return loss(y, n);
}
static void calls_helper_grad(const double *x, int n, double *g) {
  for (int i = 0; i < n; i++) {
    int p = (i + n - 1) % n;
    g[i] += omp_w(i) * 2 * x[i] * cos(x[p]);
    g[p] -= omp_w(i) * x[i] * x[i] * sin(x[p]);
  }
}

/* Two regions: u = sin(x), then z[i] = u[i] u[i+1] (u written by other
 * threads in the first region); the loss sums w_i z[i]. */
double two_regions(double *x, double *y, int n) {
  double *u = y, *z = y + NMAX;
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    u[i] = sin(x[i]);
#pragma omp parallel for schedule(static, 1)
  for (int i = 0; i < n; i++)
    z[i] = u[i] * u[(i + 1) % n];
  return loss(z, n);
}
static void two_regions_grad(const double *x, int n, double *g) {
  for (int i = 0; i < n; i++) {
    int j = (i + 1) % n;
    g[i] += omp_w(i) * cos(x[i]) * sin(x[j]);
    g[j] += omp_w(i) * sin(x[i]) * cos(x[j]);
  }
}

int main(void) {
  double x0[NMAX];
  omp_inputs(x0);
  omp_set_schedule(omp_sched_dynamic, 4);
  omp_banner("openmp-parallel-for");
  int sizes[] = {37, 101};
  for (int s = 0; s < 2; s++) {
    int n = sizes[s];
    CHECK_OMP(sched_static, x0, n);
    CHECK_OMP(sched_static3, x0, n);
    CHECK_OMP(sched_dynamic, x0, n);
    CHECK_OMP(sched_dynamic2, x0, n);
    CHECK_OMP(sched_guided, x0, n);
    CHECK_OMP(sched_runtime, x0, n);
    CHECK_OMP(threads3, x0, n);
    CHECK_OMP(collapse2, x0, n);
    CHECK_OMP(calls_helper, x0, n);
    CHECK_OMP(two_regions, x0, n);
  }
  CHECK_OMP(if_clause, x0, 37);
  CHECK_OMP(if_clause, x0, 7);
  /* The runtime schedule once more, now guided. */
  omp_set_schedule(omp_sched_guided, 2);
  CHECK_OMP(sched_runtime, x0, 37);
  return zy_report();
}
