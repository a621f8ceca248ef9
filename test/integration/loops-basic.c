// Gradients through single loops: for loops with a trip count from an int
// argument (also 0 and 1 iterations), do-while, while loops that leave when
// a value crosses a threshold, a count-down loop, steps of 2 and 3, float
// arrays, a loop-carried product, an unsigned count-down and a doubling
// index, two sequential loops and a loop whose result feeds a second one
// (through a scalar and through a local array), a pointer induction
// variable, a floating-point induction variable, a running maximum (select
// in the loop), and a loop of thousands of iterations ended by a sentinel
// (its buffers grow while it runs), checked against finite differences at
// several inputs and trip counts.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O0 -Xclang -load -Xclang %plugin -mllvm -zymase-verify -mllvm -zymase-no-preopt %s -lm -o %tn && %tn
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-verify %s -lm -o %tv && %tv
// RUN: %valgrind %t0 > /dev/null
// RUN: %valgrind %t2 > /dev/null
#include "fd-memory.h"

double __enzyme_autodiff(void *, ...);
float __enzyme_autodifff(void *, ...);
extern int enzyme_dup, enzyme_const;

#define N 8

/* A loop-carried recurrence: each step depends on the previous one
 * non-linearly, so every iteration's s must be available in reverse. */
double for_n(const double *x, int n) {
  double s = 0.5;
  for (int i = 0; i < n; i++)
    s = s * cos(x[i]) + x[i] * x[i];
  return s;
}

/* The body runs at least once (n <= 0 still reads x[0]). */
double do_while(const double *x, int n) {
  double s = 1.0;
  int i = 0;
  do {
    s = s * x[i] + sin(s);
    i++;
  } while (i < n);
  return s;
}

/* The exit depends on the data: iterate until s exceeds thr (or x runs
 * out).  The trip count is unknown in the preheader. */
double until_above(const double *x, double thr) {
  double s = x[0] * x[0];
  int i = 0;
  while (s < thr && i < N) {
    s = s + 0.5 * sqrt(s) + x[i] * x[i];
    i++;
  }
  return s * x[1];
}

/* A scalar iterated until it exceeds a bound: active scalar argument, no
 * memory. */
double iterate_scalar(double a) {
  double s = a;
  while (s < 50.0)
    s = s * s * 0.5 + a + 1.0;
  return s * a;
}

/* Horner's scheme, counting down. */
double horner(const double *c, double t, int n) {
  double s = 0;
  for (int i = n - 1; i >= 0; i--)
    s = s * t + c[i];
  return s;
}

/* The unsigned count-down idiom, then an index that doubles. */
double udown(const double *x, int n) {
  double s = 0.3;
  for (unsigned i = n; i-- > 0;)
    s = s * x[i] + 0.5;
  for (int i = 0; i < n; i = 2 * i + 1)
    s += sin(x[i] * s);
  return s;
}

/* Steps of 2 and 3 over the same array. */
double strided(const double *x, int n) {
  double s = 0, p = 1;
  for (int i = 0; i < n; i += 2)
    s += sin(x[i]) * x[i + 1];
  for (int i = 1; i < n; i += 3)
    p = p * x[i] + exp(-x[i] * s);
  return s + p;
}

float floats(const float *x, int n) {
  float s = 1.0f;
  for (int i = 0; i < n; i++)
    s = s * 0.5f + sinf(x[i]) * x[i] * s;
  return s;
}
/* The same computation in double, for the finite-difference reference. */
static double floats_ref(const double *x, int n) {
  double s = 1.0;
  for (int i = 0; i < n; i++)
    s = s * 0.5 + sin(x[i]) * x[i] * s;
  return s;
}

double product(const double *x, int n) {
  double p = 1;
  for (int i = 0; i < n; i++)
    p *= x[i];
  return p;
}

/* Two loops one after the other, independent of each other. */
double two_loops(const double *x, const double *y, int n) {
  double a = 0, b = 1;
  for (int i = 0; i < n; i++)
    a += x[i] * y[i];
  for (int j = 0; j < n; j++)
    b = b * 0.9 + cos(x[j] + y[j]);
  return a * b;
}

/* The first loop's result (the mean) feeds the second (the variance). */
double variance(const double *x, int n) {
  double m = 0;
  for (int i = 0; i < n; i++)
    m += x[i];
  m /= n;
  double v = 0;
  for (int i = 0; i < n; i++)
    v += (x[i] - m) * (x[i] - m);
  return v / n;
}

/* The first loop fills a local array the second reads backwards. */
double through_local(const double *x, int n) {
  double y[N];
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += x[i];
    y[i] = exp(0.3 * x[i]) * s;
  }
  double r = 0;
  for (int i = n - 1; i >= 0; i--)
    r = r * 0.7 + y[i] * x[n - 1 - i];
  return r;
}

/* A pointer induction variable and the element index as a double. */
double by_pointer(const double *x, int n) {
  double s = 0;
  int i = 0;
  for (const double *q = x, *end = x + n; q < end; q++, i++)
    s = s * 0.75 + *q * *q * (double)(i + 1) / n;
  return s;
}

/* A floating-point induction variable: t from 0 to 1 in steps of 1/16,
 * reading x cyclically. */
double fp_induction(const double *x, int n) {
  double s = 0;
  int i = 0;
  for (double t = 0; t < 1.0; t += 0.0625, i++)
    s += sin(t + x[i % n]) * x[(i + 1) % n];
  return s;
}

/* A running maximum and where it is: the loop-carried values go through a
 * select or a branch. */
double running_max(const double *x, int n) {
  double m = -1e300, s = 0;
  int at = 0;
  for (int i = 0; i < n; i++) {
    double v = x[i] * cos(x[i]);
    if (v > m) {
      m = v;
      at = i;
    }
    s += fmax(s * 0.5, v);
  }
  return m * x[at] + s;
}

/* idx ends with -1: the trip count is unknown in the preheader, and with
 * thousands of iterations the cache buffers are grown many times. */
#define LONG 3000
double sentinel(const int *idx, const double *x) {
  double s = 0.1;
  for (int i = 0; idx[i] >= 0; i++)
    s = s * 0.999 + sin(x[idx[i]] + 0.001 * s) * 0.01;
  return s;
}

/* dx from __enzyme_autodiff(f, dup x, const n) against finite differences
 * of every element, labelled "f(n=..)[k]". */
#define CHECK_XN(f, x, n)                                                      \
  do {                                                                         \
    double dx_[N] = {0}, fd_[N];                                               \
    char what_[64];                                                            \
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx_, enzyme_const, n);         \
    for (int k = 0; k < N; k++)                                                \
      fd_[k] = ZY_DIFF_AT(x, k, f(x, n));                                      \
    snprintf(what_, sizeof what_, "%s(n=%d)", #f, n);                          \
    zy_check_array(what_, dx_, fd_, N, ZY_FD_TOL);                             \
  } while (0)

int main(void) {
  double xs[3][N] = {{0.3, -0.7, 1.1, 0.4, -1.3, 0.9, 0.2, -0.5},
                     {1.2, 0.8, -0.6, 1.5, 0.1, -0.9, 1.3, 0.7},
                     {-0.4, 1.6, 0.5, -1.1, 0.6, 0.3, -0.8, 1.9}};
  int ns[] = {0, 1, 2, 5, N};

  for (int p = 0; p < 3; p++) {
    double *x = xs[p];
    for (int q = 0; q < 5; q++) {
      int n = ns[q];
      CHECK_XN(for_n, x, n);
      CHECK_XN(do_while, x, n);
      CHECK_XN(product, x, n);
      CHECK_XN(strided, x, n > 1 ? n - 1 : n); /* reads x[i + 1] */
      CHECK_XN(running_max, x, n);
      CHECK_XN(udown, x, n);
      if (n > 0) {
        CHECK_XN(by_pointer, x, n);
        CHECK_XN(fp_induction, x, n);
        CHECK_XN(variance, x, n);
        CHECK_XN(through_local, x, n);
      }
    }
  }

  /* the long loop, over the array at every index in turn, then every
   * third index, against finite differences */
  {
    static int idx[LONG + 1];
    for (int stride = 1; stride <= 3; stride += 2) {
      for (int i = 0; i < LONG; i++)
        idx[i] = (i * stride) % N;
      idx[LONG] = -1;
      for (int p = 0; p < 3; p++) {
        double *x = xs[p], dx[N] = {0}, fd[N];
        __enzyme_autodiff((void *)sentinel, enzyme_const, idx, enzyme_dup, x,
                          dx);
        for (int k = 0; k < N; k++)
          fd[k] = ZY_DIFF_AT(x, k, sentinel(idx, x));
        zy_check_array("sentinel", dx, fd, N, ZY_FD_TOL);
      }
    }
  }

  /* the product's closed form, at n = N */
  {
    double *x = xs[1], dx[N] = {0};
    __enzyme_autodiff((void *)product, enzyme_dup, x, dx, enzyme_const, N);
    for (int k = 0; k < N; k++)
      zy_check_close("product/closed", dx[k], product(x, N) / x[k], ZY_TOL);
  }

  /* two arrays through two loops */
  for (int p = 0; p < 3; p++) {
    double *x = xs[p], *y = xs[(p + 1) % 3];
    double yc[N];
    for (int k = 0; k < N; k++)
      yc[k] = y[k];
    for (int q = 0; q < 5; q++) {
      int n = ns[q];
      double dx[N] = {0}, dy[N] = {0}, fx[N], fy[N];
      __enzyme_autodiff((void *)two_loops, enzyme_dup, x, dx, enzyme_dup, yc,
                        dy, enzyme_const, n);
      for (int k = 0; k < N; k++) {
        fx[k] = ZY_DIFF_AT(x, k, two_loops(x, yc, n));
        fy[k] = ZY_DIFF_AT(yc, k, two_loops(x, yc, n));
      }
      zy_check_array("two_loops/dx", dx, fx, N, ZY_FD_TOL);
      zy_check_array("two_loops/dy", dy, fy, N, ZY_FD_TOL);
    }
  }

  /* data-dependent exits, at thresholds reached after 0, a few and all
   * iterations (chosen away from the points where the count changes) */
  {
    double thr[] = {0.05, 2.0, 4.5, 100.0};
    for (int p = 0; p < 3; p++)
      for (int q = 0; q < 4; q++) {
        double *x = xs[p], dx[N] = {0}, fd[N];
        __enzyme_autodiff((void *)until_above, enzyme_dup, x, dx, enzyme_const,
                          thr[q]);
        for (int k = 0; k < N; k++)
          fd[k] = ZY_DIFF_AT(x, k, until_above(x, thr[q]));
        zy_check_array("until_above/dx", dx, fd, N, ZY_FD_TOL);
      }
    double as[] = {0.3, 1.7, 5.0, 60.0};
    for (int q = 0; q < 4; q++)
      zy_check_close("iterate_scalar",
                     __enzyme_autodiff((void *)iterate_scalar, as[q]),
                     ZY_DIFF(a, as[q], iterate_scalar(a)), ZY_FD_TOL);
  }

  /* Horner: d/dc[k] = t^k, d/dt = p'(t) */
  {
    double c[N] = {0.5, -1.0, 2.0, 0.25, -0.75, 1.5, 0.3, -0.2};
    double ts[] = {-1.3, 0.4, 2.1};
    for (int q = 0; q < 3; q++)
      for (int n = 0; n <= N; n += 4) {
        double t = ts[q], dc[N] = {0}, want[N] = {0}, dp = 0, tk = 1;
        double dt = __enzyme_autodiff((void *)horner, enzyme_dup, c, dc, t,
                                      enzyme_const, n);
        for (int k = 0; k < n; k++) {
          want[k] = tk;
          if (k + 1 < n)
            dp += (k + 1) * c[k + 1] * tk;
          tk *= t;
        }
        zy_check_array("horner/dc", dc, want, N, ZY_TOL);
        zy_check_close("horner/dt", dt, dp, ZY_TOL);
        zy_check_close("horner/dt (finite diff)", dt,
                       ZY_DIFF(u, t, horner(c, u, n)), ZY_FD_TOL);
      }
  }

  /* float arrays, against the double version of the same loop */
  for (int p = 0; p < 3; p++)
    for (int q = 0; q < 5; q++) {
      int n = ns[q];
      float xf[N], dxf[N] = {0};
      double xd[N];
      for (int k = 0; k < N; k++)
        xd[k] = xf[k] = (float)xs[p][k];
      __enzyme_autodifff((void *)floats, enzyme_dup, xf, dxf, enzyme_const, n);
      for (int k = 0; k < N; k++)
        zy_check_close("floats/dx", dxf[k],
                       ZY_DIFF_AT(xd, k, floats_ref(xd, n)), 1e-5);
    }
  return zy_report();
}
