// Split mode in loops of the caller: each __enzyme_augmentfwd call in a
// loop makes a tape of its own.  A time stepper runs N in-place steps,
// keeping every step's tape, then reverses the steps from the last to the
// first; the gradient of the final state is checked against
// __enzyme_autodiff of the whole run and finite differences.  A scalar
// loop keeps K tapes of a function with an inner loop and reverses them
// in a shuffled order.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
#include "fd.h"

int enzyme_const;

void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
double __enzyme_reverse_d(void *, ...);
double __enzyme_autodiff(void *, ...);
void __enzyme_autodiff_void(void *, ...);

enum { N = 12, K = 7 };

/* One step of a pendulum-like map, in place; h is constant. */
void step(double *s, double h) {
  double q = s[0], p = s[1];
  p -= h * sin(q) * (1 + 0.1 * p * p);
  q += h * p;
  s[0] = q;
  s[1] = p;
}

/* The same N steps in one function, for __enzyme_autodiff. */
void run(double *s, double h) {
  for (int k = 0; k < N; k++)
    step(s, h);
}

static double objective(double q0, double p0, double h) {
  double s[2] = {q0, p0};
  run(s, h);
  return 3 * s[0] - 2 * s[1];
}

/* A function with a loop of its own, whose values go in the tape. */
double poly(double x, int n) {
  double acc = 0, xp = 1;
  for (int i = 0; i < n; i++) {
    acc += sin(xp) / (i + 1);
    xp *= x;
  }
  return acc;
}

int main(void) {
  static const double starts[][2] = {{0.4, 0.1}, {1.3, -0.6}, {-2.0, 0.9}};
  const double h = 0.1;
  for (int c = 0; c < 3; c++) {
    double q0 = starts[c][0], p0 = starts[c][1];
    double s[2] = {q0, p0}, ds[2] = {0, 0};
    void *tapes[N];
    for (int k = 0; k < N; k++)
      tapes[k] = __enzyme_augmentfwd((void *)step, s, ds, enzyme_const, h);
    double w[2] = {q0, p0};
    run(w, h);
    zy_check_close("stepper final q", s[0], w[0], 1e-15);
    zy_check_close("stepper final p", s[1], w[1], 1e-15);
    ds[0] = 3, ds[1] = -2; /* d objective / d final state */
    for (int k = N; k-- > 0;)
      __enzyme_reverse((void *)step, s, ds, enzyme_const, h, tapes[k]);
    double a[2] = {q0, p0}, da[2] = {3, -2};
    __enzyme_autodiff_void((void *)run, a, da, enzyme_const, h);
    ZY_CHECK2("stepper dq0", ds[0], da[0], ZY_DIFF(t, q0, objective(t, p0, h)));
    ZY_CHECK2("stepper dp0", ds[1], da[1], ZY_DIFF(t, p0, objective(q0, t, h)));
  }

  /* K tapes of poly, reversed in the order 3, 0, 6, 2, 5, 1, 4. */
  void *tp[K];
  double xs[K], ys[K];
  for (int k = 0; k < K; k++) {
    xs[k] = 0.3 + 0.15 * k;
    tp[k] = __enzyme_augmentfwd((void *)poly, xs[k], enzyme_const, 3 + k);
  }
  for (int j = 0; j < K; j++) {
    int k = (3 * j + 3) % K;
    ys[k] = __enzyme_reverse_d((void *)poly, xs[k], enzyme_const, 3 + k,
                               1.0 + k, tp[k]);
  }
  for (int k = 0; k < K; k++) {
    double x = xs[k];
    int n = 3 + k;
    ZY_CHECK2("poly dx", ys[k],
              (1.0 + k) * __enzyme_autodiff((void *)poly, x, enzyme_const, n),
              (1.0 + k) * ZY_DIFF(t, x, poly(t, n)));
  }
  return zy_report();
}
