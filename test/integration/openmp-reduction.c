// Gradients through OpenMP reductions (issue #15): reduction(+), (*),
// (max) and (min) on double, (+) and (max) on float, several variables in
// one clause with a second clause beside it, and a `parallel` region with a
// separate `for reduction` (with nowait, and without: then the reduced value
// is read by every thread in a second loop of the same region).  The
// results are used nonlinearly after the region (s*s + s, p + log p, ...).
// max/min have a unique winner; with ties the gradient must go to exactly
// one of the tied elements (the sum of the entries is the closed form).
// Closed forms and finite differences of the same parallel function, with
// 1, 2 and 4 threads; the Archer run checks for data races.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openmp
// RUN: %clang -fopenmp -O0 %s -lm -o %t0 && %omp-run %t0
// RUN: %clang -fopenmp -O2 %s -lm -o %t2 && %omp-run %t2
// RUN: %if archer %{ %archer-clang -O2 %s -lm -o %ta && %archer-run %ta %}
#include "omp-grad.h"

/* s = sum x[i] x[i+1];  loss s^2 + s. */
double red_sum(double *x, double *y, int n) {
  double s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += x[i] * x[(i + 1) % n];
  return s * s + s;
}
static void red_sum_grad(const double *x, int n, double *g) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[(i + 1) % n];
  for (int i = 0; i < n; i++)
    g[i] = (2 * s + 1) * (x[(i + 1) % n] + x[(i + n - 1) % n]);
}

/* p = prod (1 + 0.2 x[i]^2);  loss p + log p. */
double red_mul(double *x, double *y, int n) {
  double p = 1;
#pragma omp parallel for reduction(* : p) schedule(dynamic, 2)
  for (int i = 0; i < n; i++)
    p *= 1 + 0.2 * x[i] * x[i];
  return p + log(p);
}
static void red_mul_grad(const double *x, int n, double *g) {
  double p = 1;
  for (int i = 0; i < n; i++)
    p *= 1 + 0.2 * x[i] * x[i];
  for (int i = 0; i < n; i++)
    g[i] = (1 + 1 / p) * p * 0.4 * x[i] / (1 + 0.2 * x[i] * x[i]);
}

/* m = max w_i x[i] (fmax);  loss m^2 + sin m.  Unique winner. */
double red_max(double *x, double *y, int n) {
  double m = -HUGE_VAL;
#pragma omp parallel for reduction(max : m)
  for (int i = 0; i < n; i++)
    m = fmax(m, omp_w(i) * x[i]);
  return m * m + sin(m);
}
static int argbest(const double *v, int n, int sign) {
  int k = 0;
  for (int i = 1; i < n; i++)
    if (sign * v[i] > sign * v[k])
      k = i;
  return k;
}
static void red_max_grad(const double *x, int n, double *g) {
  double v[NMAX];
  for (int i = 0; i < n; i++)
    v[i] = omp_w(i) * x[i];
  int k = argbest(v, n, 1);
  g[k] = (2 * v[k] + cos(v[k])) * omp_w(k);
}

/* m = min (x[i]^2 + 0.01 i) (a select);  loss exp(m) + m. */
double red_min(double *x, double *y, int n) {
  double m = HUGE_VAL;
#pragma omp parallel for reduction(min : m) schedule(static, 3)
  for (int i = 0; i < n; i++) {
    double v = x[i] * x[i] + 0.01 * i;
    m = v < m ? v : m;
  }
  return exp(m) + m;
}
static void red_min_grad(const double *x, int n, double *g) {
  double v[NMAX];
  for (int i = 0; i < n; i++)
    v[i] = x[i] * x[i] + 0.01 * i;
  int k = argbest(v, n, -1);
  g[k] = (exp(v[k]) + 1) * 2 * x[k];
}

/* Several reductions: s = sum x, q = sum x^2 (one clause), p = prod (1 +
 * 0.1 x), hi = max (x + 0.002 i), lo = min (sin x + 0.002 i) (the tilt
 * keeps the winners 0.018 ahead, beyond the finite-difference steps);
 * loss s q + log p + hi lo. */
double red_multi(double *x, double *y, int n) {
  double s = 0, q = 0, p = 1, hi = -HUGE_VAL, lo = HUGE_VAL;
#pragma omp parallel for reduction(+ : s, q) reduction(* : p)                 \
    reduction(max : hi) reduction(min : lo)
  for (int i = 0; i < n; i++) {
    s += x[i];
    q += x[i] * x[i];
    p *= 1 + 0.1 * x[i];
    hi = x[i] + 0.002 * i > hi ? x[i] + 0.002 * i : hi;
    lo = fmin(lo, sin(x[i]) + 0.002 * i);
  }
  return s * q + log(p) + hi * lo;
}
static void red_multi_grad(const double *x, int n, double *g) {
  double s = 0, q = 0, u[NMAX], v[NMAX];
  for (int i = 0; i < n; i++) {
    s += x[i];
    q += x[i] * x[i];
    u[i] = x[i] + 0.002 * i;
    v[i] = sin(x[i]) + 0.002 * i;
  }
  for (int i = 0; i < n; i++)
    g[i] = q + 2 * s * x[i] + 0.1 / (1 + 0.1 * x[i]);
  int h = argbest(u, n, 1), l = argbest(v, n, -1);
  g[h] += v[l];
  g[l] += u[h] * cos(x[l]);
}

/* `parallel` + `for reduction nowait`: s = sum sin(x[i]) x[i];  loss s^2. */
double red_nowait(double *x, double *y, int n) {
  double s = 0;
#pragma omp parallel
  {
#pragma omp for reduction(+ : s) nowait
    for (int i = 0; i < n; i++)
      s += sin(x[i]) * x[i];
  }
  return s * s;
}
static void red_nowait_grad(const double *x, int n, double *g) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += sin(x[i]) * x[i];
  for (int i = 0; i < n; i++)
    g[i] = 2 * s * (cos(x[i]) * x[i] + sin(x[i]));
}

/* `parallel` + `for reduction` (with its barrier), then every thread reads
 * the reduced s: y[i] = s x[i], loss sum w_i y[i] = s W. */
double red_wait(double *x, double *y, int n) {
  double s = 0;
#pragma omp parallel
  {
#pragma omp for reduction(+ : s) schedule(static, 2)
    for (int i = 0; i < n; i++)
      s += sin(x[i]) * x[i];
#pragma omp for
    for (int i = 0; i < n; i++)
      y[i] = s * x[i];
  }
  double l = 0;
  for (int i = 0; i < n; i++)
    l += omp_w(i) * y[i];
  return l;
}
static void red_wait_grad(const double *x, int n, double *g) {
  double s = 0, w = 0;
  for (int i = 0; i < n; i++) {
    s += sin(x[i]) * x[i];
    w += omp_w(i) * x[i];
  }
  for (int i = 0; i < n; i++)
    g[i] = (cos(x[i]) * x[i] + sin(x[i])) * w + s * omp_w(i);
}

/* Ties: m = max x[i] where the largest value occurs three times. */
double red_max_tie(double *x, double *y, int n) {
  double m = -HUGE_VAL;
#pragma omp parallel for reduction(max : m) schedule(static, 1)
  for (int i = 0; i < n; i++)
    m = x[i] > m ? x[i] : m;
  return m * m + sin(m);
}
static void red_max_tie_grad(const double *x, int n, double *g) {
  int k = argbest(x, n, 1);
  g[k] = 2 * x[k] + cos(x[k]);
}

/* float: s = sum x^2 x[i+1], loss s^2;  m = max w_i x[i] (fmaxf), loss m^3. */
float red_sumf(float *x, float *y, int n) {
  float s = 0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += x[i] * x[i] * x[(i + 1) % n];
  return s * s;
}
static void red_sumf_grad(const float *x, int n, float *g) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += (double)x[i] * x[i] * x[(i + 1) % n];
  for (int i = 0; i < n; i++) {
    int p = (i + n - 1) % n;
    g[i] = (float)(2 * s * (2.0 * x[i] * x[(i + 1) % n] + (double)x[p] * x[p]));
  }
}
float red_maxf(float *x, float *y, int n) {
  float m = -HUGE_VALF;
#pragma omp parallel for reduction(max : m) schedule(guided)
  for (int i = 0; i < n; i++)
    m = fmaxf(m, (float)omp_w(i) * x[i]);
  return m * m * m;
}
static void red_maxf_grad(const float *x, int n, float *g) {
  double v[NMAX];
  for (int i = 0; i < n; i++)
    v[i] = (float)omp_w(i) * x[i];
  int k = argbest(v, n, 1);
  g[k] = (float)(3 * v[k] * v[k] * (float)omp_w(k));
}

#ifdef ZY_SELFTEST
#define OMP_AUTODIFF_F(f, x, dx, y, dy, n) f##_grad(x, n, dx)
#else
#define OMP_AUTODIFF_F(f, x, dx, y, dy, n)                                     \
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, y, dy,           \
                    enzyme_const, n)
#endif

/* float: the closed form (in double) to 1e-4, and a central difference
 * with steps 2^-5 and 2^-6 (exact in float; the Richardson step makes it
 * exact for these polynomials, so only rounding is left: 2.3e-4) to
 * 2e-3.  The steps stay below the max's lead over the runner-up (0.08). */
#define CHECK_OMPF(f, x0d, n)                                                  \
  do {                                                                         \
    float x_[NMAX], dx_[NMAX] = {0}, y_[2 * NMAX] = {0};                       \
    float dy_[2 * NMAX] = {0}, want_[NMAX] = {0}, yf_[2 * NMAX];               \
    double got_[NMAX], wantd_[NMAX], fd_[NMAX] = {0};                          \
    char what_[80];                                                            \
    for (int k_ = 0; k_ < NMAX; k_++)                                          \
      x_[k_] = (float)(x0d)[k_];                                               \
    OMP_AUTODIFF_F(f, x_, dx_, y_, dy_, n);                                    \
    ZY_PERTURB_AT(dx_);                                                        \
    for (int k_ = 0; k_ < NMAX; k_++)                                          \
      x_[k_] = (float)(x0d)[k_];                                               \
    f##_grad(x_, n, want_);                                                    \
    for (int k_ = 0; k_ < OMP_FD_COUNT(n); k_++) {                             \
      float s_ = x_[k_], h_ = 1.0f / 32, v_[4];                                \
      float at_[4] = {s_ + h_, s_ - h_, s_ + h_ / 2, s_ - h_ / 2};             \
      for (int j_ = 0; j_ < 4; j_++) {                                         \
        x_[k_] = at_[j_];                                                      \
        v_[j_] = f(x_, yf_, n);                                                \
      }                                                                        \
      x_[k_] = s_;                                                             \
      double d1_ = ((double)v_[0] - v_[1]) / (2 * h_);                         \
      double d2_ = ((double)v_[2] - v_[3]) / h_;                               \
      fd_[k_] = (4 * d2_ - d1_) / 3;                                           \
    }                                                                          \
    for (int k_ = 0; k_ < NMAX; k_++) {                                        \
      got_[k_] = dx_[k_];                                                      \
      wantd_[k_] = want_[k_];                                                  \
    }                                                                          \
    snprintf(what_, sizeof what_, "%s(n=%d) closed form", #f, (int)(n));       \
    omp_check_array(what_, got_, wantd_, NMAX, 1e-4);                          \
    snprintf(what_, sizeof what_, "%s(n=%d) finite diff", #f, (int)(n));       \
    omp_check_array(what_, got_, fd_, OMP_FD_COUNT(n), 2e-3);                  \
  } while (0)

/* With ties the gradient of the maximum goes to one of the tied entries
 * (which one depends on the threads): exactly one nonzero entry, among the
 * ties, equal to the closed form. */
static void check_tie(const double *xt, int n) {
  double x[NMAX], dx[NMAX] = {0}, y[2 * NMAX], dy[2 * NMAX] = {0};
  memcpy(x, xt, sizeof x);
  OMP_AUTODIFF(red_max_tie, x, dx, y, dy, n);
  ZY_PERTURB_AT(dx);
  double m = xt[argbest(xt, n, 1)], sum = 0;
  int nonzero = 0, at = -1;
  for (int i = 0; i < NMAX; i++)
    if (dx[i] != 0) {
      nonzero++;
      sum += dx[i];
      at = i;
    }
  zy_check_close("red_max_tie: one entry", nonzero, 1, 0);
  zy_check_close("red_max_tie: at a tie", at >= 0 && xt[at] == m, 1, 0);
  zy_check_close("red_max_tie: sum", sum, 2 * m + cos(m), 1e-12);
}

int main(void) {
  double x0[NMAX], xt[NMAX];
  omp_inputs(x0);
  omp_banner("openmp-reduction");
  int sizes[] = {37, 101};
  for (int s = 0; s < 2; s++) {
    int n = sizes[s];
    CHECK_OMP(red_sum, x0, n);
    CHECK_OMP(red_mul, x0, n);
    CHECK_OMP(red_max, x0, n);
    CHECK_OMP(red_min, x0, n);
    CHECK_OMP(red_multi, x0, n);
    CHECK_OMP(red_nowait, x0, n);
    CHECK_OMP(red_wait, x0, n);
    CHECK_OMPF(red_sumf, x0, n);
    CHECK_OMPF(red_maxf, x0, n);
  }
  /* Ties: 0.9 at 5, 17 and 30 (different threads' chunks), all else below. */
  for (int i = 0; i < NMAX; i++)
    xt[i] = 0.5 * x0[i];
  xt[5] = xt[17] = xt[30] = 0.9;
  check_tie(xt, 37);
  /* With a unique winner the same function is checked as usual. */
  CHECK_OMP(red_max_tie, x0, 37);
  return zy_report();
}
