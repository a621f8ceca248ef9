// Gradients of loops with schedule(dynamic) and schedule(runtime) set to
// dynamic, run WITHOUT KMP_FORCE_MONOTONIC_DYNAMIC_SCHEDULE: libomp (19 and
// 22) runs OpenMP 5's default nonmonotonic:dynamic as its work-stealing
// "static steal" algorithm, which sometimes gives no thread the flag of the
// last chunk (a lastprivate variable keeps its value from before the loop)
// and sometimes aborts ("Assertion failure at kmp_dispatch.cpp(1618)",
// llvm/llvm-project#86995).  The regions the gradient replays ask for the
// monotonic schedule (the reverse runs each thread's own iterations
// whatever the schedule), so every gradient here matches its closed form,
// 40 times each, with 1, 2 and 4 threads (before the change, 13 and 15 of
// the 40 runs of last_dyn and last_dyn1 were wrong with 2 threads).  The
// primal (the program's own loops) keeps its schedule, so its values are not
// checked here.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openmp
// RUN: %clang -fopenmp -O0 %s -lm -o %t0
// RUN: env KMP_FORCE_MONOTONIC_DYNAMIC_SCHEDULE=0 KMP_BLOCKTIME=0 %omp-run %t0
// RUN: %clang -fopenmp -O2 %s -lm -o %t2
// RUN: env KMP_FORCE_MONOTONIC_DYNAMIC_SCHEDULE=0 KMP_BLOCKTIME=0 %omp-run %t2
// RUN: %clang -fopenmp -O2 -S -emit-llvm %s -o - | %FileCheck %s
// The program's loop keeps clang's schedule (35 | nonmonotonic, 1 << 30);
// the gradient's copy asks for 35 | monotonic (1 << 29).
// CHECK-LABEL: define internal void @last_dyn.omp_outlined(
// CHECK: call void @__kmpc_dispatch_init_4(ptr {{.*}}, i32 {{.*}}, i32 1073741859,
// CHECK-LABEL: define internal {{.*}} @__zymase_aug.last_dyn.omp_outlined
// CHECK: call void @__kmpc_dispatch_init_4(ptr {{.*}}, i32 {{.*}}, i32 536870947,
#include "check.h"

#include <omp.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

enum { N = 61, REPEAT = 40 };

static double w(int i) { return 1 + 0.01 * i; }

/* lastprivate(t) on a `for` in a `parallel`, dynamic with chunks of 3:
 * t = x[i] x[i+1], y[i] = sin t; the loss is sum w y + t^2 with t the last
 * iteration's, x[n-1] x[0]. */
double last_dyn(double *x, double *y, int n) {
  double t = 0;
#pragma omp parallel
  {
#pragma omp for lastprivate(t) schedule(dynamic, 3)
    for (int i = 0; i < n; i++) {
      t = x[i] * x[(i + 1) % n];
      y[i] = sin(t);
    }
  }
  double s = t * t;
  for (int i = 0; i < n; i++)
    s += w(i) * y[i];
  return s;
}

/* The same, combined `parallel for`, schedule(dynamic). */
double last_dyn1(double *x, double *y, int n) {
  double t = 0;
#pragma omp parallel for lastprivate(t) schedule(dynamic)
  for (int i = 0; i < n; i++) {
    t = x[i] * x[(i + 1) % n];
    y[i] = sin(t);
  }
  double s = t * t;
  for (int i = 0; i < n; i++)
    s += w(i) * y[i];
  return s;
}

/* schedule(runtime), the program having chosen dynamic,2 (omp_set_schedule,
 * nonmonotonic by default). */
double last_runtime(double *x, double *y, int n) {
  double t = 0;
#pragma omp parallel for lastprivate(t) schedule(runtime)
  for (int i = 0; i < n; i++) {
    t = x[i] * x[(i + 1) % n];
    y[i] = sin(t);
  }
  double s = t * t;
  for (int i = 0; i < n; i++)
    s += w(i) * y[i];
  return s;
}

/* d/dx of every function above. */
static void last_grad(const double *x, int n, double *g) {
  for (int i = 0; i < n; i++) {
    int j = (i + 1) % n;
    double t = x[i] * x[j];
    g[i] += w(i) * cos(t) * x[j];
    g[j] += w(i) * cos(t) * x[i];
  }
  double t = x[n - 1] * x[0];
  g[n - 1] += 2 * t * x[0];
  g[0] += 2 * t * x[n - 1];
}

/* Counts the entries of gradient dx (run r) that differ from want. */
static int wrong(const char *what, int r, const double *dx, const double *want,
                 int n) {
  int bad = 0;
  for (int k = 0; k < n; k++) {
    double scale = fabs(want[k]) > 1 ? fabs(want[k]) : 1;
    if (!(fabs(dx[k] - want[k]) <= 1e-12 * scale) && !bad++)
      printf("FAIL %s (run %d) dx[%d]: got %.17g, want %.17g\n", what, r, k,
             dx[k], want[k]);
  }
  return bad;
}

/* The gradient of f, REPEAT times, against the closed form. */
#define CHECK(f, x0, n)                                                        \
  do {                                                                         \
    double want_[N] = {0};                                                     \
    last_grad(x0, n, want_);                                                   \
    int bad_ = 0;                                                              \
    for (int r_ = 0; r_ < REPEAT; r_++) {                                      \
      double x_[N], dx_[N] = {0}, y_[N] = {0}, dy_[N] = {0};                   \
      memcpy(x_, x0, sizeof x_);                                               \
      __enzyme_autodiff((void *)f, enzyme_dup, x_, dx_, enzyme_dup, y_, dy_,   \
                        enzyme_const, n);                                      \
      bad_ += wrong(#f, r_, dx_, want_, n) != 0;                               \
    }                                                                          \
    zy_checks++;                                                               \
    if (bad_) {                                                                \
      zy_failures++;                                                           \
      printf("FAIL %s: %d of %d runs wrong\n", #f, bad_, REPEAT);              \
    } else {                                                                   \
      printf("ok   %s: %d runs\n", #f, REPEAT);                                \
    }                                                                          \
  } while (0)

int main(void) {
  const char *force = getenv("KMP_FORCE_MONOTONIC_DYNAMIC_SCHEDULE");
  printf("KMP_FORCE_MONOTONIC_DYNAMIC_SCHEDULE=%s, %d threads\n",
         force ? force : "(unset)", omp_get_max_threads());
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.3 + 0.55 * sin(1.7 * i + 0.2);
  omp_set_schedule(omp_sched_dynamic, 2);
  CHECK(last_dyn, x, N);
  CHECK(last_dyn1, x, N);
  CHECK(last_runtime, x, N);
  return zy_report();
}
