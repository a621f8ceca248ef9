// Enzyme's __enzyme_allocation_like registration: calls of a registered
// allocator in differentiated code allocate like malloc (the shadow block
// comes from the same allocator, zeroed), and the registered deallocator
// releases shadows where the primal block is released.  Enzyme's
// customalloc.c (a bump allocator over a static buffer, the deallocator
// taking (offset pointer, block)), a pool allocator whose freed blocks are
// poisoned and reused (blocks freed in the differentiated function, one
// block reused while another shadow is live), and a block that escapes
// (returned by a callee, never freed), a returned block released by the
// caller, a block per loop iteration, and split mode (the shadow released
// by the reverse pass).  Gradients against closed forms
// and finite differences, and the allocator's and deallocator's calls
// counted.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O3 %s -lm -o %t3 && %t3 %}
#include "fd.h"

#include <string.h>

double __enzyme_autodiff(void *, ...);
typedef struct { void *tape; double y; } AugD;
AugD __enzyme_augmentfwd_d(void *, ...);
void __enzyme_reverse_void(void *, ...);
extern int enzyme_dup, enzyme_const;

#define NOINLINE __attribute__((noinline))

/* Enzyme's customalloc.c: a bump allocator, a deallocator that only
 * counts. */
char buffer[1024];
int offset = 0;
static int bump_frees;
void *myallocator(void *buffer, int size, int *off) {
  char *cur = (char *)buffer;
  int prev = *off;
  *off += size;
  return &cur[prev];
}

static void myfree(int *off, void *tofree) {
  (void)off, (void)tofree;
  bump_frees++;
}

NOINLINE double *set(double x) {
  double *m = (double *)myallocator(buffer, sizeof(double), &offset);
  *m = x;
  return m;
}

double test(double a) {
  double *t = set(a);
  return *t;
}

NOINLINE double *set2(double x) {
  double *m = (double *)myallocator(buffer, 2 * sizeof(double), &offset);
  m[0] = x * x;
  m[1] = sin(x);
  return m;
}

/* The block escapes set2 (returned): its shadow is never freed. */
double test2(double a) {
  double *t = set2(a);
  return t[0] * t[1] + a;
}

void *__enzyme_allocation_like[4] = {(void *)myallocator, (void *)1,
                                     (void *)"2,-1", (void *)myfree};

/* A pool of fixed-size blocks: freed blocks are poisoned and reused
 * first, fresh ones come dirty. */
#define BLOCK 256
typedef struct Pool {
  char mem[32][BLOCK];
  void *free_list[32];
  int used, nfree, gets, puts;
} Pool;

static Pool pool;

void *pool_get(Pool *p, unsigned long bytes) {
  p->gets++;
  if (bytes > BLOCK)
    abort();
  if (p->nfree)
    return p->free_list[--p->nfree];
  if (p->used == 32)
    abort();
  memset(p->mem[p->used], 0x55, BLOCK);
  return p->mem[p->used++];
}

void pool_put(Pool *p, void *block) {
  p->puts++;
  memset(block, 0x7f, BLOCK); /* a large double, if read after free */
  p->free_list[p->nfree++] = block;
}

void *__enzyme_allocation_like_pool[4] = {(void *)pool_get, (void *)1,
                                          (void *)"0,-1", (void *)pool_put};

/* A temporary block, written and read, freed in the function. */
double ring(const double *x, int n, Pool *p) {
  double *t = pool_get(p, n * sizeof(double));
  for (int i = 0; i < n; i++)
    t[i] = x[i] * x[i] + sin(x[i]);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += t[i] * t[(i + 1) % n];
  pool_put(p, t);
  return s;
}

static void ring_closed(const double *x, int n, double *g) {
  double t[8];
  for (int i = 0; i < n; i++)
    t[i] = x[i] * x[i] + sin(x[i]);
  for (int i = 0; i < n; i++)
    g[i] = (t[(i + 1) % n] + t[(i + n - 1) % n]) * (2 * x[i] + cos(x[i]));
}

/* Block a is freed before b is allocated: the primal b reuses a's block
 * while a's shadow is still needed by the reverse sweep. */
double reuse(const double *x, Pool *p) {
  double *a = pool_get(p, 2 * sizeof(double));
  a[0] = x[0] * x[1];
  a[1] = exp(x[0]);
  double r = a[0] * a[1];
  pool_put(p, a);
  double *b = pool_get(p, sizeof(double));
  b[0] = r * x[1];
  double q = b[0] * b[0] + cos(b[0]);
  pool_put(p, b);
  return q;
}

/* A block returned by a callee and released here: its shadow is released
 * through the same deallocator. */
NOINLINE double *make(Pool *p, double x) {
  double *m = pool_get(p, 2 * sizeof(double));
  m[0] = x * x;
  m[1] = sin(x);
  return m;
}

double made_freed(double x, Pool *p) {
  double *m = make(p, x);
  double r = m[0] * m[1];
  pool_put(p, m);
  return r;
}

/* A block per loop iteration, released in the iteration. */
double per_iteration(const double *x, int n, Pool *p) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double *t = pool_get(p, 3 * sizeof(double));
    t[0] = x[i];
    t[1] = t[0] * t[0];
    t[2] = exp(t[1]) * s;
    s += t[1] + t[2] * 0.25;
    pool_put(p, t);
  }
  return s;
}

int main(void) {
  /* customalloc.c */
  int off0 = offset;
  double d = __enzyme_autodiff((void *)test, 2.0);
  zy_check_close("customalloc: d test/da", d, 1.0, ZY_TOL);
  zy_check_close("customalloc: bytes allocated (primal + shadow)",
                 offset - off0, 2 * sizeof(double), 0);
  zy_check_close("customalloc: myfree calls (the block escapes)", bump_frees,
                 0, 0);
  for (double a = -1.5; a < 2; a += 1.25) {
    if (offset > 700)
      offset = 0;
    off0 = offset;
    d = __enzyme_autodiff((void *)test2, a);
    zy_check_close("escaping block: bytes allocated (primal + shadow)",
                   offset - off0, 2 * (2 * sizeof(double)), 0);
    ZY_CHECK2("escaping block: d test2/da", d,
              2 * a * sin(a) + a * a * cos(a) + 1, ZY_DIFF(s, a, test2(s)));
  }
  zy_check_close("escaping block: myfree calls", bump_frees, 0, 0);

  /* the pool: blocks freed in the function, with their shadows */
  double x[5] = {0.3, -1.1, 0.7, 1.9, -0.4}, dx[5], g[5];
  for (int n = 2; n <= 5; n++) {
    memset(dx, 0, sizeof dx);
    pool.gets = pool.puts = 0;
    int nfree0 = pool.nfree, used0 = pool.used;
    __enzyme_autodiff((void *)ring, enzyme_dup, x, dx, enzyme_const, n,
                      enzyme_const, &pool);
    zy_check_close("ring: pool_get calls (primal + shadow)", pool.gets, 2, 0);
    zy_check_close("ring: pool_put calls (primal + shadow)", pool.puts, 2, 0);
    zy_check_close("ring: no block leaked",
                   pool.nfree - nfree0 + (used0 - pool.used), 0, 0);
    ring_closed(x, n, g);
    for (int i = 0; i < n; i++) {
      ZY_CHECK2("ring: d/dx", dx[i], g[i],
                ZY_DIFF(s, x[i], ({
                          double y[5];
                          memcpy(y, x, sizeof y);
                          y[i] = s;
                          ring(y, n, &pool);
                        })));
    }
  }
  for (int k = 0; k < 3; k++) {
    double y[2] = {0.4 + 0.3 * k, 0.9 - 0.5 * k}, dy[2] = {0, 0};
    pool.gets = pool.puts = 0;
    __enzyme_autodiff((void *)reuse, enzyme_dup, y, dy, enzyme_const, &pool);
    zy_check_close("reuse: pool_get calls (primal + shadow)", pool.gets, 4, 0);
    zy_check_close("reuse: pool_put calls (primal + shadow)", pool.puts, 4, 0);
    double r = y[0] * y[1] * exp(y[0]), b = r * y[1];
    double dq_db = 2 * b - sin(b);
    double dr0 = y[1] * exp(y[0]) * (1 + y[0]), dr1 = y[0] * exp(y[0]);
    double g0 = dq_db * y[1] * dr0, g1 = dq_db * (r + y[1] * dr1);
    double y0 = y[0], y1 = y[1];
    ZY_CHECK2("reuse: d/dy0", dy[0], g0, ZY_DIFF(s, y0, ({
                                      double z[2] = {s, y1};
                                      reuse(z, &pool);
                                    })));
    ZY_CHECK2("reuse: d/dy1", dy[1], g1, ZY_DIFF(s, y1, ({
                                      double z[2] = {y0, s};
                                      reuse(z, &pool);
                                    })));
  }
  for (double a = -0.8; a < 2; a += 0.9) {
    pool.gets = pool.puts = 0;
    d = __enzyme_autodiff((void *)made_freed, a, enzyme_const, &pool);
    zy_check_close("returned block: pool_get calls", pool.gets, 2, 0);
    zy_check_close("returned block: pool_put calls", pool.puts, 2, 0);
    ZY_CHECK2("returned block: d/dx", d, 2 * a * sin(a) + a * a * cos(a),
              ZY_DIFF(s, a, made_freed(s, &pool)));
  }
  for (int n = 1; n <= 5; n += 2) {
    memset(dx, 0, sizeof dx);
    pool.gets = pool.puts = 0;
    int nfree0 = pool.nfree, used0 = pool.used;
    __enzyme_autodiff((void *)per_iteration, enzyme_dup, x, dx, enzyme_const,
                      n, enzyme_const, &pool);
    zy_check_close("per iteration: pool_get calls", pool.gets, 2 * n, 0);
    zy_check_close("per iteration: pool_put calls", pool.puts, 2 * n, 0);
    zy_check_close("per iteration: no block leaked",
                   pool.nfree - nfree0 + (used0 - pool.used), 0, 0);
    for (int i = 0; i < n; i++)
      zy_check_close("per iteration: d/dx (finite diff)", dx[i],
                     ZY_DIFF(s, x[i], ({
                               double y[5];
                               memcpy(y, x, sizeof y);
                               y[i] = s;
                               per_iteration(y, n, &pool);
                             })),
                     ZY_FD_TOL);
  }
  /* split mode: the shadow lives from the augmented forward pass to the
   * reverse pass */
  for (int n = 2; n <= 4; n++) {
    memset(dx, 0, sizeof dx);
    pool.gets = pool.puts = 0;
    AugD a = __enzyme_augmentfwd_d((void *)ring, enzyme_dup, x, dx,
                                   enzyme_const, n, enzyme_const, &pool);
    zy_check_close("split ring: pool_get calls by the forward pass",
                   pool.gets, 2, 0);
    zy_check_close("split ring: pool_put calls by the forward pass",
                   pool.puts, 1, 0);
    zy_check_close("split ring: primal", a.y, ring(x, n, &pool), ZY_TOL);
    pool.gets = pool.puts = 0;
    __enzyme_reverse_void((void *)ring, enzyme_dup, x, dx, enzyme_const, n,
                          enzyme_const, &pool, 1.0, a.tape);
    zy_check_close("split ring: pool_put calls by the reverse pass",
                   pool.puts, 1, 0);
    ring_closed(x, n, g);
    for (int i = 0; i < n; i++)
      zy_check_close("split ring: d/dx (closed form)", dx[i], g[i], ZY_TOL);
  }
  return zy_report();
}
