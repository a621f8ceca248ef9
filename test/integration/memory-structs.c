// Gradients through structs passed with enzyme_dup: mixed double, float,
// int and pointer fields (the shadow struct holds the shadow pointer), nested
// structs and arrays of structs, linked nodes, and struct copies `*a = *b`
// (a memcpy, or typed loads and stores) with seeds in the destination's
// shadow.  Against closed forms and finite differences.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
// RUN: %clang -O0 -Xclang -load -Xclang %plugin -mllvm -zymase-verify -mllvm -zymase-no-preopt %s -lm -o %tn && %tn
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-verify %s -lm -o %tv && %tv
#include "fd-memory.h"

#include <string.h>

void __enzyme_autodiff(void *, ...);
extern int enzyme_dup;

struct P {
  double x;
  float y;
  int n;
  double *w;
};

double fp(const struct P *p) {
  return p->x * p->y * p->n + p->w[0] * p->x + p->w[1] * p->y;
}

struct In {
  double a, b;
};
struct Out {
  int tag;
  struct In in[2];
  float s;
};

double fo(const struct Out *o) {
  return o->in[0].a * o->in[1].b + o->s * o->in[o->tag].a;
}

/* a struct copy (no padding), then an update of the copy.  Every field is
 * read after the copy, so that the copied types can be deduced from the
 * accesses at -O0 (see issue-memcpy-partial-types.c and
 * issue-memcpy-padding-after-float.c for the other cases). */
struct Rec {
  double w;
  struct In in[2];
  float s, t;
};

double copy_scale(struct Rec *dst, const struct Rec *src) {
  *dst = *src;
  dst->in[0].a *= 2;
  return dst->in[0].a * dst->in[1].b + dst->s + dst->in[0].b * dst->in[1].a +
         dst->w * dst->t;
}

/* a copy of a struct holding a pointer: the shadow pointer is copied */
double copy_ptr(struct P *dst, const struct P *src) {
  *dst = *src;
  return dst->w[0] * dst->w[1] + dst->x + dst->y * dst->n;
}

struct D2 {
  double x, y;
};

/* small struct copies, which the optimizer turns into typed loads and
 * stores */
double copy_d2(struct D2 *dst, const struct D2 *src) {
  *dst = *src;
  return dst->x * dst->y;
}

double copy_via_local(struct D2 *out, const struct D2 *in) {
  struct D2 t = *in;
  t.x *= t.y;
  *out = t;
  return t.x;
}

struct Node {
  double v;
  struct Node *next;
};

double nodes(const struct Node *n) {
  return n->v * n->next->v + sin(n->next->next->v);
}

int main(void) {
  double w[2] = {0.6, -1.4}, dw[2] = {0};
  struct P p = {1.5, 0.25f, 3, w}, dp = {0, 0, 0, dw};
  __enzyme_autodiff((void *)fp, &p, &dp);
  zy_check_close("fp/dx", dp.x, p.y * p.n + w[0], ZY_TOL);
  zy_check_close("fp/dy", dp.y, p.x * p.n + w[1], 1e-6);
  zy_check_close("fp/dw[0]", dw[0], p.x, ZY_TOL);
  zy_check_close("fp/dw[1]", dw[1], (double)p.y, ZY_TOL);
  zy_check_close("fp/dw[1] (finite diff)", dw[1], ZY_DIFF_AT(w, 1, fp(&p)),
                 ZY_FD_TOL);
  zy_check_close("fp shadow int untouched", dp.n, 0, 0);
  zy_check_close("fp shadow pointer kept", dp.w == dw, 1, 0);

  for (int tag = 0; tag < 2; tag++) {
    struct Out o = {tag, {{0.5, -0.75}, {1.25, 2.0}}, 0.375f}, d;
    memset(&d, 0, sizeof d);
    __enzyme_autodiff((void *)fo, &o, &d);
    double want_a0 = o.in[1].b + (tag == 0 ? o.s : 0);
    double want_a1 = tag == 1 ? o.s : 0;
    zy_check_close("fo/d in[0].a", d.in[0].a, want_a0, ZY_TOL);
    zy_check_close("fo/d in[0].b", d.in[0].b, 0, ZY_TOL);
    zy_check_close("fo/d in[1].a", d.in[1].a, want_a1, ZY_TOL);
    zy_check_close("fo/d in[1].b", d.in[1].b, o.in[0].a, ZY_TOL);
    zy_check_close("fo/d s", d.s, o.in[tag].a, 1e-6);
    zy_check_close("fo/d in[0].a (finite diff)", d.in[0].a,
                   ZY_DIFF(t, o.in[0].a, (o.in[0].a = t, fo(&o))), ZY_FD_TOL);
    o.in[0].a = 0.5;
  }

  {
    struct Rec src = {-1.5, {{0.5, -0.75}, {1.25, 2.0}}, 0.375f, 0.625f};
    struct Rec dst, ds, dd;
    memset(&dst, 0, sizeof dst);
    memset(&ds, 0, sizeof ds);
    /* seeds on the final value of every field of dst */
    struct Rec seed = {0.6, {{0.1, 0.2}, {0.3, 0.4}}, 0.5f, 0.75f};
    dd = seed;
    __enzyme_autodiff((void *)copy_scale, &dst, &dd, &src, &ds);
    zy_check_close("copy_scale primal", dst.in[0].a, 1.0, ZY_TOL);
    zy_check_close("copy_scale/d src.w", ds.w, seed.w + src.t, 1e-7);
    zy_check_close("copy_scale/d src.in[0].a", ds.in[0].a,
                   2 * (seed.in[0].a + src.in[1].b), ZY_TOL);
    zy_check_close("copy_scale/d src.in[0].b", ds.in[0].b,
                   seed.in[0].b + src.in[1].a, ZY_TOL);
    zy_check_close("copy_scale/d src.in[1].a", ds.in[1].a,
                   seed.in[1].a + src.in[0].b, ZY_TOL);
    zy_check_close("copy_scale/d src.in[1].b", ds.in[1].b,
                   seed.in[1].b + 2 * src.in[0].a, ZY_TOL);
    zy_check_close("copy_scale/d src.s", ds.s, seed.s + 1, 1e-6);
    zy_check_close("copy_scale/d src.t", ds.t, seed.t + src.w, 1e-6);
    /* dst was overwritten entirely: its old values get nothing */
    zy_check_close("copy_scale/d dst.w", dd.w, 0, 0);
    zy_check_close("copy_scale/d dst.in[0].a", dd.in[0].a, 0, 0);
    zy_check_close("copy_scale/d dst.in[0].b", dd.in[0].b, 0, 0);
    zy_check_close("copy_scale/d dst.in[1].a", dd.in[1].a, 0, 0);
    zy_check_close("copy_scale/d dst.in[1].b", dd.in[1].b, 0, 0);
    zy_check_close("copy_scale/d dst.s", dd.s, 0, 0);
    zy_check_close("copy_scale/d dst.t", dd.t, 0, 0);
  }

  {
    double sw[2] = {0.6, -1.4}, dsw[2] = {0};
    struct P src = {1.5, 0.25f, 3, sw}, ds = {0, 0, 0, dsw};
    struct P dst = {0}, dd = {0};
    __enzyme_autodiff((void *)copy_ptr, &dst, &dd, &src, &ds);
    zy_check_close("copy_ptr primal pointer", dst.w == sw, 1, 0);
    zy_check_close("copy_ptr shadow pointer copied", dd.w == dsw, 1, 0);
    zy_check_close("copy_ptr/d src.x", ds.x, 1, ZY_TOL);
    zy_check_close("copy_ptr/d src.y", ds.y, 3, 1e-6);
    zy_check_close("copy_ptr/dw[0]", dsw[0], sw[1], ZY_TOL);
    zy_check_close("copy_ptr/dw[1]", dsw[1], sw[0], ZY_TOL);
  }

  {
    struct D2 src = {2, 5}, dst = {0}, ds = {0}, dd = {0.25, -0.5};
    __enzyme_autodiff((void *)copy_d2, &dst, &dd, &src, &ds);
    zy_check_close("copy_d2/d src.x", ds.x, 5 + 0.25, ZY_TOL);
    zy_check_close("copy_d2/d src.y", ds.y, 2 - 0.5, ZY_TOL);
    zy_check_close("copy_d2/d dst.x", dd.x, 0, 0);
    zy_check_close("copy_d2/d dst.y", dd.y, 0, 0);
  }
  {
    struct D2 in = {2, 5}, out = {0}, din = {0}, dout = {1, 1};
    __enzyme_autodiff((void *)copy_via_local, &out, &dout, &in, &din);
    zy_check_close("copy_via_local primal", out.x, 10, ZY_TOL);
    zy_check_close("copy_via_local/d in.x", din.x, 2 * 5, ZY_TOL);
    zy_check_close("copy_via_local/d in.y", din.y, 2 * 2 + 1, ZY_TOL);
  }

  {
    struct Node c = {0.8, NULL}, b = {-1.2, &c}, a = {0.4, &b};
    struct Node dc = {0, NULL}, db = {0, &dc}, da = {0, &db};
    __enzyme_autodiff((void *)nodes, &a, &da);
    zy_check_close("nodes/da", da.v, b.v, ZY_TOL);
    zy_check_close("nodes/db", db.v, a.v, ZY_TOL);
    zy_check_close("nodes/dc", dc.v, cos(c.v), ZY_TOL);
    zy_check_close("nodes/dc (finite diff)", dc.v,
                   ZY_DIFF(t, c.v, (c.v = t, nodes(&a))), ZY_FD_TOL);
  }
  return zy_report();
}
