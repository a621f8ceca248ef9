// Gradients through recurrences of inner loops, which the reverse sweep
// replays at each entry of their loop instead of caching them per
// iteration (lib/ad/replay.c): LLSQ's  tj *= t  at several sizes, including
// one point and one coefficient; a geometric recurrence whose start and
// factor are active values of the outer iteration; an integer generator
// (an LCG) whose output feeds the floats; a recurrence in an inner loop
// that leaves on a data-dependent test; one in the innermost loop of three,
// starting from a value of the middle loop and multiplied by one of the
// outer loop; two recurrences beside a phi that calls sin() (so it is
// cached, not replayed); one in an inner while loop; one carried from an
// entry of the inner loop to the next; two sibling inner loops; and a
// factor loaded from memory overwritten after the loop.  Checked against
// finite differences; the cache report must show the recurrences replayed
// and nothing of LLSQ cached per iteration of its inner loop.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-verify %s -lm -o %tv && %tv
// RUN: %clang -O0 -Xclang -load -Xclang %plugin -mllvm -zymase-verify -mllvm -zymase-no-preopt %s -lm -o %tn && %tn
// RUN: %clang -O2 -fno-discard-value-names -Xclang -load -Xclang %plugin -mllvm -zymase-print-cache -c %s -o /dev/null 2> %t.cache
// RUN: %FileCheck %s --check-prefix=LLSQ < %t.cache
// RUN: %FileCheck %s < %t.cache
// RUN: %valgrind %t0 > /dev/null
// RUN: %valgrind %t2 > /dev/null
#include "fd-memory.h"

void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

#define N 8

/* The cache report at -O2: nothing of LLSQ is cached per iteration of its
 * inner loop (loop 2, depth 2), tj is replayed.  (LLSQ's gradient is made
 * first, so another report ends its section.)  The recurrences of the
 * other functions, named apart, are checked next to them in any order. */
// LLSQ-LABEL: cache of the gradient of 'llsq'
// LLSQ-NOT:   per iteration of loop 2
// LLSQ-NOT:   depth 2)
// LLSQ:       %tj{{[0-9.]*}}: double, 8 bytes, recomputed: the recurrence is replayed at each entry of its loop
// LLSQ-NOT:   per iteration of loop 2
// LLSQ-NOT:   depth 2)
// LLSQ-LABEL: zymase: cache of the gradient of

/* 1. LLSQ's polynomial fit (benchmarks/workloads/llsq.h): m coefficients
 * x, n points t in [-1, 1] (one point: t = 0.3). */
double llsq(const double *x, const double *y, int m, int n) {
  (void)y;
  double sum = 0.0;
  for (int i = 0; i < n; i++) {
    double t = n > 1 ? -1 + 2.0 * i / (n - 1) : 0.3, tj = 1;
    double r = (t > 0) - (t < 0);
    for (int j = 0; j < m; j++) {
      r -= x[j] * tj;
      tj *= t;
    }
    sum += r * r;
  }
  return 0.5 * sum;
}

// CHECK-DAG: %gp{{[0-9.]*}}: double, 8 bytes, recomputed: the recurrence is replayed
/* 2. Geometric: the start x[i] and the factor y[i] come from the outer
 * iteration and are active; the replay must use this iteration's. */
double geometric(const double *x, const double *y, int m, int n) {
  double out = 0;
  for (int i = 0; i < n; i++) {
    double gp = x[i], s = 0;
    for (int j = 0; j < m; j++) {
      s += gp * y[j];
      gp *= 0.8 * y[i];
    }
    out += sin(s) + s * gp;
  }
  return out;
}

/* 2b. Horner: h = h*t + x[j] with t = y[i].  At -O2 the update is an
 * llvm.fmuladd, which is not replayed (cached instead): checked for the
 * gradient only. */
double horner(const double *x, const double *y, int m, int n) {
  double out = 0;
  for (int i = 0; i < n; i++) {
    double t = y[i], h = x[i];
    for (int j = 0; j < m; j++)
      h = h * t + x[j];
    out += h * h;
  }
  return out;
}

// CHECK-DAG: %seed{{[0-9.]*}}: i32, 4 bytes, recomputed: the recurrence is replayed
/* 3. An integer recurrence (a linear congruential generator, its state
 * restarted by each outer iteration) whose output weighs the floats. */
double lcg(const double *x, const double *y, int m, int n) {
  double out = 0;
  for (int i = 0; i < n; i++) {
    unsigned seed = 12345u + 7u * (unsigned)i;
    double acc = 0;
    for (int j = 0; j < m; j++) {
      seed = seed * 1103515245u + 12345u;
      double w = (seed >> 16) / 65536.0;
      acc += w * x[j] * y[i];
    }
    out += acc * acc;
  }
  return out;
}

// CHECK-DAG: %ep{{[0-9.]*}}: double, 8 bytes, recomputed: the recurrence is replayed
/* 4. The inner loop leaves when its running sum exceeds thr; its
 * recurrence is replayed from whichever exit was taken.  (The factor is
 * computed before the loop: a load of y[i] after the break would stay in
 * the loop, and a load is not replayed.) */
double early_exit(const double *x, const double *y, int m, int n,
                  double thr) {
  double out = 0;
  for (int i = 0; i < n; i++) {
    double ep = 1, r = 0, f = 0.5 + 0.25 * y[i];
    for (int j = 0; j < m; j++) {
      r += x[j] * x[j] * ep;
      if (r > thr)
        break;
      ep *= f;
    }
    out += r * ep + y[i] * r;
  }
  return out;
}

// CHECK-DAG: %q3{{[0-9.]*}}: double, 8 bytes, recomputed: the recurrence is replayed
/* 5. Three loops: the innermost recurrence starts from a value of the
 * middle loop's index and is multiplied by a value of the outermost. */
double triple(const double *x, const double *y, int m, int n) {
  double out = 0;
  for (int a = 0; a < n; a++) {
    double f = 0.6 * y[a];
    for (int b = 0; b < m; b++) {
      double q3 = x[b] + 0.1 * b, s = 0;
      for (int c = 0; c <= b; c++) {
        s += sin(q3) * x[c];
        q3 *= f;
      }
      out += s * y[b];
    }
  }
  return out;
}

// CHECK-DAG: %pw{{[0-9.]*}}: double, 8 bytes, recomputed: the recurrence is replayed
// CHECK-DAG: %alt{{[0-9.]*}}: double, 8 bytes, recomputed: the recurrence is replayed
// CHECK-DAG: %usin{{[0-9.]*}}: double, 8 bytes, per iteration of loop 2
/* 6. Two recurrences (powers of t and an alternating sign) and a phi
 * that calls sin(), which cannot be replayed and must be cached. */
double mixed(const double *x, const double *y, int m, int n) {
  double out = 0;
  for (int i = 0; i < n; i++) {
    double t = 0.7 * x[i], pw = 1, alt = 1, usin = y[i], s = 0;
    for (int j = 0; j < m; j++) {
      s += alt * pw * x[j] * usin;
      pw *= t;
      alt = -alt;
      usin = sin(usin) + 0.3 * y[j];
    }
    out += s * s + s;
  }
  return out;
}

// CHECK-DAG: %wp{{[0-9.]*}}: double, 8 bytes, recomputed: the recurrence is replayed
/* 7. An inner while loop, its trip known only when it ends: v grows by
 * wp, wp*q, wp*q^2, ... until it reaches 3. */
double inner_while(const double *x, const double *y, int m, int n) {
  (void)m;
  double out = 0;
  for (int i = 0; i < n; i++) {
    double v = x[i], wp = 0.3 + x[i] * x[i], q = 1.2 + 0.1 * y[i] * y[i];
    int k = 0;
    while (v < 3 && k < 40) {
      v += wp;
      wp *= q;
      k++;
    }
    out += v * y[i] + wp;
  }
  return out;
}

// CHECK-DAG: %cp{{[0-9.]*}}: double, 8 bytes, recomputed: the recurrence is replayed
/* 8. Carried across the outer loop: each entry of the inner loop starts
 * from the value the previous entry left. */
double carried(const double *x, const double *y, int m, int n) {
  double cp = 1, s = 0;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < m; j++) {
      s += cp * x[j];
      cp *= 0.9 * y[i];
    }
    s *= 0.5;
  }
  return s * s + cp;
}

// CHECK-DAG: %sp{{[0-9.]*}}: double, 8 bytes, recomputed: the recurrence is replayed
// CHECK-DAG: %sq{{[0-9.]*}}: double, 8 bytes, recomputed: the recurrence is replayed
/* 9. Two inner loops of the same outer loop, each with its recurrence
 * (the second's trip is the outer index). */
double siblings(const double *x, const double *y, int m, int n) {
  double out = 0;
  for (int i = 0; i < n; i++) {
    double sp = 1, sq = y[i], s = 0, d = 0.2 * x[i];
    for (int j = 0; j < m; j++) {
      s += sp * x[j];
      sp *= 0.6 * x[i];
    }
    for (int j = 0; j < i; j++) {
      s += sq * y[j];
      sq *= 0.7; /* two statements: sq*0.7 - d would be an llvm.fmuladd */
      sq -= d;
    }
    out += sin(s) + s * x[i];
  }
  return out;
}

// CHECK-DAG: %op{{[0-9.]*}}: double, 8 bytes, recomputed: the recurrence is replayed
/* 10. The factor is loaded from y[i], which is overwritten after the inner
 * loop: the replay needs the value loaded before. */
double overwritten(const double *x, double *y, int m, int n) {
  double out = 0;
  for (int i = 0; i < n; i++) {
    double f = y[i] * 0.5, op = 1, s = 0;
    for (int j = 0; j < m; j++) {
      s += op * x[j];
      op *= f;
    }
    y[i] = s * y[i];
    out += s * op;
  }
  for (int i = 0; i < N; i++)
    out += y[i] * y[i];
  return out;
}

/* The finite differences go through one function of this type (so that
 * main stays small): early_exit's threshold and overwritten's copy of y
 * are supplied by wrappers. */
typedef double Fn(const double *, const double *, int, int);

static double early_thr;
static double early_exit_ref(const double *x, const double *y, int m, int n) {
  return early_exit(x, y, m, n, early_thr);
}
static double overwritten_ref(const double *x, const double *y, int m, int n) {
  double yc[N];
  for (int k = 0; k < N; k++)
    yc[k] = y[k];
  return overwritten(x, yc, m, n);
}

/* Compares dx and dy with the finite differences of f at (x0, y0). */
static void check_fd(const char *name, Fn *f, const double *x0,
                     const double *y0, int m, int n, const double *dx,
                     const double *dy) {
  double x[N], y[N], fx[N], fy[N];
  char what[96];
  for (int k = 0; k < N; k++)
    x[k] = x0[k], y[k] = y0[k];
  for (int k = 0; k < N; k++) {
    fx[k] = ZY_DIFF_AT(x, k, f(x, y, m, n));
    fy[k] = ZY_DIFF_AT(y, k, f(x, y, m, n));
  }
  snprintf(what, sizeof what, "%s(m=%d, n=%d)/dx", name, m, n);
  zy_check_array(what, dx, fx, N, ZY_FD_TOL);
  snprintf(what, sizeof what, "%s(m=%d, n=%d)/dy", name, m, n);
  zy_check_array(what, dy, fy, N, ZY_FD_TOL);
}

/* The gradient of f(x, y, m, n, extra...) at (x0, y0), on copies (f may
 * write y), checked against the finite differences of ref. */
#define CHECK(f, ref, x0, y0, m, n, ...)                                       \
  do {                                                                         \
    double x_[N], y_[N], dx_[N] = {0}, dy_[N] = {0};                           \
    for (int k = 0; k < N; k++)                                                \
      x_[k] = x0[k], y_[k] = y0[k];                                            \
    __enzyme_autodiff((void *)f, enzyme_dup, x_, dx_, enzyme_dup, y_, dy_,    \
                      enzyme_const, m, enzyme_const, n __VA_ARGS__);           \
    check_fd(#f, ref, x0, y0, m, n, dx_, dy_);                                 \
  } while (0)

int main(void) {
  double xs[3][N] = {
      {0.3, -0.7, 1.1, 0.4, -1.3, 0.9, 0.2, -0.5},
      {1.2, 0.8, -0.6, 1.5, 0.1, -0.9, 1.3, 0.7},
      {-0.4, 1.6, 0.5, -1.1, 0.6, 0.3, -0.8, 1.9}};
  double ys[3][N] = {
      {0.9, 0.45, -1.2, 0.05, 0.7, -0.35, 1.05, 0.6},
      {-0.65, 1.05, 0.35, 0.8, -0.2, 1.4, 0.25, -0.9},
      {0.15, -0.5, 1.3, 0.95, -1.1, 0.4, 0.75, 1.2}};

  /* LLSQ at sizes with one coefficient, one point, none of either, and
   * more points than coefficients */
  int llsq_mn[][2] = {{1, 1}, {1, 5}, {4, 1}, {4, 11}, {8, 3}, {3, 40}, {0, 3},
                      {5, 0}};
  for (int p = 0; p < 3; p++)
    for (unsigned q = 0; q < sizeof llsq_mn / sizeof *llsq_mn; q++)
      CHECK(llsq, llsq, xs[p], ys[p], llsq_mn[q][0], llsq_mn[q][1]);

  int mn[][2] = {{1, 1}, {1, 4}, {4, 1}, {3, 5}, {N, N}, {0, 4}};
  for (int p = 0; p < 3; p++)
    for (unsigned q = 0; q < sizeof mn / sizeof *mn; q++) {
      int m = mn[q][0], n = mn[q][1];
      CHECK(geometric, geometric, xs[p], ys[p], m, n);
      CHECK(horner, horner, xs[p], ys[p], m, n);
      CHECK(lcg, lcg, xs[p], ys[p], m, n);
      /* thresholds away from the sums' values, so that the finite
       * differences do not change the exit */
      double thrs[] = {0.35, 1.9, 1e9};
      for (int t = 0; t < 3; t++) {
        early_thr = thrs[t];
        CHECK(early_exit, early_exit_ref, xs[p], ys[p], m, n, , enzyme_const,
              early_thr);
      }
      CHECK(triple, triple, xs[p], ys[p], m, n);
      CHECK(mixed, mixed, xs[p], ys[p], m, n);
      CHECK(inner_while, inner_while, xs[p], ys[p], m, n);
      CHECK(carried, carried, xs[p], ys[p], m, n);
      CHECK(siblings, siblings, xs[p], ys[p], m, n);
      CHECK(overwritten, overwritten_ref, xs[p], ys[p], m, n);
    }
  return zy_report();
}
