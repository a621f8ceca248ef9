// Gradients through loops with several ways out: break on a data-dependent
// test and on an index, continue (on the data and on the index), an early
// return from inside a loop, from the inner loop of a nest and from a loop
// in a noinline callee called in a loop, a while loop whose continue jumps
// straight back to the test, a loop made of backward gotos, exits that
// lead to different code after the loop, and trip counts read from memory
// (through an int pointer and a struct field) that the function overwrites
// before it returns, so the reverse sweep cannot read them again.  Checked
// against finite differences at several inputs and thresholds, chosen away
// from the points where the number of iterations changes.
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
extern int enzyme_dup, enzyme_const;

#define N 8

/* break when the carried value crosses thr */
double break_data(const double *x, int n, double thr) {
  double s = 0.5;
  for (int i = 0; i < n; i++) {
    s = s * (1 + x[i]) + x[i] * x[i];
    if (s > thr)
      break;
  }
  return s * s;
}

/* break at a given index: the trip count is min(n, k + 1) */
double break_index(const double *x, int n, int k) {
  double s = 1;
  for (int i = 0; i < n; i++) {
    s = s * cos(x[i]) + x[i];
    if (i == k)
      break;
    s = s * 0.9;
  }
  return s;
}

/* continue on negative elements and on every third index */
double cont(const double *x, int n) {
  double s = 0.2;
  for (int i = 0; i < n; i++) {
    if (x[i] < 0)
      continue;
    s = s + sqrt(x[i]) * s;
    if (i % 3 == 1)
      continue;
    s = s * exp(-0.5 * x[i]);
  }
  return s;
}

/* an early return from the loop, with a different value than the normal
 * exit */
double early_return(const double *x, int n, double thr) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += x[i] * x[i] + 0.3 * s;
    if (s > thr)
      return s * x[i];
  }
  return -s;
}

/* an early return from the inner loop of a nest */
double early_return_nested(const double *x, int n, double thr) {
  double t = 0;
  for (int i = 0; i < n; i++) {
    for (int j = 0; j <= i; j++) {
      t += x[i] * sin(x[j]) + 0.1 * t;
      if (fabs(t) > thr)
        return t * x[j] + i;
    }
    t = t * 0.95;
  }
  return t;
}

/* A loop with an early return in a noinline callee, called in a loop (the
 * callee's gradient has a loop with two exits). */
__attribute__((noinline)) static double first_big(const double *x, int n,
                                                  double thr) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += x[i] * x[i];
    if (s > thr)
      return s * x[i];
  }
  return s;
}

double call_early(const double *x, int n, double thr) {
  double r = 0;
  for (int k = 1; k <= n; k++)
    r += first_big(x, k, thr) * 0.5 + r * 0.1;
  return r;
}

/* continue in a while loop goes to the loop test: two back edges */
double while_continue(const double *x, int n, double lo) {
  int i = 0;
  double s = 0.2;
  while (i < n) {
    double v = x[i++];
    if (v < lo)
      continue;
    s = s * v + sin(s);
  }
  return s;
}

/* a loop written with gotos, with two back edges and its exit at the top */
double goto_loop(const double *x, int n, double hi) {
  int i = 0;
  double s = 1;
again:
  if (i >= n)
    return s;
  s = s * cos(x[i]);
  i++;
  if (x[i - 1] > hi) {
    s += x[i - 1];
    goto again;
  }
  s = s * 1.1;
  goto again;
}

/* three exits, each followed by its own code */
double three_exits(const double *x, int n, double hi, double lo) {
  double s = 0.1;
  int i;
  for (i = 0; i < n; i++) {
    if (x[i] > hi)
      goto big;
    if (x[i] < lo)
      goto small;
    s = s * 0.8 + x[i] * x[i];
  }
  return s; /* ran to the end */
big:
  s = s * exp(x[i]);
  for (int j = 0; j < i; j++)
    s += x[j] * 0.25;
  return s;
small:
  return cos(s) * x[i] * (i + 1);
}

/* The trip count comes from memory; the pointer is overwritten at the end */
double count_from_ptr(const double *x, int *np) {
  int n = *np;
  double s = 1;
  for (int i = 0; i < n; i++)
    s = s * x[i] + sin(s);
  *np = 0;
  return s;
}

/* The loop re-reads the bound from a struct at every test, and the struct
 * (the bound and an active field) is overwritten at the end. */
typedef struct {
  int n;
  double scale;
} Prob;

double count_from_struct(Prob *p, const double *x) {
  double s = 0;
  for (int i = 0; i < p->n; i++)
    s = s * p->scale + x[i] * x[i];
  p->n = 0;
  p->scale = 0;
  return s;
}
/* The counter itself lives in the struct and is decremented in memory at
 * every iteration; the reverse sweep needs each iteration's index. */
double countdown_in_struct(Prob *p, const double *x) {
  double s = 1;
  while (p->n > 0) {
    s = s * p->scale * x[p->n - 1] + cos(x[p->n - 1]);
    p->n--;
  }
  return s;
}
static double countdown_in_struct_ref(const double *x, int n, double scale) {
  Prob p = {n, scale};
  return countdown_in_struct(&p, x);
}
static double count_from_ptr_ref(const double *x, int n) {
  int m = n;
  return count_from_ptr(x, &m);
}
static double count_from_struct_ref(const double *x, int n, double scale) {
  Prob p = {n, scale};
  return count_from_struct(&p, x);
}

/* `ad` is a call of __enzyme_autodiff with x's shadow dx_; its result is
 * checked against finite differences of `f` for every element of x. */
#define CHECK_X(label, x, ad, f)                                               \
  do {                                                                         \
    double dx_[N] = {0}, fd_[N];                                               \
    ad;                                                                        \
    for (int k_ = 0; k_ < N; k_++)                                             \
      fd_[k_] = ZY_DIFF_AT(x, k_, f);                                          \
    zy_check_array(label, dx_, fd_, N, ZY_FD_TOL);                             \
  } while (0)

int main(void) {
  double xs[3][N] = {{0.3, -0.7, 1.1, 0.4, -1.3, 0.9, 0.2, -0.5},
                     {1.2, 0.8, -0.6, 1.5, 0.1, -0.9, 1.3, 0.7},
                     {-0.4, 1.6, 0.5, -1.1, 0.6, 0.3, -0.8, 1.9}};
  int ns[] = {0, 1, 4, N};
  char what[96];

  for (int p = 0; p < 3; p++) {
    double *x = xs[p];
    for (int q = 0; q < 4; q++) {
      int n = ns[q];
      double thrs[] = {0.3, 1.7, 1e9};
      for (int t = 0; t < 3; t++) {
        snprintf(what, sizeof what, "break_data(x%d, n=%d, thr=%g)", p, n,
                 thrs[t]);
        CHECK_X(what, x,
                __enzyme_autodiff((void *)break_data, enzyme_dup, x, dx_,
                                  enzyme_const, n, enzyme_const, thrs[t]),
                break_data(x, n, thrs[t]));
        snprintf(what, sizeof what, "early_return(x%d, n=%d, thr=%g)", p, n,
                 thrs[t]);
        CHECK_X(what, x,
                __enzyme_autodiff((void *)early_return, enzyme_dup, x, dx_,
                                  enzyme_const, n, enzyme_const, thrs[t]),
                early_return(x, n, thrs[t]));
        snprintf(what, sizeof what, "early_return_nested(x%d, n=%d, thr=%g)", p,
                 n, thrs[t]);
        CHECK_X(what, x,
                __enzyme_autodiff((void *)early_return_nested, enzyme_dup, x,
                                  dx_, enzyme_const, n, enzyme_const, thrs[t]),
                early_return_nested(x, n, thrs[t]));
        snprintf(what, sizeof what, "call_early(x%d, n=%d, thr=%g)", p, n,
                 thrs[t]);
        CHECK_X(what, x,
                __enzyme_autodiff((void *)call_early, enzyme_dup, x, dx_,
                                  enzyme_const, n, enzyme_const, thrs[t]),
                call_early(x, n, thrs[t]));
      }
      for (int k = -1; k < N; k += 3) {
        snprintf(what, sizeof what, "break_index(x%d, n=%d, k=%d)", p, n, k);
        CHECK_X(what, x,
                __enzyme_autodiff((void *)break_index, enzyme_dup, x, dx_,
                                  enzyme_const, n, enzyme_const, k),
                break_index(x, n, k));
      }
      double his[] = {1.0, 1.4, 5.0}, los[] = {-1.05, -0.55, -5.0};
      for (int t = 0; t < 3; t++) {
        snprintf(what, sizeof what, "three_exits(x%d, n=%d, %g, %g)", p, n,
                 his[t], los[t]);
        CHECK_X(what, x,
                __enzyme_autodiff((void *)three_exits, enzyme_dup, x, dx_,
                                  enzyme_const, n, enzyme_const, his[t],
                                  enzyme_const, los[t]),
                three_exits(x, n, his[t], los[t]));
        snprintf(what, sizeof what, "while_continue(x%d, n=%d, %g)", p, n,
                 los[t]);
        CHECK_X(what, x,
                __enzyme_autodiff((void *)while_continue, enzyme_dup, x, dx_,
                                  enzyme_const, n, enzyme_const, los[t]),
                while_continue(x, n, los[t]));
        snprintf(what, sizeof what, "goto_loop(x%d, n=%d, %g)", p, n, his[t]);
        CHECK_X(what, x,
                __enzyme_autodiff((void *)goto_loop, enzyme_dup, x, dx_,
                                  enzyme_const, n, enzyme_const, his[t]),
                goto_loop(x, n, his[t]));
      }
      {
        double dx[N] = {0}, fd[N];
        __enzyme_autodiff((void *)cont, enzyme_dup, x, dx, enzyme_const, n);
        for (int k = 0; k < N; k++)
          fd[k] = ZY_DIFF_AT(x, k, cont(x, n));
        snprintf(what, sizeof what, "cont(x%d, n=%d)", p, n);
        zy_check_array(what, dx, fd, N, ZY_FD_TOL);
      }
      {
        int m = n;
        double dx[N] = {0}, fd[N];
        __enzyme_autodiff((void *)count_from_ptr, enzyme_dup, x, dx,
                          enzyme_const, &m);
        for (int k = 0; k < N; k++)
          fd[k] = ZY_DIFF_AT(x, k, count_from_ptr_ref(x, n));
        snprintf(what, sizeof what, "count_from_ptr(x%d, n=%d)", p, n);
        zy_check_array(what, dx, fd, N, ZY_FD_TOL);
        zy_check_close("count_from_ptr overwrote *np", m, 0, 0);
      }
      {
        Prob pr = {n, 0.7 + 0.2 * p}, dpr = {0, 0};
        double dx[N] = {0}, fd[N];
        __enzyme_autodiff((void *)count_from_struct, enzyme_dup, &pr, &dpr,
                          enzyme_dup, x, dx);
        for (int k = 0; k < N; k++)
          fd[k] = ZY_DIFF_AT(x, k, count_from_struct_ref(x, n, 0.7 + 0.2 * p));
        snprintf(what, sizeof what, "count_from_struct(x%d, n=%d)/dx", p, n);
        zy_check_array(what, dx, fd, N, ZY_FD_TOL);
        snprintf(what, sizeof what, "count_from_struct(x%d, n=%d)/dscale", p,
                 n);
        zy_check_close(
            what, dpr.scale,
            ZY_DIFF(c, 0.7 + 0.2 * p, count_from_struct_ref(x, n, c)),
            ZY_FD_TOL);
        zy_check_close("count_from_struct overwrote p->n", pr.n, 0, 0);
      }
      {
        Prob pr = {n, 1.1 - 0.2 * p}, dpr = {0, 0};
        double dx[N] = {0}, fd[N];
        __enzyme_autodiff((void *)countdown_in_struct, enzyme_dup, &pr, &dpr,
                          enzyme_dup, x, dx);
        for (int k = 0; k < N; k++)
          fd[k] =
              ZY_DIFF_AT(x, k, countdown_in_struct_ref(x, n, 1.1 - 0.2 * p));
        snprintf(what, sizeof what, "countdown_in_struct(x%d, n=%d)/dx", p, n);
        zy_check_array(what, dx, fd, N, ZY_FD_TOL);
        snprintf(what, sizeof what, "countdown_in_struct(x%d, n=%d)/dscale", p,
                 n);
        zy_check_close(
            what, dpr.scale,
            ZY_DIFF(c, 1.1 - 0.2 * p, countdown_in_struct_ref(x, n, c)),
            ZY_FD_TOL);
      }
    }
  }
  return zy_report();
}
