// Forward mode through OpenMP (issue 32): __enzyme_fwddiff of functions
// with parallel for loops (static and dynamic schedules, a firstprivate
// double), reductions (+, *, max, min on double, + on float), critical
// sections and a lock, atomic updates, atomic read and write, a barrier,
// single and master.  Each tangent along a direction v is checked against
// dot(grad, v) with grad from __enzyme_autodiff of the same function, and
// against a central finite difference of the same parallel function along
// v; the primal outputs the tangent function writes against the
// function's own.  Vector mode (enzyme_width 2) through regions.  Then
// Hessian-vector products as reverse over forward (__enzyme_autodiff of a
// function calling __enzyme_fwddiff of a function with an OpenMP
// reduction, critical section, atomics or barrier: the tangent's regions,
// atomic adds and locks reversed): a closed form for the reduction, and
// central differences of the gradient for all (forward over reverse
// through a region is a located error: errors/fwddiff-openmp.c).  1, 2 and
// 4 threads, and under Archer.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openmp
// RUN: %clang -fopenmp -O0 %s -lm -o %t0 && %omp-run %t0
// RUN: %clang -fopenmp -O2 %s -lm -o %t2 && %omp-run %t2
// RUN: %if archer %{ %archer-clang -O2 %s -lm -o %ta && %archer-run %ta %}
#include "omp-grad.h"

double __enzyme_fwddiff(void *, ...);
void __enzyme_autodiff_void(void *, ...);
typedef struct {
  double d[2];
} Two;
Two __enzyme_fwddiff_two(void *, ...);
extern int enzyme_width, enzyme_dupv;

/* y[i] = sin(x[i]) x[i+1] (static schedule);  loss sum w_i y[i]^2. */
double pfor_static(double *x, double *y, int n) {
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; i++)
    y[i] = sin(x[i]) * x[(i + 1) % n];
  double l = 0;
  for (int i = 0; i < n; i++)
    l += omp_w(i) * y[i] * y[i];
  return l;
}

/* y[i] = a exp(0.1 x[i]) x[i+2], a firstprivate (dynamic schedule). */
double pfor_dynamic(double *x, double *y, int n) {
  double a = 0.5 + x[0] * x[0];
#pragma omp parallel for schedule(dynamic, 3) firstprivate(a)
  for (int i = 0; i < n; i++)
    y[i] = a * exp(0.1 * x[i]) * x[(i + 2) % n];
  double l = 0;
  for (int i = 0; i < n; i++)
    l += omp_w(i) * y[i];
  return l;
}

double red_sum(double *x, double *y, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += x[i] * x[(i + 1) % n];
  return s * s + s;
}

double red_mul(double *x, double *y, int n) {
  double p = 1;
#pragma omp parallel for reduction(* : p) schedule(dynamic, 2)
  for (int i = 0; i < n; i++)
    p *= 1 + 0.2 * x[i] * x[i];
  return p + log(p);
}

double red_max(double *x, double *y, int n) {
  double m = -HUGE_VAL;
#pragma omp parallel for reduction(max : m)
  for (int i = 0; i < n; i++)
    m = fmax(m, omp_w(i) * x[i]);
  return m * m + sin(m);
}

double red_min(double *x, double *y, int n) {
  double m = HUGE_VAL;
#pragma omp parallel for reduction(min : m) schedule(static, 3)
  for (int i = 0; i < n; i++) {
    double v = x[i] * x[i] + 0.01 * i;
    m = v < m ? v : m;
  }
  return exp(m) + m;
}

/* float partial sums, two variables in one clause. */
double red_float(double *x, double *y, int n) {
  float s = 0, q = 0;
#pragma omp parallel for reduction(+ : s, q)
  for (int i = 0; i < n; i++) {
    s += (float)x[i];
    q += (float)(x[i] * x[i]);
  }
  return (double)s * q;
}

/* critical: p = p (1 + x/5) in any order. */
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

/* A lock around s += x[i] exp(x[i+1]/10). */
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

/* atomic updates of a scalar and of contended bins. */
double atomics(double *x, double *y, int n) {
  double s = 0, *h = y;
  for (int b = 0; b < 4; b++)
    h[b] = 0;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
#pragma omp atomic
    s += x[i] * x[i];
#pragma omp atomic update
    h[i % 4] -= x[i] * x[(i + 1) % n];
  }
  double l = s + s * s;
  for (int b = 0; b < 4; b++)
    l += h[b] * h[b];
  return l;
}

/* atomic read and atomic write. */
double atomic_rw(double *x, double *y, int n) {
  double cells[4] = {0, 0, 0, 0}, s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++) {
    double v;
#pragma omp atomic read
    v = x[i];
    s += v * v;
    if (i < 4) {
#pragma omp atomic write
      cells[i] = sin(v);
    }
  }
  return s + cells[0] * cells[1] + cells[2] * cells[3];
}

/* Two phases around a barrier: phase 2 reads what others wrote. */
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

/* u = sin x, one thread sums s = sum u^2 (single / master), z = s u. */
#define ONE_THREAD(name, construct, after)                                     \
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
  }
ONE_THREAD(single1, "omp single", "omp flush")
ONE_THREAD(master1, "omp master", "omp barrier")

/* --- Tangents ------------------------------------------------------------ */

typedef double (*Fn)(double *, double *, int);

static void direction(double *v, int seed) {
  for (int i = 0; i < NMAX; i++)
    v[i] = cos(0.9 * i + seed) * (1 + 0.1 * seed);
}

/* f(x + t v). */
static double along(Fn f, const double *x, const double *v, double t, int n) {
  double xt[NMAX], y[2 * NMAX] = {0};
  for (int i = 0; i < NMAX; i++)
    xt[i] = x[i] + t * v[i];
  return f(xt, y, n);
}

static double dot_grad(double *dx, const double *v) {
  double d = 0;
  for (int i = 0; i < NMAX; i++)
    d += dx[i] * v[i];
  return d;
}

#define CHECK_FWD(f, x0, n)                                                    \
  do {                                                                         \
    double x_[NMAX], v_[NMAX], dx_[NMAX] = {0}, y_[2 * NMAX] = {0};            \
    double dy_[2 * NMAX] = {0}, yp_[2 * NMAX] = {0}, gy_[2 * NMAX] = {0};      \
    char what_[96];                                                            \
    memcpy(x_, x0, sizeof x_);                                                 \
    direction(v_, 1);                                                          \
    double t_ = __enzyme_fwddiff((void *)f, enzyme_dup, x_, v_, enzyme_dup,    \
                                 y_, dy_, enzyme_const, n);                    \
    f(x_, yp_, n);                                                             \
    OMP_AUTODIFF(f, x_, dx_, yp_, gy_, n);                                     \
    double fd_ = ZY_DIFF(t, 0, along(f, x0, v_, t, n));                        \
    snprintf(what_, sizeof what_, "%s(n=%d) tangent vs dot(grad, v)", #f, n);  \
    zy_check_close(what_, t_, dot_grad(dx_, v_), 1e-11);                       \
    snprintf(what_, sizeof what_, "%s(n=%d) tangent vs finite diff", #f, n);   \
    zy_check_close(what_, t_, fd_, ZY_FD_TOL);                                 \
    f(x_, yp_, n);                                                             \
    snprintf(what_, sizeof what_, "%s(n=%d) primal outputs", #f, n);           \
    omp_check_array(what_, y_, yp_, 2 * NMAX, 1e-13);                          \
  } while (0)

/* Vector mode: two directions in one pass, against dot(grad, v_k). */
#define CHECK_FWD2(f, x0, n)                                                   \
  do {                                                                         \
    double x_[NMAX], v_[2][NMAX], dx_[NMAX] = {0}, y_[2 * NMAX] = {0};         \
    double dy_[2][2 * NMAX] = {{0}}, gy_[2 * NMAX] = {0};                      \
    char what_[96];                                                            \
    memcpy(x_, x0, sizeof x_);                                                 \
    direction(v_[0], 2);                                                       \
    direction(v_[1], 3);                                                       \
    Two t_ = __enzyme_fwddiff_two((void *)f, enzyme_width, 2, enzyme_dupv,     \
                                  sizeof v_[0], x_, v_, enzyme_dupv,           \
                                  sizeof dy_[0], y_, dy_, enzyme_const, n);    \
    OMP_AUTODIFF(f, x_, dx_, y_, gy_, n);                                      \
    for (int k_ = 0; k_ < 2; k_++) {                                           \
      snprintf(what_, sizeof what_, "%s(n=%d) width 2, direction %d", #f, n,   \
               k_);                                                            \
      zy_check_close(what_, t_.d[k_], dot_grad(dx_, v_[k_]), 1e-11);           \
    }                                                                          \
  } while (0)

/* --- Hessian-vector products ------------------------------------------- */

/* Reverse over forward: the gradient of f's tangent along v is H v.
 * f_along: entry k of grad f(x + t v), from __enzyme_autodiff. */
#define DIRDER(f)                                                              \
  double f##_dir(double *x, double *v, double *y, double *dy, int n) {         \
    return __enzyme_fwddiff((void *)f, enzyme_dup, x, v, enzyme_dup, y, dy,    \
                            enzyme_const, n);                                  \
  }                                                                            \
  static double f##_along(const double *x, const double *v, double t, int n,   \
                          int k) {                                             \
    double xt[NMAX], y[2 * NMAX] = {0}, g[NMAX] = {0}, gy[2 * NMAX] = {0};     \
    for (int i = 0; i < NMAX; i++)                                             \
      xt[i] = x[i] + t * v[i];                                                 \
    __enzyme_autodiff_void((void *)f, enzyme_dup, xt, g, enzyme_dup, y, gy,    \
                           enzyme_const, n);                                   \
    return g[k];                                                               \
  }
DIRDER(red_sum)
DIRDER(red_mul)
DIRDER(crit_mul)
DIRDER(atomics)
DIRDER(barrier2)

/* H(x) v of red_sum: s = sum x_i x_{i+1}, l = s^2 + s, b = grad s:
 * H = (2s + 1) A + 2 b b^T, A the adjacency of the cycle (n >= 3). */
static void red_sum_hv(const double *x, const double *v, double *hv, int n) {
  double s = 0, bv = 0, b[NMAX];
  for (int i = 0; i < n; i++)
    s += x[i] * x[(i + 1) % n];
  for (int i = 0; i < n; i++) {
    b[i] = x[(i + 1) % n] + x[(i + n - 1) % n];
    bv += b[i] * v[i];
  }
  for (int i = 0; i < NMAX; i++)
    hv[i] = i < n ? (2 * s + 1) * (v[(i + 1) % n] + v[(i + n - 1) % n]) +
                        2 * b[i] * bv
                  : 0;
}

#define CHECK_HV(f, x0, n, closed)                                             \
  do {                                                                         \
    double x_[NMAX], v_[NMAX], y_[2 * NMAX] = {0}, dy_[2 * NMAX] = {0};        \
    double hv_[NMAX] = {0}, gy_[2 * NMAX] = {0}, gdy_[2 * NMAX] = {0};         \
    double fd_[NMAX], want_[NMAX];                                             \
    char what_[96];                                                            \
    memcpy(x_, x0, sizeof x_);                                                 \
    direction(v_, 4);                                                          \
    __enzyme_autodiff_void((void *)f##_dir, enzyme_dup, x_, hv_, enzyme_const, \
                           v_, enzyme_dup, y_, gy_, enzyme_dup, dy_, gdy_,     \
                           enzyme_const, n);                                   \
    for (int k_ = 0; k_ < NMAX; k_++)                                          \
      fd_[k_] = ZY_DIFF(t, 0, f##_along(x0, v_, t, n, k_));                    \
    snprintf(what_, sizeof what_, "%s(n=%d) Hv vs finite diff of grad", #f,    \
             n);                                                               \
    omp_check_array(what_, hv_, fd_, NMAX, 1e-7);                              \
    if (closed) {                                                              \
      red_sum_hv(x0, v_, want_, n);                                            \
      snprintf(what_, sizeof what_, "%s(n=%d) Hv closed form", #f, n);         \
      omp_check_array(what_, hv_, want_, NMAX, 1e-11);                         \
    }                                                                          \
  } while (0)

int main(void) {
  double x0[NMAX];
  omp_inputs(x0);
  omp_banner("fwd-openmp");
  int sizes[] = {1, 7, 64};
  for (int s = 0; s < 3; s++) {
    int n = sizes[s];
    CHECK_FWD(pfor_static, x0, n);
    CHECK_FWD(pfor_dynamic, x0, n);
    CHECK_FWD(red_sum, x0, n);
    CHECK_FWD(red_mul, x0, n);
    CHECK_FWD(red_max, x0, n);
    CHECK_FWD(red_min, x0, n);
    CHECK_FWD(crit_mul, x0, n);
    CHECK_FWD(locked, x0, n);
    CHECK_FWD(atomics, x0, n);
    CHECK_FWD(atomic_rw, x0, n);
    CHECK_FWD(barrier2, x0, n);
    CHECK_FWD(single1, x0, n);
    CHECK_FWD(master1, x0, n);
  }
  {
    /* float sums: the tangent is exact for the float program; the
     * references are in double, loosely. */
    double x[NMAX], v[NMAX], dx[NMAX] = {0}, y[2 * NMAX], dy[2 * NMAX] = {0};
    double gy[2 * NMAX] = {0};
    memcpy(x, x0, sizeof x);
    direction(v, 1);
    double t = __enzyme_fwddiff((void *)red_float, enzyme_dup, x, v, enzyme_dup,
                                y, dy, enzyme_const, 40);
    OMP_AUTODIFF(red_float, x, dx, y, gy, 40);
    zy_check_close("red_float tangent vs dot(grad, v)", t, dot_grad(dx, v),
                   1e-5);
  }
  CHECK_FWD2(pfor_static, x0, 64);
  CHECK_FWD2(red_sum, x0, 64);
  CHECK_FWD2(atomics, x0, 64);
  CHECK_FWD2(crit_mul, x0, 64);
  for (int s = 1; s < 3; s++) {
    int n = sizes[s];
    CHECK_HV(red_sum, x0, n, 1);
    CHECK_HV(red_mul, x0, n, 0);
    CHECK_HV(crit_mul, x0, n, 0);
    CHECK_HV(atomics, x0, n, 0);
    CHECK_HV(barrier2, x0, n, 0);
  }
  return zy_report();
}
