// Gradients through time stepping that overwrites its state at every step:
// a nonlinear heat-equation stencil on a dup array updated in place through
// a temporary (a local array, a buffer malloc'd and freed in every step, a
// variable-length array declared in the step, memcpy back into u, and a
// noinline step function with its own loop), a Gauss-Seidel sweep
// that updates u[i] in place from the already updated u[i - 1], a loop
// that overwrites the input values themselves, and particles (an array of
// structs with an int field) moved in place.  The gradients are with
// respect to the initial values (and the active scalar coefficient),
// checked against finite differences started from copies of the inputs.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O0 -Xclang -load -Xclang %plugin -mllvm -zymase-verify -mllvm -zymase-no-preopt %s -lm -o %tn && %tn
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-verify %s -lm -o %tv && %tv
// RUN: %valgrind %t0 > /dev/null
// RUN: %valgrind %t2 > /dev/null
#include <string.h>

#include "fd-memory.h"

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

#define N 10

static double sumsq(const double *u, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += u[i] * u[i];
  return s;
}

/* u_t = c u_xx + 0.1 sin(u), fixed ends, T explicit steps through a local
 * temporary copied back into u. */
double heat_tmp(double *u, double c, int T) {
  double tmp[N];
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      tmp[i] = u[i] + c * (u[i - 1] - 2 * u[i] + u[i + 1]) + 0.1 * sin(u[i]);
    for (int i = 1; i < N - 1; i++)
      u[i] = tmp[i];
  }
  return sumsq(u, N);
}

/* The same with a temporary malloc'd and freed inside every step. */
double heat_malloc(double *u, double c, int T) {
  for (int t = 0; t < T; t++) {
    double *tmp = malloc(N * sizeof(double));
    for (int i = 1; i < N - 1; i++)
      tmp[i] = u[i] + c * (u[i - 1] - 2 * u[i] + u[i + 1]) + 0.1 * sin(u[i]);
    for (int i = 1; i < N - 1; i++)
      u[i] = tmp[i];
    free(tmp);
  }
  return sumsq(u, N);
}

/* The same with a variable-length temporary declared in every step (its
 * size changes from step to step), copied back with memcpy. */
double heat_vla(double *u, double c, int T) {
  for (int t = 0; t < T; t++) {
    double tmp[N + t % 2];
    tmp[0] = u[0];
    tmp[N - 1] = u[N - 1];
    for (int i = 1; i < N - 1; i++)
      tmp[i] = u[i] + c * (u[i - 1] - 2 * u[i] + u[i + 1]) + 0.1 * sin(u[i]);
    memcpy(u, tmp, N * sizeof(double));
  }
  return sumsq(u, N);
}

/* The same with the step in a noinline function that loops and writes
 * both arrays. */
__attribute__((noinline)) static void heat_step(double *u, double *tmp,
                                                double c) {
  for (int i = 1; i < N - 1; i++)
    tmp[i] = u[i] + c * (u[i - 1] - 2 * u[i] + u[i + 1]) + 0.1 * sin(u[i]);
  for (int i = 1; i < N - 1; i++)
    u[i] = tmp[i];
}

double heat_call(double *u, double c, int T) {
  double tmp[N];
  for (int t = 0; t < T; t++)
    heat_step(u, tmp, c);
  return sumsq(u, N);
}

/* Gauss-Seidel-like: no temporary, u[i] reads the new u[i - 1] and the old
 * u[i + 1] and u[i]. */
double gauss_seidel(double *u, double c, int T) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < N - 1; i++)
      u[i] = 0.5 * (u[i - 1] + u[i + 1]) + c * sin(u[i]);
  return sumsq(u, N);
}

/* Overwrites every input value at every step; the result depends on the
 * final values only. */
double square_inputs(double *x, int n, int T) {
  for (int t = 0; t < T; t++)
    for (int i = 0; i < n; i++)
      x[i] = 0.5 * x[i] * x[i] + 0.3 * sin(x[i]) - 0.1 * x[(i + 1) % n];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * (i + 1);
  return s;
}

/* Particles in an array of structs, positions and velocities updated in
 * place (the int field is not active). */
typedef struct {
  double x, v;
  int tag;
} Particle;

double particles(Particle *p, int n) {
  for (int t = 0; t < 7; t++)
    for (int i = 0; i < n; i++) {
      double f = -sin(p[i].x) - 0.1 * p[(i + 1) % n].x * p[i].v * p[i].tag;
      p[i].v += 0.1 * f;
      p[i].x += 0.1 * p[i].v;
    }
  double e = 0;
  for (int i = 0; i < n; i++)
    e += p[i].x * p[i].x + p[i].v;
  return e;
}

/* particles from a copy of p0, with field `f` of p0[i] replaced by t */
static double particles_at(const Particle *p0, int n, int i, int f, double t) {
  Particle p[N];
  memcpy(p, p0, sizeof p);
  if (f)
    p[i].v = t;
  else
    p[i].x = t;
  return particles(p, n);
}

/* References that start from a copy of the initial values. */
typedef double (*StepFn)(double *, double, int);
static double from_copy(StepFn f, const double *u0, double c, int T) {
  double u[N];
  memcpy(u, u0, sizeof u);
  return f(u, c, T);
}
static double square_inputs_ref(const double *x0, int n, int T) {
  double x[N];
  memcpy(x, x0, sizeof x);
  return square_inputs(x, n, T);
}

/* du0 and dc from __enzyme_autodiff(f, dup u, c, const T) against finite
 * differences from the initial values; u is overwritten by the call. */
#define CHECK_STEP(f, u0, c, T)                                                \
  do {                                                                         \
    double u_[N], du_[N] = {0}, fd_[N];                                        \
    char what_[64];                                                            \
    memcpy(u_, u0, sizeof u_);                                                 \
    double dc_ =                                                               \
        __enzyme_autodiff((void *)f, enzyme_dup, u_, du_, c, enzyme_const, T); \
    for (int k = 0; k < N; k++)                                                \
      fd_[k] = ZY_DIFF_AT(u0, k, from_copy(f, u0, c, T));                      \
    snprintf(what_, sizeof what_, "%s(T=%d)/du0", #f, T);                      \
    zy_check_array(what_, du_, fd_, N, ZY_FD_TOL);                             \
    snprintf(what_, sizeof what_, "%s(T=%d)/dc", #f, T);                       \
    zy_check_close(what_, dc_, ZY_DIFF(cc_, c, from_copy(f, u0, cc_, T)),      \
                   ZY_FD_TOL);                                                 \
    snprintf(what_, sizeof what_, "%s(T=%d) final state", #f, T);              \
    zy_check_close(what_, sumsq(u_, N), from_copy(f, u0, c, T), ZY_TOL);       \
  } while (0)

int main(void) {
  double u0s[2][N] = {{0, 0.3, -0.7, 1.1, 0.4, -1.3, 0.9, 0.2, -0.5, 0},
                      {0.5, 1.2, 0.8, -0.6, 1.5, 0.1, -0.9, 1.3, 0.7, -0.2}};
  int Ts[] = {0, 1, 5, 20};
  for (int p = 0; p < 2; p++)
    for (int q = 0; q < 4; q++) {
      double *u0 = u0s[p], c = 0.15 + 0.1 * p;
      int T = Ts[q];
      CHECK_STEP(heat_tmp, u0, c, T);
      CHECK_STEP(heat_malloc, u0, c, T);
      CHECK_STEP(heat_vla, u0, c, T);
      CHECK_STEP(heat_call, u0, c, T);
      CHECK_STEP(gauss_seidel, u0, c, T);
    }

  double x0s[2][N] = {{0.3, -0.7, 1.1, 0.4, -1.3, 0.9, 0.2, -0.5, 0.6, 0.1},
                      {1.2, 0.8, -0.6, 1.5, 0.1, -0.9, 1.3, 0.7, -1.0, 0.4}};
  for (int p = 0; p < 2; p++)
    for (int T = 0; T <= 4; T += 2)
      for (int n = 1; n <= N; n += 4) {
        double *x0 = x0s[p], x[N], dx[N] = {0}, fd[N];
        char what[64];
        memcpy(x, x0, sizeof x);
        __enzyme_autodiff((void *)square_inputs, enzyme_dup, x, dx,
                          enzyme_const, n, enzyme_const, T);
        for (int k = 0; k < N; k++)
          fd[k] = ZY_DIFF_AT(x0, k, square_inputs_ref(x0, n, T));
        snprintf(what, sizeof what, "square_inputs(n=%d, T=%d)/dx0", n, T);
        zy_check_array(what, dx, fd, N, ZY_FD_TOL);
      }
  for (int n = 1; n <= N; n += 3) {
    Particle p0[N], p[N], dp[N];
    for (int i = 0; i < N; i++) {
      p0[i].x = x0s[0][i];
      p0[i].v = x0s[1][i];
      p0[i].tag = i % 3;
    }
    memcpy(p, p0, sizeof p);
    memset(dp, 0, sizeof dp);
    __enzyme_autodiff((void *)particles, enzyme_dup, p, dp, enzyme_const, n);
    for (int i = 0; i < N; i++) {
      zy_check_close("particles/dx", dp[i].x,
                     ZY_DIFF(t, p0[i].x, particles_at(p0, n, i, 0, t)),
                     ZY_FD_TOL);
      zy_check_close("particles/dv", dp[i].v,
                     ZY_DIFF(t, p0[i].v, particles_at(p0, n, i, 1, t)),
                     ZY_FD_TOL);
    }
  }
  return zy_report();
}
