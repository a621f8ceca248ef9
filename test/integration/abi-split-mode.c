// Split mode: __enzyme_augmentfwd runs the forward pass and returns a tape
// (alone, or in a struct with the primal result), __enzyme_reverse takes
// the arguments, the return adjoint and the tape and returns the
// gradients.  Checked against __enzyme_autodiff of the same function and
// finite differences: active scalars (double and float), dup pointers to
// memory the function overwrites, a callee and a loop whose values go
// through the tape, two tapes alive at once, a return adjoint other than 1.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
#include "fd.h"

#include <string.h>

int enzyme_const, enzyme_dup, enzyme_out;

typedef struct { double dx, dy; } G2;
G2 __enzyme_autodiff2(void *, ...);
G2 __enzyme_reverse2(void *, ...);
double __enzyme_autodiff(void *, ...);
double __enzyme_reverse(void *, ...);
void __enzyme_autodiff_void(void *, ...);
void __enzyme_reverse_void(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
typedef struct { void *tape; double y; } AugD;
AugD __enzyme_augmentfwd_d(void *, ...);
typedef struct { void *tape; float y; } AugF;
AugF __enzyme_augmentfwd_f(void *, ...);
float __enzyme_reverse_f(void *, ...);

#define NOINLINE __attribute__((noinline))

/* Two active scalars, an active result. */
double f2(double x, double y) { return sin(x * y) + x * x / (1 + y * y); }

/* A float parameter and result. */
float ff(float x) { return x * x * cosf(x); }

/* A pointer whose memory is overwritten (jacobian [1 2*x1; 0 -1]). */
void inplace(double *x) {
  x[0] += x[1] * x[1];
  x[1] = -x[1];
}

/* A loop and a callee, with a constant integer count: the loop's values
 * and the callee's tape travel in the tape. */
static NOINLINE double bump(double a, double b) { return exp(a * b) - b; }
double looped(const double *v, int n, double s) {
  double acc = 0;
  for (int i = 0; i < n; i++)
    acc = acc * s + bump(v[i], s) * v[i];
  return acc;
}

int main(void) {
  static const double px[] = {0.8, -1.4, 2.3};
  static const double py[] = {1.2, 0.6, -0.7};
  for (int i = 0; i < 3; i++) {
    double x = px[i], y = py[i];
    /* The struct result: the tape, then the primal result. */
    AugD a = __enzyme_augmentfwd_d((void *)f2, x, y);
    zy_check_close("f2 primal", a.y, f2(x, y), 1e-15);
    G2 r = __enzyme_reverse2((void *)f2, x, y, 1.0, a.tape);
    G2 w = __enzyme_autodiff2((void *)f2, x, y);
    ZY_CHECK2("f2 dx", r.dx, w.dx, ZY_DIFF(t, x, f2(t, y)));
    ZY_CHECK2("f2 dy", r.dy, w.dy, ZY_DIFF(t, y, f2(x, t)));

    /* Two tapes alive at once, reversed in the other order, with return
     * adjoints 2.5 and -0.5; the tape alone as a void* result. */
    void *t1 = __enzyme_augmentfwd((void *)f2, x, y);
    void *t2 = __enzyme_augmentfwd((void *)f2, y, x);
    G2 r2 = __enzyme_reverse2((void *)f2, y, x, -0.5, t2);
    G2 r1 = __enzyme_reverse2((void *)f2, x, y, 2.5, t1);
    G2 w2 = __enzyme_autodiff2((void *)f2, y, x);
    ZY_CHECK2("f2 tape 1 dx", r1.dx, 2.5 * w.dx, 2.5 * ZY_DIFF(t, x, f2(t, y)));
    ZY_CHECK2("f2 tape 1 dy", r1.dy, 2.5 * w.dy, 2.5 * ZY_DIFF(t, y, f2(x, t)));
    ZY_CHECK2("f2 tape 2 dx", r2.dx, -0.5 * w2.dx,
              -0.5 * ZY_DIFF(t, y, f2(t, x)));
    ZY_CHECK2("f2 tape 2 dy", r2.dy, -0.5 * w2.dy,
              -0.5 * ZY_DIFF(t, x, f2(y, t)));

    /* enzyme_const and enzyme_out: only y's gradient. */
    void *t3 = __enzyme_augmentfwd((void *)f2, enzyme_const, x, enzyme_out, y);
    double dy = __enzyme_reverse((void *)f2, enzyme_const, x, enzyme_out, y,
                                 1.0, t3);
    ZY_CHECK2("f2 const x, dy", dy, w.dy, ZY_DIFF(t, y, f2(x, t)));

    /* float. */
    float xf = (float)x;
    AugF af = __enzyme_augmentfwd_f((void *)ff, xf);
    zy_check_close("ff primal", af.y, ff(xf), 1e-6);
    float df = __enzyme_reverse_f((void *)ff, xf, 1.0f, af.tape);
    zy_check_close("ff dx (autodiff)", df,
                   (float)__enzyme_autodiff((void *)ff, xf), 1e-6);
    zy_check_close("ff dx (closed form)", df,
                   2 * xf * cosf(xf) - xf * xf * sinf(xf), 1e-5);

    /* A dup pointer to memory the function overwrites: the reverse gets
     * the gradient with respect to the values before the forward pass. */
    double v[2] = {x, y}, dv[2] = {0, 0};
    void *t4 = __enzyme_augmentfwd((void *)inplace, v, dv);
    zy_check_close("inplace primal 0", v[0], x + y * y, 1e-15);
    zy_check_close("inplace primal 1", v[1], -y, 1e-15);
    dv[0] = 5.6, dv[1] = 7.8; /* the seed on the outputs */
    __enzyme_reverse_void((void *)inplace, enzyme_dup, v, dv, t4);
    double u[2] = {x, y}, du[2] = {5.6, 7.8};
    __enzyme_autodiff_void((void *)inplace, u, du);
    zy_check_close("inplace dx0 (autodiff)", dv[0], du[0], 1e-15);
    zy_check_close("inplace dx1 (autodiff)", dv[1], du[1], 1e-15);
    zy_check_close("inplace dx0 (closed form)", dv[0], 5.6, 1e-15);
    zy_check_close("inplace dx1 (closed form)", dv[1], 5.6 * 2 * y - 7.8,
                   1e-15);

    /* A loop and a callee; the constant count and the active scale. */
    double vals[4] = {x, y, 0.3 * x, -0.2}, dvals[4] = {0};
    double s = 0.5 + 0.1 * i;
    AugD al = __enzyme_augmentfwd_d((void *)looped, vals, dvals,
                                    enzyme_const, 4, s);
    zy_check_close("looped primal", al.y, looped(vals, 4, s), 1e-14);
    double ds = __enzyme_reverse((void *)looped, vals, dvals, enzyme_const, 4,
                                 s, 1.0, al.tape);
    double wv[4] = {0};
    double ws = __enzyme_autodiff((void *)looped, vals, wv, enzyme_const, 4, s);
    ZY_CHECK2("looped ds", ds, ws, ZY_DIFF(t, s, looped(vals, 4, t)));
    for (int k = 0; k < 4; k++) {
      double fd = ZY_DIFF(t, vals[k], ({
                            double c[4];
                            memcpy(c, vals, sizeof c);
                            c[k] = t;
                            looped(c, 4, s);
                          }));
      ZY_CHECK2("looped dv", dvals[k], wv[k], fd);
    }
  }
  return zy_report();
}
