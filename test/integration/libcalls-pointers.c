// Library calls that write results through pointers: frexp (m = x 2^-e,
// dm/dx = 2^-e), modf (fractional part d/dx = 1, integral part written
// through the pointer with derivative 0), sincos (ds = cos, dc = -sin),
// remquo (as remainder; the quotient is an int), lgamma_r (digamma; the
// sign is an int), and their float variants, writing to local variables,
// to dup arrays (whose seeds they consume), in loops and in a callee,
// against closed forms and finite differences.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %valgrind %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %valgrind %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O2 -fno-math-errno %s -lm -o %t4 && %t4
#define _GNU_SOURCE
#include "fd.h"

double __enzyme_autodiff(void *, ...);
typedef struct { double dx, dy; } G2;
G2 __enzyme_autodiff2(void *, ...);
int enzyme_const;

static double use_frexp(double x) {
  int e;
  double m = frexp(x, &e);
  return m * m * e;
}
static double use_frexpf(double x) {
  int e;
  float m = frexpf((float)x, &e);
  return (double)m * e;
}
static double use_modf(double x) {
  double ip;
  double fr = modf(x, &ip);
  return fr * fr * ip + fr;
}
static double use_modff(double x) {
  float ip;
  float fr = modff((float)x, &ip);
  return (double)fr * fr * ip;
}
/* The integral part overwrites a[1], whose adjoint must not reach the
 * value a[1] held before. */
static double modf_over_dup(double *a) {
  double keep = a[1] * a[1];
  double fr = modf(a[0] * 1.5, &a[1]);
  return keep * fr + a[1];
}
static double use_sincos(double x) {
  double s, c;
  sincos(x, &s, &c);
  return s * c * c;
}
static double use_sincosf(double x) {
  float s, c;
  sincosf((float)x, &s, &c);
  return (double)s * s + 2.0 * c;
}
static void sincos_to_dup(double *x, double *out) {
  sincos(x[0] * x[1], &out[0], &out[1]);
}
static double use_remquo(double x, double y) {
  int q;
  double r = remquo(x, y, &q);
  return r * r * (q + 0.5);
}
static double use_lgamma_r(double x) {
  int sign;
  double r = lgamma_r(x, &sign);
  return r * sign + r * r;
}
static double use_lgammaf_r(double x) {
  int sign;
  float r = lgammaf_r((float)x, &sign);
  return (double)r * sign;
}
/* sum_i sin(x_i) cos(x_i)^2, one sincos per iteration into locals. */
static double sincos_loop(double *x, int n) {
  double acc = 0;
  for (int i = 0; i < n; i++) {
    double s, c;
    sincos(x[i], &s, &c);
    acc += s * c * c;
  }
  return acc;
}
/* A callee writing through its pointer argument: split mode. */
__attribute__((noinline)) static void polar(double r, double t, double *xy) {
  double s, c;
  sincos(t, &s, &c);
  xy[0] = r * c;
  xy[1] = r * s;
}
static double polar_user(double r, double t) {
  double xy[2];
  polar(r, t, xy);
  return xy[0] * xy[0] * xy[1];
}

static double modf_dup_v(double a0, double a1) {
  double a[2] = {a0, a1};
  return modf_over_dup(a);
}
static double sincos_loop_v(const double *x, int n, int k, double v) {
  double y[3] = {x[0], x[1], x[2]};
  y[k] = v;
  return sincos_loop(y, n);
}

int main(void) {
  double x = 2.3;
  {
    int e;
    double m = frexp(x, &e);
    ZY_CHECK2("frexp", __enzyme_autodiff((void *)use_frexp, x),
              2 * m * ldexp(1.0, -e) * e, ZY_DIFF(t, x, use_frexp(t)));
    ZY_CHECK2("frexp(-0.3)", __enzyme_autodiff((void *)use_frexp, -0.3),
              2 * frexp(-0.3, &e) * ldexp(1.0, -e) * e,
              ZY_DIFF(t, -0.3, use_frexp(t)));
    frexpf((float)x, &e);
    zy_check_close("frexpf", __enzyme_autodiff((void *)use_frexpf, x),
                   ldexp(1.0, -e) * e, 1e-6);
  }
  {
    double ip, fr = modf(x, &ip);
    ZY_CHECK2("modf", __enzyme_autodiff((void *)use_modf, x), 2 * fr * ip + 1,
              ZY_DIFF(t, x, use_modf(t)));
    float ipf, frf = modff((float)x, &ipf);
    zy_check_close("modff", __enzyme_autodiff((void *)use_modff, x),
                   2.0 * frf * ipf, 1e-6);
    double a[2] = {2.3, 0.8}, da[2] = {0};
    __enzyme_autodiff((void *)modf_over_dup, a, da);
    double f = modf(2.3 * 1.5, &ip);
    ZY_CHECK2("modf-dup/da0", da[0], 0.8 * 0.8 * 1.5,
              ZY_DIFF(t, 2.3, modf_dup_v(t, 0.8)));
    ZY_CHECK2("modf-dup/da1", da[1], 2 * 0.8 * f,
              ZY_DIFF(t, 0.8, modf_dup_v(2.3, t)));
  }
  {
    double s = sin(x), c = cos(x);
    ZY_CHECK2("sincos", __enzyme_autodiff((void *)use_sincos, x),
              c * c * c - 2 * s * s * c, ZY_DIFF(t, x, use_sincos(t)));
    float sf = sinf((float)x), cf = cosf((float)x);
    zy_check_close("sincosf", __enzyme_autodiff((void *)use_sincosf, x),
                   2.0 * sf * cf - 2.0 * sf, 1e-6);
    double xs[2] = {0.5, 1.5}, dxs[2] = {0}, out[2], dout[2] = {1, 2};
    __enzyme_autodiff((void *)sincos_to_dup, xs, dxs, out, dout);
    double t = 0.75, g = cos(t) * 1 - sin(t) * 2;
    zy_check_close("sincos-dup/dx0", dxs[0], g * 1.5, ZY_TOL);
    zy_check_close("sincos-dup/dx1", dxs[1], g * 0.5, ZY_TOL);
    zy_check_close("sincos-dup/seeds consumed", fabs(dout[0]) + fabs(dout[1]),
                   0, 0);
  }
  {
    double y = 0.7;
    int q;
    double r = remquo(x, y, &q);
    G2 g = __enzyme_autodiff2((void *)use_remquo, x, y);
    ZY_CHECK2("remquo/dx", g.dx, 2 * r * (q + 0.5),
              ZY_DIFF(t, x, use_remquo(t, y)));
    ZY_CHECK2("remquo/dy", g.dy, -2 * r * rint(x / y) * (q + 0.5),
              ZY_DIFF(t, y, use_remquo(x, t)));
    g = __enzyme_autodiff2((void *)use_remquo, enzyme_const, x, y);
    zy_check_close("remquo/const x", g.dx, -2 * r * rint(x / y) * (q + 0.5),
                   ZY_TOL);
  }
  {
    ZY_CHECK2("lgamma_r", __enzyme_autodiff((void *)use_lgamma_r, x),
              ZY_DIFF(t, x, use_lgamma_r(t)), ZY_DIFF(t, x, use_lgamma_r(t)));
    /* sign -1 between -1 and 0 */
    zy_check_close("lgamma_r(-0.4)",
                   __enzyme_autodiff((void *)use_lgamma_r, -0.4),
                   ZY_DIFF(t, -0.4, use_lgamma_r(t)), ZY_FD_TOL);
    zy_check_close("lgammaf_r", __enzyme_autodiff((void *)use_lgammaf_r, x),
                   ZY_DIFF(t, x, lgamma(t)), 1e-5);
  }
  {
    double xs[3] = {0.3, -1.1, 2.0}, dxs[3] = {0};
    __enzyme_autodiff((void *)sincos_loop, xs, dxs, 3);
    for (int k = 0; k < 3; k++) {
      double s = sin(xs[k]), c = cos(xs[k]);
      ZY_CHECK2("sincos-loop", dxs[k], c * c * c - 2 * s * s * c,
                ZY_DIFF(t, xs[k], sincos_loop_v(xs, 3, k, t)));
    }
  }
  {
    double r = 1.3, t = 0.4;
    G2 g = __enzyme_autodiff2((void *)polar_user, r, t);
    /* f = r^3 c^2 s */
    double s = sin(t), c = cos(t);
    ZY_CHECK2("polar/dr", g.dx, 3 * r * r * c * c * s,
              ZY_DIFF(u, r, polar_user(u, t)));
    ZY_CHECK2("polar/dt", g.dy, r * r * r * (c * c * c - 2 * c * s * s),
              ZY_DIFF(u, t, polar_user(r, u)));
  }
  return zy_report();
}
