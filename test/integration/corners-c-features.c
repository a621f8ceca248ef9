// Ordinary C, the ways real code uses it, differentiated in reverse and
// forward mode against central differences (a representative set of the
// cases the corner-case hunt found right): unions of a double with an
// int64 and with a struct, structs of doubles passed and returned by
// value in registers and through memory (sret, byval), structs of three
// pointers returned and passed, bitfields beside doubles, pointer to
// pointer and jagged heap rows, globals written by a callee and read
// back, long double, recursion through a pointer, VLA and alloca, strided
// views, in-place updates of the argument, early returns and gotos out of
// loops, a switch on a computed int with fall-through, gathers and
// scatters through integer index tables, a 2-D array by row pointer, a
// flexible array member, a pointer chosen by comparisons, memset, pointer
// phis.  With -zymase-loose-types nowhere: every copy is typed.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
#include "fd.h"

#include <alloca.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup;

#define N 6
#define NOI __attribute__((noinline))

typedef union {
  double d;
  int64_t i;
} DI;
typedef struct {
  double a, b;
} P2;
typedef union {
  double d[2];
  P2 p;
} UP;
typedef struct {
  double x, y;
} V2;
typedef struct {
  double m[4][4];
  double s;
} Big;
typedef struct {
  double *a;
  double *b;
  double *c;
  double k;
} PL;
NOI DI mk_di(double d) {
  DI u;
  u.d = d * d;
  return u;
}
double u_di(double *x) {
  DI u = mk_di(x[0]);
  double s = u.d * x[1];
  DI w;
  w.d = x[2];
  w.i ^= 0; // bit op on the int view
  s += w.d * x[3];
  DI z;
  z.i = 0;
  z.d = x[4] + x[5];
  return s + z.d * z.d;
}
double u_up(double *x) {
  UP u;
  u.d[0] = x[0];
  u.d[1] = x[1] * x[2];
  UP v = u;
  v.p.a *= x[3];
  return v.p.a * v.p.b + v.d[1] * x[4] + sin(v.d[0]) * x[5];
}
NOI V2 v2add(V2 a, V2 b) {
  V2 r = {a.x + b.x * a.y, a.y * b.y};
  return r;
}
double small_val(double *x) {
  V2 a = {x[0], x[1]}, b = {x[2], x[3]};
  V2 c = v2add(a, b);
  c = v2add(c, (V2){x[4], x[5]});
  return c.x * c.y;
}
NOI Big big_make(double *x) {
  Big b;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      b.m[i][j] = x[(i + j) % N] * (i + 1);
  b.s = x[5];
  return b;
}
NOI double big_use(Big b) {
  double t = 0;
  for (int i = 0; i < 4; i++)
    t += b.m[i][i] * b.m[i][(i + 1) % 4];
  return t * b.s;
}
double big_val(double *x) {
  Big b = big_make(x);
  b.m[0][0] *= x[1];
  return big_use(b) + b.m[3][2];
}
NOI PL pl_make(double *x) {
  PL r = {x, x + 2, x + 4, x[1] * 2};
  return r;
}
double ptr_large(double *x) {
  PL r = pl_make(x);
  return r.k * r.a[0] + r.b[0] * r.b[1] + sin(r.c[1]) * r.c[0];
}
NOI double pl_use(PL r) { return r.k * r.a[1] + r.b[1] * r.c[0]; }
double ptr_large_arg(double *x) {
  PL r = {x + 1, x, x + 3, x[5]};
  return pl_use(r) * x[2];
}
NOI double pp_sum(double **rows, int r, const int *len) {
  double s = 0;
  for (int i = 0; i < r; i++)
    for (int j = 0; j < len[i]; j++)
      s += rows[i][j] * rows[i][j] * (j + 1);
  return s;
}
double ptrptr(double *x) {
  double *rows[3] = {x, x + 1, x + 3};
  int len[3] = {1, 2, 3};
  return pp_sum(rows, 3, len);
}
double jagged(double *x) {
  double **rows = malloc(3 * sizeof(double *));
  int len[3] = {2, 1, 3};
  int k = 0;
  for (int i = 0; i < 3; i++) {
    rows[i] = malloc(len[i] * sizeof(double));
    for (int j = 0; j < len[i]; j++)
      rows[i][j] = sin(x[k++]);
  }
  double s = pp_sum(rows, 3, len);
  for (int i = 0; i < 3; i++)
    free(rows[i]);
  free(rows);
  return s;
}
double g_acc, g_arr[N];
NOI void gset(double *x) {
  g_acc = 0;
  for (int i = 0; i < N; i++) {
    g_arr[i] = x[i] * x[i];
    g_acc += x[i];
  }
}
double globals(double *x) {
  gset(x);
  double s = g_acc * g_acc;
  for (int i = 0; i < N; i++)
    s += g_arr[i] * g_arr[(i + 2) % N];
  return s;
}
double ldbl(double *x) {
  long double a = x[0], s = 0;
  for (int i = 1; i < N; i++)
    s += (long double)x[i] * a * sinl(x[i]);
  return (double)(s + a * a);
}
NOI double rec(double *p, int n, double acc) {
  if (n == 0)
    return acc;
  return rec(p + 1, n - 1, acc * p[0] + sin(p[0]));
}
double recursion(double *x) { return rec(x, N, 1.0); }
double vla(double *x) {
  int n = N;
  double t[n];
  for (int i = 0; i < n; i++)
    t[i] = x[i] * x[(i + 1) % n];
  double *a = alloca(n * sizeof(double));
  for (int i = 0; i < n; i++)
    a[i] = t[n - 1 - i] + t[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * a[i];
  return s;
}
NOI double strided_dot(const double *a, int sa, const double *b, int sb,
                       int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i * sa] * b[i * sb];
  return s;
}
double strided(double *x) {
  return strided_dot(x, 2, x + 1, 2, 3) + strided_dot(x + 5, -1, x, 1, 6);
}
double inplace(double *x) {
  for (int i = 1; i < N; i++)
    x[i] = x[i] * x[i - 1] + sin(x[i]);
  for (int i = N - 2; i >= 0; i--)
    x[i] += 0.5 * x[i + 1];
  return x[0] + x[N - 1];
}
double early(double *x) {
  double s = 0;
  for (int i = 0; i < N; i++) {
    s += x[i] * x[i];
    if (s > 1.5)
      return s * x[i];
  }
  return -s;
}
double sw(double *x) {
  double s = 0;
  for (int i = 0; i < N; i++) {
    int k = (int)(x[i] * 4) % 4;
    switch (k) {
    case 0:
      s += x[i];
      break;
    case 1:
      s *= x[i];
    case 2:
      s += sin(x[i]);
      break;
    default:
      s -= x[i] * x[i];
    }
  }
  return s;
}
double gather(double *x) {
  static const int idx[8] = {3, 1, 4, 1, 5, 0, 2, 5};
  double t[N] = {0};
  for (int i = 0; i < 8; i++)
    t[idx[i]] += x[idx[(i + 3) % 8]] * x[i % N];
  double s = 0;
  for (int i = 0; i < N; i++)
    s += t[i] * t[i] + x[idx[i]];
  return s;
}
double scatter_self(double *x) {
  static const int idx[6] = {2, 2, 0, 5, 1, 2};
  for (int i = 0; i < 6; i++)
    x[idx[i]] += x[i] * 0.5;
  double s = 0;
  for (int i = 0; i < N; i++)
    s += x[i] * x[i];
  return s;
}
typedef struct {
  double v[3];
} V3;
typedef struct {
  unsigned on : 1;
  unsigned k : 7;
  double w;
} BF;
NOI double byval_arr(V3 a, V3 b) {
  return a.v[0] * b.v[1] + a.v[2] * b.v[2] + sin(a.v[1]);
}
double byval(double *x) {
  V3 a = {{x[0], x[1], x[2]}}, b = {{x[3], x[4], x[5]}};
  double s = byval_arr(a, b);
  a.v[1] *= x[5];
  return s + byval_arr(b, a);
}
NOI double bf_sum(BF *b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    if (b[i].on)
      s += b[i].w * b[i].k;
  return s;
}
double bitfields(double *x) {
  BF b[N];
  for (int i = 0; i < N; i++) {
    b[i].on = i % 3 != 0;
    b[i].k = i + 1;
    b[i].w = x[i] * x[i];
  }
  return bf_sum(b, N);
}
double gotos(double *x) {
  double s = 0;
  int i = 0, j;
  for (i = 0; i < 3; i++)
    for (j = 0; j < 3; j++) {
      s += x[i] * x[j + 3];
      if (s > 2.0)
        goto out;
    }
out:
  return s * x[i < 3 ? i : 0];
}
double dowhile(double *x) {
  double s = x[0];
  int k = 0;
  do {
    s = s * 0.5 + x[k] * x[k];
    k++;
  } while (k < N && s < 3);
  return s;
}
NOI void scatter(double *out, const double *in, const int *idx, int n) {
  for (int i = 0; i < n; i++)
    out[idx[i]] += in[i] * in[(i + 1) % n];
}
double scatter_call(double *x) {
  static const int idx[N] = {2, 0, 2, 5, 1, 2};
  double t[N] = {0};
  scatter(t, x, idx, N);
  double s = 0;
  for (int i = 0; i < N; i++)
    s += t[i] * t[i];
  return s;
}
NOI double det3(double (*a)[3]) {
  return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
         a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
         a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
}
double twod(double *x) {
  double a[3][3];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      a[i][j] = x[(i * 3 + j) % N] + (i == j);
  return det3(a);
}
typedef struct {
  int n;
  double v[];
} Flex;
double flex(double *x) {
  Flex *f = malloc(sizeof(Flex) + N * sizeof(double));
  f->n = N;
  for (int i = 0; i < N; i++)
    f->v[i] = cos(x[i]);
  double s = 0;
  for (int i = 0; i < f->n; i++)
    s += f->v[i] * f->v[(i + 3) % N];
  free(f);
  return s;
}
NOI double rows_dot(const double *const *r, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += r[i][0] * r[i][1];
  return s;
}
double const_rows(double *x) {
  const double *r[3] = {x, x + 2, x + 4};
  return rows_dot(r, 3);
}
double minptr(double *x) {
  double *best = x;
  for (int i = 1; i < N; i++)
    if (x[i] * x[i] < *best * *best)
      best = x + i;
  return *best * x[0] + best[0];
}
double memsets(double *x) {
  double acc[3];
  memset(acc, 0, sizeof acc);
  for (int i = 0; i < N; i++)
    acc[i % 3] += x[i] * x[i];
  memset(acc + 1, 0, sizeof(double));
  return acc[0] * acc[2] + acc[1];
}
double phiptr(double *x) {
  double *p = x, *q = x + 3;
  double s = 0;
  for (int i = 0; i < 4; i++) {
    s += p[0] * q[0];
    double *t = p;
    p = q;
    q = t + 1;
  }
  return s;
}

#include "check-modes.h"
MODES(u_di)
MODES(u_up)
MODES(small_val)
MODES(big_val)
MODES(ptr_large)
MODES(ptr_large_arg)
MODES(ptrptr)
MODES(jagged)
MODES(globals)
MODES(ldbl)
MODES(recursion)
MODES(vla)
MODES(strided)
MODES(inplace)
MODES(early)
MODES(sw)
MODES(gather)
MODES(scatter_self)
MODES(byval)
MODES(bitfields)
MODES(gotos)
MODES(dowhile)
MODES(scatter_call)
MODES(twod)
MODES(flex)
MODES(const_rows)
MODES(minptr)
MODES(memsets)
MODES(phiptr)

int main(void) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.4 + 0.3 * i - 0.05 * i * i + 0.01 * i * i * i;
  check("u_di", u_di, grad_u_di, tan_u_di, x);
  check("u_up", u_up, grad_u_up, tan_u_up, x);
  check("small_val", small_val, grad_small_val, tan_small_val, x);
  check("big_val", big_val, grad_big_val, tan_big_val, x);
  check("ptr_large", ptr_large, grad_ptr_large, tan_ptr_large, x);
  check("ptr_large_arg", ptr_large_arg, grad_ptr_large_arg, tan_ptr_large_arg,
        x);
  check("ptrptr", ptrptr, grad_ptrptr, tan_ptrptr, x);
  check("jagged", jagged, grad_jagged, tan_jagged, x);
  check("globals", globals, grad_globals, tan_globals, x);
  check("ldbl", ldbl, grad_ldbl, tan_ldbl, x);
  check("recursion", recursion, grad_recursion, tan_recursion, x);
  check("vla", vla, grad_vla, tan_vla, x);
  check("strided", strided, grad_strided, tan_strided, x);
  check("inplace", inplace, grad_inplace, tan_inplace, x);
  check("early", early, grad_early, tan_early, x);
  check("sw", sw, grad_sw, tan_sw, x);
  check("gather", gather, grad_gather, tan_gather, x);
  check("scatter_self", scatter_self, grad_scatter_self, tan_scatter_self, x);
  check("byval", byval, grad_byval, tan_byval, x);
  check("bitfields", bitfields, grad_bitfields, tan_bitfields, x);
  check("gotos", gotos, grad_gotos, tan_gotos, x);
  check("dowhile", dowhile, grad_dowhile, tan_dowhile, x);
  check("scatter_call", scatter_call, grad_scatter_call, tan_scatter_call, x);
  check("twod", twod, grad_twod, tan_twod, x);
  check("flex", flex, grad_flex, tan_flex, x);
  check("const_rows", const_rows, grad_const_rows, tan_const_rows, x);
  check("minptr", minptr, grad_minptr, tan_minptr, x);
  check("memsets", memsets, grad_memsets, tan_memsets, x);
  check("phiptr", phiptr, grad_phiptr, tan_phiptr, x);
  return zy_report();
}
