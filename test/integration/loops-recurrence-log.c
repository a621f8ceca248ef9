// Recurrences of inner loops read back from the forward sweep's log
// (lib/cache/replay.c, -zymase-replay-log-mb): LLSQ's  tj *= t  (trip
// counts known before the loop: the log is sized for the whole nest) and
// the same with an inner loop whose trip count is not known (it stops
// when tj underflows: the log grows in its header), at sizes whose values
// fit in a 1 MiB log (131072 doubles), sizes that do not (the reverse
// replays every entry), and with the log off (0: always replayed).
// Checked against the closed-form gradient  g_j = -sum_i r_i t_i^j.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-replay-log-mb=1 %s -lm -o %t1 && %t1
// RUN: %clang -O0 -Xclang -load -Xclang %plugin -mllvm -zymase-replay-log-mb=1 %s -lm -o %t10 && %t10
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-replay-log-mb=0 %s -lm -o %t00 && %t00
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1b && %t1b %}
// RUN: %if !quick %{ %clang -O3 -Xclang -load -Xclang %plugin -mllvm -zymase-replay-log-mb=1 %s -lm -o %t3 && %t3 %}
#include "check.h"

#include <string.h>

extern int enzyme_const;
void __enzyme_autodiff(void *, ...);

static double point(int i, int n) { return -1 + 2.0 * i / (n - 1); }

/* LLSQ, with t scaled by `s` (s = 1e-3 makes tj underflow in the
 * while-loop variant after about 100 steps). */
double llsq(const double *x, int m, int n) {
  double sum = 0.0;
  for (int i = 0; i < n; i++) {
    double t = point(i, n), tj = 1;
    double r = (t > 0) - (t < 0);
    for (int j = 0; j < m; j++) {
      r -= x[j] * tj;
      tj *= t;
    }
    sum += r * r;
  }
  return 0.5 * sum;
}

double llsq_while(const double *x, int m, int n) {
  double sum = 0.0;
  for (int i = 0; i < n; i++) {
    double t = 0.5 * point(i, n), tj = 1;
    double r = (t > 0) - (t < 0);
    int j = 0;
    while (j < m && fabs(tj) > 1e-3) {
      r -= x[j] * tj;
      tj *= t;
      j++;
    }
    sum += r * r;
  }
  return 0.5 * sum;
}

static void reference(const double *x, int m, int n, int stop, double *g) {
  memset(g, 0, sizeof(double) * m);
  for (int i = 0; i < n; i++) {
    double t = stop ? 0.5 * point(i, n) : point(i, n), tj = 1;
    double r = (t > 0) - (t < 0);
    int len = 0;
    for (; len < m && (!stop || fabs(tj) > 1e-3); len++) {
      r -= x[len] * tj;
      tj *= t;
    }
    tj = 1;
    for (int j = 0; j < len; j++) {
      g[j] -= r * tj;
      tj *= t;
    }
  }
}

/* One call site per function: at -O2 two calls in the branches of an
 * if would merge into one call of a select. */
__attribute__((noinline)) static void grad_llsq(double *x, double *dx, int m,
                                                int n) {
  __enzyme_autodiff((void *)llsq, x, dx, enzyme_const, m, enzyme_const, n);
}

__attribute__((noinline)) static void grad_while(double *x, double *dx, int m,
                                                 int n) {
  __enzyme_autodiff((void *)llsq_while, x, dx, enzyme_const, m, enzyme_const,
                    n);
}

static void run(int m, int n, int stop) {
  double *x = malloc(sizeof(double) * m), *dx = malloc(sizeof(double) * m);
  double *want = malloc(sizeof(double) * m);
  for (int j = 0; j < m; j++)
    x[j] = 0.3 * sin(1.0 + j);
  for (int call = 0; call < 2; call++) { /* the second call reuses memory */
    memset(dx, 0, sizeof(double) * m);
    if (stop)
      grad_while(x, dx, m, n);
    else
      grad_llsq(x, dx, m, n);
    reference(x, m, n, stop, want);
    for (int j = 0; j < m; j++) {
      char what[96];
      snprintf(what, sizeof what, "%s m=%d n=%d call %d: dx[%d]",
               stop ? "llsq_while" : "llsq", m, n, call, j);
      zy_check_close(what, dx[j], want[j], 1e-9);
    }
  }
  free(x);
  free(dx);
  free(want);
}

int main(void) {
  /* m*n: 33, 32000 (fit in 1 MiB), 320000 (does not), 0 */
  int sizes[][2] = {{3, 11}, {16, 2000}, {16, 20000}, {4, 0}};
  for (int k = 0; k < 4; k++)
    for (int stop = 0; stop < 2; stop++)
      run(sizes[k][0], sizes[k][1], stop);
  return zy_report();
}
