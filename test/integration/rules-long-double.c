// Gradients of long double (x86_fp80) code: arithmetic and the l-suffixed
// libm functions, with long double and {long double, long double} (sret)
// results, against long double closed forms and finite differences.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O0 -fno-math-errno %s -lm -o %t4 && %t4
// RUN: %clang -O2 -fno-math-errno %s -lm -o %t5 && %t5
// RUN: %clang -O2 -ffast-math %s -lm -o %tf && %tf
// RUN: %clang -O2 -fno-builtin %s -lm -o %tb && %tb
#include "fd.h"

long double __enzyme_autodiff(void *, ...);
typedef struct { long double dx, dy; } L2;
L2 __enzyme_autodiff2(void *, ...);

/* Closed forms are evaluated in long double too: 1e-16 leaves room for a
 * few roundings at 64-bit precision. */
#define TOLL 1e-16L
#define FDL_TOL 1e-10L

long double f_arith(long double x, long double y) {
  return (x * y - x / y) * -x + x * x * y;
}
long double f_sinl(long double x) { return sinl(x); }
long double f_cosl(long double x) { return cosl(x); }
long double f_tanl(long double x) { return tanl(x); }
long double f_atanl(long double x) { return atanl(x); }
long double f_tanhl(long double x) { return tanhl(x); }
long double f_expl(long double x) { return expl(x); }
long double f_logl(long double x) { return logl(x); }
long double f_log1pl(long double x) { return log1pl(x); }
long double f_sqrtl(long double x) { return sqrtl(x); }
long double f_cbrtl(long double x) { return cbrtl(x); }
long double f_erfl(long double x) { return erfl(x); }
long double f_lgammal(long double x) { return lgammal(x); }
long double f_fabsl(long double x) { return fabsl(x) * x; }
long double f_floorl(long double x) { return floorl(x) * x; }
long double f_powl(long double x, long double y) { return powl(x, y); }
long double f_atan2l(long double y, long double x) { return atan2l(y, x); }
long double f_hypotl(long double x, long double y) { return hypotl(x, y); }
long double f_fmodl(long double x, long double y) { return fmodl(x, y); }
long double f_fminl(long double x, long double y) { return fminl(x, y); }
/* mixed precision: long double and double */
long double mixed(long double x, double y) { return x * y + (double)x * sin(y); }

static long double digammal(long double x) {
  long double acc = 0;
  while (x < 40)
    acc -= 1 / x, x += 1;
  long double f = 1 / (x * x);
  return acc + logl(x) - 0.5L / x -
         f * (1.0L / 12 - f * (1.0L / 120 - f * (1.0L / 252 - f / 240)));
}

#define C1(fn, at, want)                                                       \
  do {                                                                         \
    long double x = (at);                                                      \
    long double got = __enzyme_autodiff((void *)f_##fn, x);                    \
    zy_check_closel(#fn " (closed form)", got, (want), TOLL);                  \
    zy_check_closel(#fn " (finite diff)", got, ZY_DIFFL(t, x, f_##fn(t)),      \
                    FDL_TOL);                                                  \
  } while (0)
#define C2(fn, at, bt, wx, wy)                                                 \
  do {                                                                         \
    long double x = (at), y = (bt);                                            \
    L2 g = __enzyme_autodiff2((void *)f_##fn, x, y);                           \
    zy_check_closel(#fn " dx (closed form)", g.dx, (wx), TOLL);                \
    zy_check_closel(#fn " dy (closed form)", g.dy, (wy), TOLL);                \
    zy_check_closel(#fn " dx (finite diff)", g.dx,                             \
                    ZY_DIFFL(t, x, f_##fn(t, y)), FDL_TOL);                    \
    zy_check_closel(#fn " dy (finite diff)", g.dy,                             \
                    ZY_DIFFL(t, y, f_##fn(x, t)), FDL_TOL);                    \
  } while (0)

int main(void) {
  static const long double pts[] = {0.7L, -1.3L, 2.1L};
  for (int i = 0; i < 3; i++) {
    long double p = pts[i], q = fabsl(p) + 0.2L, r = 0.9L - p;
    C1(sinl, p, cosl(x));
    C1(cosl, p, -sinl(x));
    C1(tanl, p, 1 / (cosl(x) * cosl(x)));
    C1(atanl, p, 1 / (1 + x * x));
    C1(tanhl, p, 1 / (coshl(x) * coshl(x)));
    C1(expl, p, expl(x));
    C1(logl, q, 1 / x);
    C1(log1pl, p / 3, 1 / (1 + x));
    C1(sqrtl, q, 0.5L / sqrtl(x));
    C1(cbrtl, p, 1 / (3 * cbrtl(x) * cbrtl(x)));
    C1(erfl, p, 2 / sqrtl(3.14159265358979323846264338327950288L) * expl(-x * x));
    C1(lgammal, p + 0.05L, digammal(x));
    C1(fabsl, p, 2 * fabsl(x));
    C1(floorl, p, floorl(x));
    C2(powl, q, r, y * powl(x, y - 1), powl(x, y) * logl(x));
    C2(atan2l, p, r, y / (x * x + y * y), -x / (x * x + y * y));
    C2(hypotl, p, r, x / hypotl(x, y), y / hypotl(x, y));
    C2(fmodl, p * 3, 0.8L, 1, -truncl(x / y));
    C2(arith, p, r, 2 * x / y, -x * x / (y * y));
    L2 g = __enzyme_autodiff2((void *)f_fminl, p, r);
    zy_check_closel("fminl dx", g.dx, p < r, TOLL);
    zy_check_closel("fminl dy", g.dy, p >= r, TOLL);

    typedef struct { long double dx; double dy; } LD;
    LD __enzyme_autodiff_ld(void *, ...);
    double y = (double)r;
    LD m = __enzyme_autodiff_ld((void *)mixed, p, y);
    zy_check_closel("mixed dx", m.dx, y + sin(y), 1e-15L);
    zy_check_close("mixed dy", m.dy, (double)(p + (double)p * cos(y)), 1e-15);
  }
  return zy_report();
}
