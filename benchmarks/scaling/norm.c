/* norm.c - the pre-AD pipeline's example, out[i] = in[i] / mag(in): the
 * gradient is O(n) only if mag (a loop over in) is computed once, before
 * the loop, and differentiated once.  Prints, for growing n, the time of
 * one gradient and that time divided by n (flat when linear).
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

double mag(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return sqrt(s);
}

void normalize(double *__restrict out, const double *__restrict in, int n) {
  for (int i = 0; i < n; i++)
    out[i] = in[i] / mag(in, n);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(void) {
  printf("%8s %14s %14s\n", "n", "gradient (s)", "per n (ns)");
  for (int n = 2000; n <= 128000; n *= 2) {
    double *in = malloc(n * sizeof *in), *din = calloc(n, sizeof *din);
    double *out = malloc(n * sizeof *out), *dout = malloc(n * sizeof *dout);
    for (int i = 0; i < n; i++)
      in[i] = sin(i + 1.0);
    double best = 1e30;
    for (int rep = 0; rep < 5; rep++) {
      for (int i = 0; i < n; i++) /* the reverse sweep consumes dout */
        dout[i] = 1, din[i] = 0;
      double t0 = now();
      __enzyme_autodiff((void *)normalize, enzyme_dup, out, dout, enzyme_dup,
                        in, din, enzyme_const, n);
      double t = now() - t0;
      best = t < best ? t : best;
    }
    /* d/din_0 of sum_i out_i, checked against the closed form
     * (1 - in_0 * S / |in|^2) / |in|, S the sum of in. */
    double s2 = 0, s1 = 0;
    for (int i = 0; i < n; i++)
      s2 += in[i] * in[i], s1 += in[i];
    double want = (1 - in[0] * s1 / s2) / sqrt(s2);
    if (fabs(din[0] - want) > 1e-9 * (1 + fabs(want))) {
      printf("wrong gradient at n=%d: %g, want %g\n", n, din[0], want);
      return 1;
    }
    printf("%8d %14.6f %14.2f\n", n, best, 1e9 * best / n);
    free(in), free(din), free(out), free(dout);
  }
  return 0;
}
