// Vector reverse mode (enzyme_width N in __enzyme_autodiff) with Enzyme's
// conventions, widths 1, 2, 4, 5 and 7: a pointer followed by its N
// shadows (enzyme_dup) or by one whose lanes lie a stride apart
// (enzyme_dupv, stride, p, dp), an active float argument's N adjoints
// returned in a row (struct { double dx[N]; double dy[N]; }), a float
// result seeded with 1.0 in every lane.  Each lane must equal the width-1
// gradient with the same seeds (1e-13) and central differences:
// arithmetic, math functions, a loop, a pure callee, recursion, a float
// function; a full 5 x 5 Jacobian by rows in one width-5 pass (each lane
// seeding another output's shadow) through a local array, memcpy, heap
// memory grown by realloc and a callee taking pointers; a loop whose
// overwritten values are cached for the reverse sweep, with shadows given
// one by one; calls made once for all lanes (a callee returning a pointer
// into its argument, recursion through a pointer, a callee in a loop)
// beside sincos, memset, a pointer select and heap memory; split mode
// (__enzyme_augmentfwd, __enzyme_reverse) of width 2 and 3 with the N
// return adjoints as a struct of N doubles (Enzyme's [N x double], passed
// in registers or by value), as N doubles or left out (1.0), and a
// returned pointer's N shadows.  Valgrind checks that each lane's shadow
// memory is freed.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-verify %s -lm -o %tv && %tv
// RUN: %valgrind %t0 > /dev/null
// RUN: %valgrind %t2 > /dev/null
#define _GNU_SOURCE
#include "fd.h"

#include <string.h>

extern int enzyme_const, enzyme_dup, enzyme_dupv, enzyme_width;
void __enzyme_autodiff_void(void *, ...);
typedef struct {
  double dx, dy;
} G1;
typedef struct {
  double dx[2], dy[2];
} G2;
typedef struct {
  double dx[4], dy[4];
} G4;
typedef struct {
  double dx[7], dy[7];
} G7;
typedef struct {
  float d[2];
} F2;
G1 __enzyme_autodiff1(void *, ...);
G2 __enzyme_autodiff2(void *, ...);
G4 __enzyme_autodiff4(void *, ...);
G7 __enzyme_autodiff7(void *, ...);
F2 __enzyme_autodifff2(void *, ...);

#define NOINLINE __attribute__((noinline))

NOINLINE double helper(double a, double b) { return a * exp(b) + b * b; }

double power(double x, int n) { return n == 0 ? 1 : x * power(x, n - 1); }

float single(float x) { return sinf(x) * x + expf(-x); }

double scalar(double x, double y) {
  double acc = x * y + 1 / x;
  for (int i = 0; i < 5; i++)
    acc = acc * 0.5 + sin(acc * y) / (i + 1);
  return acc + helper(x, y) * cos(y) + power(x + y, 3) + pow(x, y);
}

/* The result through a pointer, whose shadow seeds each lane. */
void scalar_to(double x, double y, double *out) { *out = scalar(x, y); }

static double seed(int j) { return 0.5 + 0.75 * j - 0.125 * j * j; }

/* Lane j of a width-W gradient of scalar_to seeded with seed(j), against
 * the width-1 gradient with that seed and central differences. */
static void check_lane(const char *w, int j, double dx, double dy, double x,
                       double y) {
  char what[96];
  double out, s = seed(j);
  G1 one = __enzyme_autodiff1((void *)scalar_to, x, y, &out, &s);
  double fx = seed(j) * ZY_DIFF(t, x, scalar(t, y));
  double fy = seed(j) * ZY_DIFF(t, y, scalar(x, t));
  snprintf(what, sizeof what, "scalar %s lane %d dx = width 1", w, j);
  zy_check_close(what, dx, one.dx, 1e-13);
  snprintf(what, sizeof what, "scalar %s lane %d dy = width 1", w, j);
  zy_check_close(what, dy, one.dy, 1e-13);
  snprintf(what, sizeof what, "scalar %s lane %d dx (finite diff)", w, j);
  zy_check_close(what, dx, fx, 1e-8);
  snprintf(what, sizeof what, "scalar %s lane %d dy (finite diff)", w, j);
  zy_check_close(what, dy, fy, 1e-8);
}

#define LANES(W, T, fn)                                                        \
  do {                                                                         \
    double seeds[W], out;                                                      \
    for (int j = 0; j < W; j++)                                                \
      seeds[j] = seed(j);                                                      \
    T g = fn((void *)scalar_to, enzyme_width, W, x, y, enzyme_dupv,            \
             sizeof(double), &out, seeds);                                     \
    for (int j = 0; j < W; j++) {                                              \
      check_lane("w" #W, j, g.dx[j], g.dy[j], x, y);                           \
      zy_check_close("seed consumed", seeds[j], 0, 0);                         \
    }                                                                          \
    zy_check_close("scalar_to primal", out, scalar(x, y), 1e-15);              \
  } while (0)

static void scalars(void) {
  double x = 1.3, y = 0.7, out, s0 = seed(0);
  /* width 1 is the plain gradient */
  G1 w1 =
      __enzyme_autodiff1((void *)scalar_to, enzyme_width, 1, x, y, &out, &s0);
  check_lane("w1", 0, w1.dx, w1.dy, x, y);
  LANES(2, G2, __enzyme_autodiff2);
  LANES(4, G4, __enzyme_autodiff4);
  LANES(7, G7, __enzyme_autodiff7);
  /* a float result: every lane seeded with 1.0 */
  G1 ref = __enzyme_autodiff1((void *)scalar, x, y);
  G4 r4 = __enzyme_autodiff4((void *)scalar, enzyme_width, 4, x, y);
  for (int j = 0; j < 4; j++) {
    zy_check_close("active result dx lane", r4.dx[j], ref.dx, 1e-13);
    zy_check_close("active result dy lane", r4.dy[j], ref.dy, 1e-13);
  }
  /* y constant: one adjoint per lane, of x alone */
  typedef struct {
    double dx[2];
  } D2;
  D2 __enzyme_autodiffd2(void *, ...);
  double sd[2] = {1, -2};
  D2 c2 =
      __enzyme_autodiffd2((void *)scalar_to, enzyme_width, 2, x, enzyme_const,
                          y, enzyme_dupv, sizeof(double), &out, sd);
  zy_check_close("const y lane 0", c2.dx[0], ref.dx, 1e-13);
  zy_check_close("const y lane 1", c2.dx[1], -2 * ref.dx, 1e-13);
  F2 f = __enzyme_autodifff2((void *)single, enzyme_width, 2, 0.8f);
  double df = cos(0.8) * 0.8 + sin(0.8) - exp(-0.8);
  zy_check_close("float lane 0", f.d[0], df, 1e-5);
  zy_check_close("float lane 1", f.d[1], df, 1e-5);
}

/* y = F(x), R^5 -> R^5: a local array filled by memcpy, a heap buffer
 * grown by realloc, a callee that takes pointers. */
#define NX 5
NOINLINE void smooth(const double *in, double *out, int n) {
  for (int i = 0; i < n; i++)
    out[i] = in[i] * in[(i + 1) % n] + exp(in[i]) * 0.1;
}
void vecfun(const double *x, double *y) {
  double t[NX], u[NX];
  double *h = malloc(2 * sizeof *h);
  for (int i = 0; i < NX; i++)
    t[i] = sin(x[i]) * x[(i + 2) % NX];
  memcpy(u, t, sizeof u);
  h[0] = u[0];
  h = realloc(h, NX * sizeof *h);
  smooth(u, h, NX);
  for (int i = 0; i < NX; i++)
    y[i] = h[i] * h[i] + log(1 + x[i] * x[i]);
  free(h);
}

/* Row i of the Jacobian is the gradient of y_i: lane i seeds y's shadow
 * with e_i, and x's shadow in lane i receives row i. */
static void jacobian(void) {
  double x[NX], want[NX], y[NX], jac1[NX][NX] = {0}, jac[NX][NX] = {0};
  double e[NX][NX] = {0};
  char what[96];
  for (int i = 0; i < NX; i++) {
    x[i] = 0.4 + 0.3 * i - 0.05 * i * i;
    e[i][i] = 1;
  }
  vecfun(x, want);
  for (int i = 0; i < NX; i++) { /* width 1, one row at a time */
    double dy[NX] = {0};
    dy[i] = 1;
    __enzyme_autodiff_void((void *)vecfun, x, jac1[i], y, dy);
  }
  __enzyme_autodiff_void((void *)vecfun, enzyme_width, NX, enzyme_dupv,
                         sizeof jac[0], x, jac, enzyme_dupv, sizeof e[0], y, e);
  for (int i = 0; i < NX; i++) {
    zy_check_close("vecfun primal", y[i], want[i], 1e-15);
    for (int c = 0; c < NX; c++) {
      double xs[NX], ys[NX];
      memcpy(xs, x, sizeof xs);
      double fd = ZY_DIFF(s, x[c], (xs[c] = s, vecfun(xs, ys), ys[i]));
      snprintf(what, sizeof what, "J[%d][%d] width 5 = width 1", i, c);
      zy_check_close(what, jac[i][c], jac1[i][c], 1e-13);
      snprintf(what, sizeof what, "J[%d][%d] width 5 (finite diff)", i, c);
      zy_check_close(what, jac[i][c], fd, 1e-8);
      zy_check_close("output seed consumed", e[i][c], 0, 0);
    }
  }
}

/* x is overwritten in place, so the reverse sweep reads the old values
 * (and s) from its caches; x's shadow on entry seeds its final values. */
#define NL 6
double loop_cached(double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double t = sin(x[i]) * (s + 1);
    x[i] = t * 0.5 + x[(i + 1) % n];
    s += t * t;
  }
  return s;
}

static double loop_value(const double *x0, const double *v) {
  double x[NL];
  memcpy(x, x0, sizeof x);
  double s = loop_cached(x, NL);
  for (int i = 0; i < NL; i++)
    s += v[i] * x[i];
  return s;
}

static void loop(void) {
  double x0[NL], v[3][NL], d[3][NL], d1[NL], x[NL];
  char what[96];
  for (int i = 0; i < NL; i++) {
    x0[i] = 0.2 + 0.15 * i;
    for (int j = 0; j < 3; j++)
      v[j][i] = (i + j) % 3 == 0 ? 0.5 * (j + 1) : 0.0;
  }
  memcpy(d, v, sizeof d);
  memcpy(x, x0, sizeof x);
  __enzyme_autodiff_void((void *)loop_cached, enzyme_width, 3, enzyme_dup, x,
                         d[0], d[1], d[2], enzyme_const, NL);
  for (int j = 0; j < 3; j++) {
    memcpy(d1, v[j], sizeof d1);
    memcpy(x, x0, sizeof x);
    __enzyme_autodiff_void((void *)loop_cached, x, d1, NL);
    for (int i = 0; i < NL; i++) {
      double xs[NL];
      memcpy(xs, x0, sizeof xs);
      double fd = ZY_DIFF(s, x0[i], (xs[i] = s, loop_value(xs, v[j])));
      snprintf(what, sizeof what, "loop lane %d dx[%d] = width 1", j, i);
      zy_check_close(what, d[j][i], d1[i], 1e-13);
      snprintf(what, sizeof what, "loop lane %d dx[%d] (finite diff)", j, i);
      zy_check_close(what, d[j][i], fd, 1e-8);
    }
  }
}

/* Calls made once for all lanes and per-lane memory. */
#define NC 6
NOINLINE double *pick(double *a, int k) { return a + k; }
NOINLINE double rsum(double *a, int n, double w) {
  return n == 0 ? 0 : a[n - 1] * w + rsum(a, n - 1, w * 1.1);
}
NOINLINE void scaleit(double *a, double c, int n) {
  for (int i = 0; i < n; i++)
    a[i] *= c;
}
double calls_fun(double *x, double c, double *out) {
  double s = *pick(x, 2) * x[0];
  double *tmp = malloc(NC * sizeof *tmp);
  memset(tmp, 0, NC * sizeof *tmp);
  for (int i = 0; i < NC; i++) {
    double sn, cs;
    sincos(x[i] * c, &sn, &cs);
    tmp[i] = sn * cs + x[i];
    for (int j = 0; j <= i; j++) {
      double *b = (j & 1) ? x : tmp;
      s += b[j] * tmp[i] * 0.1;
    }
    scaleit(tmp, 1.0 + 0.01 * i * c, i + 1);
  }
  s += rsum(tmp, NC, c);
  for (int i = 0; i < NC; i++) {
    out[i] = tmp[i] * s;
    x[i] = x[i] * x[i];
  }
  free(tmp);
  return s * c;
}

/* The function's result plus the seeds' dot products with what it
 * writes: the value whose gradient a lane's seeds ask for. */
static double calls_value(const double *x0, double c, const double *vx,
                          const double *vout) {
  double x[NC], out[NC];
  memcpy(x, x0, sizeof x);
  double s = calls_fun(x, c, out);
  for (int i = 0; i < NC; i++)
    s += vx[i] * x[i] + vout[i] * out[i];
  return s;
}

static void calls(void) {
  typedef struct {
    double d[3];
  } D3;
  D3 __enzyme_autodiff3(void *, ...);
  double __enzyme_autodiff(void *, ...);
  double x0[NC], x[NC], o[NC], dx[3][NC], dout[3][NC], vx[3][NC], vo[3][NC];
  double c = 0.9;
  char what[96];
  for (int i = 0; i < NC; i++) {
    x0[i] = 0.3 + 0.1 * i;
    for (int j = 0; j < 3; j++) {
      vx[j][i] = i == j ? 1 : 0.1 * j;
      vo[j][i] = 0.2 * (i + j);
    }
  }
  memcpy(dx, vx, sizeof dx);
  memcpy(dout, vo, sizeof dout);
  memcpy(x, x0, sizeof x);
  D3 g = __enzyme_autodiff3((void *)calls_fun, enzyme_width, 3, enzyme_dupv,
                            sizeof dx[0], x, dx, c, enzyme_dup, o, dout[0],
                            dout[1], dout[2]);
  for (int j = 0; j < 3; j++) {
    double dx1[NC], do1[NC];
    memcpy(dx1, vx[j], sizeof dx1);
    memcpy(do1, vo[j], sizeof do1);
    memcpy(x, x0, sizeof x);
    double g1 = __enzyme_autodiff((void *)calls_fun, x, dx1, c, o, do1);
    /* the result's seed is 1.0 in every lane */
    double fc = ZY_DIFF(t, c, calls_value(x0, t, vx[j], vo[j]));
    snprintf(what, sizeof what, "calls lane %d dc = width 1", j);
    zy_check_close(what, g.d[j], g1, 1e-13);
    snprintf(what, sizeof what, "calls lane %d dc (finite diff)", j);
    zy_check_close(what, g.d[j], fc, 1e-8);
    for (int i = 0; i < NC; i++) {
      double xs[NC];
      memcpy(xs, x0, sizeof xs);
      double fd =
          ZY_DIFF(t, x0[i], (xs[i] = t, calls_value(xs, c, vx[j], vo[j])));
      snprintf(what, sizeof what, "calls lane %d dx[%d] = width 1", j, i);
      zy_check_close(what, dx[j][i], dx1[i], 1e-13);
      snprintf(what, sizeof what, "calls lane %d dx[%d] (finite diff)", j, i);
      zy_check_close(what, dx[j][i], fd, 1e-8);
      zy_check_close("calls output seed consumed", dout[j][i], 0, 0);
    }
  }
}

/* Split mode: lane j's return adjoint dr[j] and p's seeds vp[j]. */
double sp_fun(double x, double *p) {
  double v = p[0] * sin(x) + p[1] * x * x;
  p[0] = v;
  return v * p[1];
}

static double sp_value(double x, const double *p0, double dr,
                       const double *vp) {
  double p[2] = {p0[0], p0[1]};
  double r = sp_fun(x, p);
  return dr * r + vp[0] * p[0] + vp[1] * p[1];
}

double *sp_at(double *a, int k) {
  a[k] *= a[k];
  return a + k;
}

static void split(void) {
  typedef struct {
    double d[2];
  } S2;
  typedef struct {
    double d[3];
  } S3;
  void *__enzyme_augmentfwd(void *, ...);
  S3 __enzyme_reverse3(void *, ...);
  S2 __enzyme_reverse2(void *, ...);
  double __enzyme_reverse1(void *, ...);
  double x = 0.8, p0[2] = {0.6, 1.7}, p[2], dp[3][2], dp1[2];
  double vp[3][2] = {{1, 0}, {0, 1}, {0.5, -2}};
  S3 dr = {{1, 2, -1}};
  char what[96];
  memcpy(p, p0, sizeof p);
  memcpy(dp, vp, sizeof dp);
  void *tape = __enzyme_augmentfwd((void *)sp_fun, enzyme_width, 3, x,
                                   enzyme_dupv, sizeof dp[0], p, dp);
  S3 g = __enzyme_reverse3((void *)sp_fun, enzyme_width, 3, x, enzyme_dupv,
                           sizeof dp[0], p, dp, dr, tape);
  for (int j = 0; j < 3; j++) {
    double q[2] = {p0[0], p0[1]};
    memcpy(dp1, vp[j], sizeof dp1);
    void *t1 = __enzyme_augmentfwd((void *)sp_fun, x, q, dp1);
    double g1 = __enzyme_reverse1((void *)sp_fun, x, q, dp1, dr.d[j], t1);
    snprintf(what, sizeof what, "split w3 lane %d dx = width 1", j);
    zy_check_close(what, g.d[j], g1, 1e-13);
    snprintf(what, sizeof what, "split w3 lane %d dx (finite diff)", j);
    zy_check_close(what, g.d[j],
                   ZY_DIFF(t, x, sp_value(t, p0, dr.d[j], vp[j])), 1e-8);
    for (int i = 0; i < 2; i++) {
      double ps[2] = {p0[0], p0[1]};
      snprintf(what, sizeof what, "split w3 lane %d dp[%d] = width 1", j, i);
      zy_check_close(what, dp[j][i], dp1[i], 1e-13);
      snprintf(what, sizeof what, "split w3 lane %d dp[%d] (finite diff)", j,
               i);
      zy_check_close(what, dp[j][i],
                     ZY_DIFF(t, p0[i],
                             (ps[i] = t, sp_value(x, ps, dr.d[j], vp[j]))),
                     1e-8);
    }
  }
  /* width 2: the adjoints as a struct (two doubles in registers), as two
   * doubles, or none (1.0 each) */
  double one = ZY_DIFF(t, x, sp_value(t, p0, 1, (double[2]){0, 0}));
  for (int form = 0; form < 3; form++) {
    double d2[2][2] = {{0}};
    S2 r2 = {{3, -0.5}}, g2;
    memcpy(p, p0, sizeof p);
    tape = __enzyme_augmentfwd((void *)sp_fun, enzyme_width, 2, x, p, d2[0],
                               d2[1]);
    if (form == 0)
      g2 = __enzyme_reverse2((void *)sp_fun, enzyme_width, 2, x, p, d2[0],
                             d2[1], r2, tape);
    else if (form == 1)
      g2 = __enzyme_reverse2((void *)sp_fun, enzyme_width, 2, x, p, d2[0],
                             d2[1], 3.0, -0.5, tape);
    else
      g2 = __enzyme_reverse2((void *)sp_fun, enzyme_width, 2, x, p, d2[0],
                             d2[1], tape);
    snprintf(what, sizeof what, "split w2 form %d lane 0", form);
    zy_check_close(what, g2.d[0], (form == 2 ? 1 : 3) * one, 1e-8);
    snprintf(what, sizeof what, "split w2 form %d lane 1", form);
    zy_check_close(what, g2.d[1], (form == 2 ? 1 : -0.5) * one, 1e-8);
  }
  /* a returned pointer: its N shadows come back from the forward pass */
  typedef struct {
    void *tape;
    double *r, *s0, *s1;
  } AugP;
  AugP __enzyme_augmentfwdp(void *, ...);
  void __enzyme_reversev(void *, ...);
  double a[3] = {1, 2, 3}, da0[3] = {0}, da1[3] = {0};
  AugP ap = __enzyme_augmentfwdp((void *)sp_at, enzyme_width, 2, a, da0, da1,
                                 1);
  zy_check_close("split returned pointer", *ap.r, 4, 0);
  *ap.s0 += 1;
  *ap.s1 += 5;
  __enzyme_reversev((void *)sp_at, enzyme_width, 2, a, da0, da1, 1, ap.tape);
  zy_check_close("split returned pointer lane 0", da0[1], 2 * 2, 0);
  zy_check_close("split returned pointer lane 1", da1[1], 5 * 2 * 2, 0);
}

int main(void) {
  scalars();
  split();
  jacobian();
  loop();
  calls();
  return zy_report();
}
