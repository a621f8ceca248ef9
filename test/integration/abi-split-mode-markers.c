// Split-mode markers: enzyme_nofree (the reverse keeps the tape and its
// loop caches, so it can run again on the same tape; a last reverse
// without the marker frees them), enzyme_noret (the forward pass returns
// the tape without the primal result), enzyme_const_return (no return
// adjoint; the derivative flows through memory), enzyme_active_return,
// enzyme_dup_return and the default for a returned pointer (the forward
// pass returns the pointer's shadow, which the caller seeds).  Checked
// against __enzyme_autodiff, closed forms and finite differences.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
#include "fd.h"

#define ZYMASE_DEFINE_MARKERS
#include <zymase/enzyme.h>

double __enzyme_reverse(void *, ...);
typedef struct { void *tape; } AugT;
ZYMASE_DECLARE_AUGMENTFWD(AugT, t);
typedef struct { void *tape; double y; } AugD;
ZYMASE_DECLARE_AUGMENTFWD(AugD, d);
typedef struct { void *tape; double *p, *dp; } AugP;
ZYMASE_DECLARE_AUGMENTFWD(AugP, p);

/* A loop whose values are cached in buffers the tape holds. */
double series(double x, int n) {
  double acc = 0, t = x;
  for (int i = 0; i < n; i++) {
    acc += sin(t) * t;
    t = t * 0.9 + 0.1;
  }
  return acc;
}

/* A constant result and an active output in memory. */
double store_out(double x, double *out) {
  *out = x * x * sin(x);
  return 42.0;
}

/* A returned allocation, whose shadow the caller gets and seeds. */
double *make(double x) {
  double *p = malloc(2 * sizeof *p);
  p[0] = x * x;
  p[1] = sin(x);
  return p;
}

int main(void) {
  static const double px[] = {0.8, -1.4, 2.3};
  for (int i = 0; i < 3; i++) {
    double x = px[i];
    double want = __enzyme_autodiff((void *)series, x, enzyme_const, 9);
    double fd = ZY_DIFF(t, x, series(t, 9));

    /* nofree: two reverses on one tape, then one that frees it. */
    AugD a = __enzyme_augmentfwd_d((void *)series, x, enzyme_const, 9,
                                   enzyme_nofree);
    zy_check_close("series primal", a.y, series(x, 9), 1e-15);
    double d1 = __enzyme_reverse((void *)series, x, enzyme_const, 9,
                                 enzyme_nofree, 1.0, a.tape);
    double d2 = __enzyme_reverse((void *)series, enzyme_nofree, x,
                                 enzyme_const, 9, 2.0, a.tape);
    double d3 = __enzyme_reverse((void *)series, x, enzyme_const, 9, -1.0,
                                 a.tape);
    ZY_CHECK2("nofree first reverse", d1, want, fd);
    ZY_CHECK2("nofree second reverse", d2, 2 * want, 2 * fd);
    ZY_CHECK2("freeing reverse", d3, -want, -fd);

    /* noret: the struct holds the tape only; active_return explicit. */
    AugT t = __enzyme_augmentfwd_t((void *)series, enzyme_noret, x,
                                   enzyme_const, 5, enzyme_active_return);
    double d4 = __enzyme_reverse((void *)series, x, enzyme_const, 5,
                                 enzyme_active_return, 0.5, t.tape);
    ZY_CHECK2("noret reverse", d4,
              0.5 * __enzyme_autodiff((void *)series, x, enzyme_const, 5),
              0.5 * ZY_DIFF(u, x, series(u, 5)));

    /* const_return: no return adjoint, the seed is on *out. */
    double out = 0, dout = 0;
    AugD s = __enzyme_augmentfwd_d((void *)store_out, enzyme_const_return, x,
                                   &out, &dout);
    zy_check_close("store_out primal", s.y, 42.0, 0);
    zy_check_close("store_out out", out, x * x * sin(x), 1e-15);
    dout = 3.0;
    double d5 = __enzyme_reverse((void *)store_out, enzyme_const_return, x,
                                 &out, &dout, s.tape);
    ZY_CHECK2("const_return dx", d5, 3 * (2 * x * sin(x) + x * x * cos(x)),
              3 * ZY_DIFF(u, x, ({
                            double o;
                            store_out(u, &o);
                            o;
                          })));
    zy_check_close("const_return consumes the seed", dout, 0, 0);

    /* A returned pointer: its shadow comes back (by default and with
     * enzyme_dup_return); the caller seeds it before the reverse. */
    for (int marked = 0; marked < 2; marked++) {
      AugP m = marked ? __enzyme_augmentfwd_p((void *)make, enzyme_dup_return,
                                              x)
                      : __enzyme_augmentfwd_p((void *)make, x);
      zy_check_close("make p[0]", m.p[0], x * x, 1e-15);
      zy_check_close("make p[1]", m.p[1], sin(x), 1e-15);
      zy_check_close("make shadow zeroed", m.dp[0] + m.dp[1], 0, 0);
      m.dp[0] = 1.0, m.dp[1] = 2.0;
      double d6 = marked ? __enzyme_reverse((void *)make, enzyme_dup_return, x,
                                            m.tape)
                         : __enzyme_reverse((void *)make, x, m.tape);
      ZY_CHECK2("dup_return dx", d6, 2 * x + 2 * cos(x),
                ZY_DIFF(u, x, ({
                          double *q = make(u);
                          double r = q[0] + 2 * q[1];
                          free(q);
                          r;
                        })));
      free(m.p);
      free(m.dp);
    }
  }
  return zy_report();
}
