// Gradients through OpenMP sum reductions, whose reverse is a broadcast
// (issue 31): every thread's partial gets the adjoint of the shared
// variable, read after a barrier, with no lock.  reduction(+) and (-) on
// double, several variables in one clause (doubles and an int counter,
// floats), an array section, a reduction in a worksharing loop run by a
// serial loop in the region, a reduced value that the same region reads
// afterwards (and reduces again), nowait with an explicit barrier, a
// region in a serial loop, and + beside * in one construct (which keeps
// the critical section).  Each against central differences of the same
// parallel function, entries past n must stay zero (the losses are kept
// near 1-10: the threads' order of a sum moves it by its rounding, which
// the differences divide by the step), the float one also against its
// closed form; with 1, 2, 3 and 4 threads; the Archer run checks for
// data races.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openmp
// RUN: %clang -fopenmp -O0 %s -lm -o %t0 && %omp-run --threads=1,2,3,4 %t0
// RUN: %clang -fopenmp -O2 %s -lm -o %t2 && %omp-run --threads=1,2,3,4 %t2
// RUN: %if archer %{ %archer-clang -O2 %s -lm -o %ta && %archer-run %ta %}
#include "omp-grad.h"

/* s = 0.5 + sum 0.1 x[i] x[i+1];  loss s^2 + s. */
double sum_plain(double *x, double *y, int n) {
  double s = 0.5;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += 0.1 * x[i] * x[(i + 1) % n];
  return s * s + s;
}

/* d = 1 - sum 0.1 sin(x[i]) (reduction(-));  loss d^3. */
double sum_minus(double *x, double *y, int n) {
  double d = 1;
#pragma omp parallel for reduction(- : d) schedule(static, 3)
  for (int i = 0; i < n; i++)
    d -= 0.1 * sin(x[i]);
  return d * d * d;
}

/* Several variables: s and u (double) with c (an int count) in one
 * clause, q in a (-) clause beside it;  loss s q + u c. */
double sum_several(double *x, double *y, int n) {
  double s = 0, q = 2, u = 0;
  int c = 0;
#pragma omp parallel for reduction(+ : s, u, c) reduction(- : q)
  for (int i = 0; i < n; i++) {
    s += 0.1 * exp(0.3 * x[i]);
    q -= 0.1 * x[i] * x[i];
    u += 0.05 * x[i];
    c += i % 3 == 0;
  }
  return s * q + u * c;
}

/* An array section: a[k] = sum over i = k mod 3 of 0.3 x[i]^2;  loss
 * a0 a1 + a2^2. */
double sum_array(double *x, double *y, int n) {
  double a[3] = {0, 0, 0};
#pragma omp parallel for reduction(+ : a[ : 3])
  for (int i = 0; i < n; i++)
    a[i % 3] += 0.3 * x[i] * x[i];
  return a[0] * a[1] + a[2] * a[2];
}

/* A worksharing loop with a reduction, run by every thread in a serial
 * loop inside one region: s = sum_r sum_i 0.02 (r + 1) cos(x[i] r + 0.1
 * x[i]);  loss s^2. */
double sum_nested(double *x, double *y, int n) {
  double s = 0;
#pragma omp parallel
  for (int r = 0; r < 3; r++) {
#pragma omp for reduction(+ : s) schedule(dynamic, 4)
    for (int i = 0; i < n; i++)
      s += 0.02 * (r + 1) * cos(x[i] * r + 0.1 * x[i]);
  }
  return s * s;
}

/* The reduced value feeds the rest of the region: s = sum x^2, then
 * y[i] = sin(s) x[i] (each thread reads s after the reduction's barrier),
 * then t = sum y[i]^2 + s;  loss t. */
double sum_feeds(double *x, double *y, int n) {
  double s = 0, t = 0;
#pragma omp parallel
  {
#pragma omp for reduction(+ : s)
    for (int i = 0; i < n; i++)
      s += x[i] * x[i] * 0.05;
#pragma omp for
    for (int i = 0; i < n; i++)
      y[i] = sin(s) * x[i];
#pragma omp for reduction(+ : t)
    for (int i = 0; i < n; i++)
      t += y[i] * y[i] + s / n;
  }
  return t;
}

/* nowait, then an explicit barrier before the region reads s. */
double sum_nowait(double *x, double *y, int n) {
  double s = 0, t = 0;
#pragma omp parallel
  {
#pragma omp for reduction(+ : s) nowait
    for (int i = 0; i < n; i++)
      s += 0.1 * tanh(x[i]);
#pragma omp barrier
#pragma omp for reduction(+ : t) nowait
    for (int i = 0; i < n; i++)
      t += 0.1 * s * x[i] * omp_w(i);
  }
  return t + s * s;
}

/* A region in a serial loop: l = sum_r (sum_i 0.1 x[i]^(r+1))^2. */
double sum_in_loop(double *x, double *y, int n) {
  double l = 0;
  for (int r = 0; r < 3; r++) {
    double s = 0;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < n; i++)
      s += 0.1 * pow(x[i], r + 1);
    l += s * s;
  }
  return l;
}

/* + and * in one construct: the product's compare-and-swap loop keeps
 * this reduction a critical section;  loss s + log p. */
double sum_and_product(double *x, double *y, int n) {
  double s = 0, p = 1;
#pragma omp parallel for reduction(+ : s) reduction(* : p)
  for (int i = 0; i < n; i++) {
    s += x[i] * x[i];
    p *= 1 + 0.1 * x[i];
  }
  return s + log(p);
}

/* float, two in one clause: s = sum x[i]^2, t = sum x[i];  loss s^2 + t. */
float sum_float(float *x, float *y, int n) {
  float s = 0, t = 0;
#pragma omp parallel for reduction(+ : s, t)
  for (int i = 0; i < n; i++) {
    s += x[i] * x[i];
    t += x[i];
  }
  return s * s + t;
}

/* The gradient against central differences of the same function (all
 * NMAX entries: those the function does not read must stay zero). */
#define CHECK_FD(f, x0, n)                                                     \
  do {                                                                         \
    double x_[NMAX], dx_[NMAX] = {0}, y_[2 * NMAX] = {0};                      \
    double dy_[2 * NMAX] = {0}, fd_[NMAX] = {0}, xf_[NMAX], yf_[2 * NMAX];     \
    char what_[80];                                                            \
    memcpy(x_, x0, sizeof x_);                                                 \
    __enzyme_autodiff((void *)f, enzyme_dup, x_, dx_, enzyme_dup, y_, dy_,     \
                      enzyme_const, n);                                        \
    memcpy(xf_, x0, sizeof xf_);                                               \
    for (int k_ = 0; k_ < OMP_FD_COUNT(n); k_++)                               \
      fd_[k_] = ZY_DIFF_AT(xf_, k_, f(xf_, yf_, n));                           \
    snprintf(what_, sizeof what_, "%s(n=%d) finite diff", #f, (int)(n));       \
    omp_check_array(what_, dx_, fd_, NMAX, ZY_FD_TOL);                         \
  } while (0)

/* float: the closed form (in double) to 1e-4, and central differences
 * with steps 2^-2 and 2^-3, Richardson (exact for the quartic loss but
 * for rounding, which the float sums make order-dependent) to 1e-2. */
static void check_float(const double *x0, int n) {
  float x[NMAX], dx[NMAX] = {0}, y[2 * NMAX], dy[2 * NMAX] = {0};
  double got[NMAX], fd[NMAX] = {0}, want[NMAX] = {0}, s2 = 0;
  char what[80];
  for (int k = 0; k < NMAX; k++)
    x[k] = (float)x0[k];
  __enzyme_autodiff((void *)sum_float, enzyme_dup, x, dx, enzyme_dup, y, dy,
                    enzyme_const, n);
  for (int k = 0; k < n; k++)
    s2 += (double)x[k] * x[k];
  for (int k = 0; k < n; k++)
    want[k] = 4 * s2 * x[k] + 1;
  for (int k = 0; k < OMP_FD_COUNT(n); k++) {
    float s = x[k], h = 1.0f / 4, v[4];
    float at[4] = {s + h, s - h, s + h / 2, s - h / 2};
    for (int j = 0; j < 4; j++) {
      x[k] = at[j];
      v[j] = sum_float(x, y, n);
    }
    x[k] = s;
    double d1 = ((double)v[0] - v[1]) / (2 * h), d2 = ((double)v[2] - v[3]) / h;
    fd[k] = (4 * d2 - d1) / 3;
  }
  for (int k = 0; k < NMAX; k++)
    got[k] = dx[k];
  snprintf(what, sizeof what, "sum_float(n=%d) closed form", n);
  omp_check_array(what, got, want, NMAX, 1e-4);
  snprintf(what, sizeof what, "sum_float(n=%d) finite diff", n);
  omp_check_array(what, got, fd, NMAX, 1e-2);
}

int main(void) {
  double x0[NMAX];
  omp_inputs(x0);
  omp_banner("openmp-sum-reduction");
  int sizes[] = {1, 37, 100};
  for (int s = 0; s < 3; s++) {
    int n = sizes[s];
    CHECK_FD(sum_plain, x0, n);
    CHECK_FD(sum_minus, x0, n);
    CHECK_FD(sum_several, x0, n);
    CHECK_FD(sum_array, x0, n);
    CHECK_FD(sum_nested, x0, n);
    CHECK_FD(sum_feeds, x0, n);
    CHECK_FD(sum_nowait, x0, n);
    CHECK_FD(sum_in_loop, x0, n);
    CHECK_FD(sum_and_product, x0, n);
    check_float(x0, n);
  }
  return zy_report();
}
