/* launch.c - the execution model: a grid's blocks spread over groups of OS
 * threads (one thread per GPU thread of a block), block barriers, warps.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#define _GNU_SOURCE
#include "zymase_gpu.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The lanes of one warp (32 for CUDA, 64 for HIP).  An operation
 * (shuffle, vote, __syncwarp) waits until every live lane its mask names
 * has arrived (HIP's operations have no mask: every lane that has not
 * returned); the last copies the lanes' values to `out`, which each lane
 * reads before it can arrive at the next operation. */
typedef struct Warp {
  uint64_t present, exited; /* lanes that exist, that returned */
  uint64_t arrived, mask;   /* of the operation under way      */
  int implicit;             /* its mask: the live lanes (HIP)  */
  unsigned long gen;
  uint32_t in[ZG_WARP_MAX], out[ZG_WARP_MAX];
  uint64_t outmask;
  pthread_cond_t cv;
} Warp;

typedef struct Launch Launch;

/* A group of OS threads, one per GPU thread of a block, that runs blocks
 * one after another.  The block's synchronization state is under `mu`. */
typedef struct Group {
  Launch *L;
  unsigned nthreads;
  /* The threads meet before and after each block, at two barriers: with
   * one, ThreadSanitizer would take a thread leaving it late as ordered
   * after the others' next arrival, and miss races inside the block. */
  pthread_barrier_t start, end;
  unsigned long long block;
  ZgDim3 ctaid;
  char *shared;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  unsigned arrived, exited, blocked; /* block barrier; returned; waiting */
  unsigned long gen;
  void *site; /* where the threads at the barrier wait */
  int red_acc, red_out;
  Warp *warps;
  unsigned nwarps;
} Group;

struct Launch {
  ZgKernel *k;
  unsigned ws; /* lanes per warp */
  ZgDim3 grid, block;
  void **args;
  unsigned long long nblocks;
  unsigned dyn; /* bytes of dynamic shared memory per block */
  atomic_ullong next;
  ZgDispatch amd; /* what amdgcn code reads of the launch */
};

typedef struct Thread {
  Group *g;
  unsigned x, y, z, linear, lane, warp;
  jmp_buf exit_to; /* PTX `exit`: back to where the thread started */
} Thread;

static __thread Thread *self;

_Noreturn void zg_fatal(const char *fmt, ...) {
  /* The first report ends the program; later ones wait for its end. */
  static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&once);
  va_list ap;
  fflush(stdout);
  fputs("zymase-gpu: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  fflush(stderr);
  _exit(70);
}

const char *zg_current_kernel(void) {
  return self ? self->g->L->k->display : NULL;
}

/* "kernel 'k', block (x,y,z), thread (x,y,z)" */
static const char *where(Thread *t) {
  static __thread char buf[600];
  snprintf(buf, sizeof buf, "kernel '%s', block (%u,%u,%u), thread (%u,%u,%u)",
           t->g->L->k->display, t->g->ctaid.x, t->g->ctaid.y, t->g->ctaid.z,
           t->x, t->y, t->z);
  return buf;
}

static Thread *me(void) {
  if (!self)
    zg_fatal("a GPU intrinsic was called outside a kernel");
  return self;
}

unsigned __zy_gpu_tid_x(void) { return me()->x; }
unsigned __zy_gpu_tid_y(void) { return me()->y; }
unsigned __zy_gpu_tid_z(void) { return me()->z; }
unsigned __zy_gpu_ntid_x(void) { return me()->g->L->block.x; }
unsigned __zy_gpu_ntid_y(void) { return me()->g->L->block.y; }
unsigned __zy_gpu_ntid_z(void) { return me()->g->L->block.z; }
unsigned __zy_gpu_ctaid_x(void) { return me()->g->ctaid.x; }
unsigned __zy_gpu_ctaid_y(void) { return me()->g->ctaid.y; }
unsigned __zy_gpu_ctaid_z(void) { return me()->g->ctaid.z; }
unsigned __zy_gpu_nctaid_x(void) { return me()->g->L->grid.x; }
unsigned __zy_gpu_nctaid_y(void) { return me()->g->L->grid.y; }
unsigned __zy_gpu_nctaid_z(void) { return me()->g->L->grid.z; }
unsigned __zy_gpu_warpsize(void) { return me()->g->L->ws; }
unsigned __zy_gpu_laneid(void) { return me()->lane; }
unsigned __zy_gpu_lanemask_eq(void) { return 1u << me()->lane; }
unsigned __zy_gpu_lanemask_lt(void) { return (1u << me()->lane) - 1; }
unsigned __zy_gpu_lanemask_le(void) {
  return __zy_gpu_lanemask_lt() | __zy_gpu_lanemask_eq();
}
unsigned __zy_gpu_lanemask_gt(void) { return ~__zy_gpu_lanemask_le(); }
unsigned __zy_gpu_lanemask_ge(void) { return ~__zy_gpu_lanemask_lt(); }

uint64_t __zy_gpu_clock64(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
unsigned __zy_gpu_clock(void) { return (unsigned)__zy_gpu_clock64(); }

void __zy_gpu_fence(void) { atomic_thread_fence(memory_order_seq_cst); }

void *__zy_gpu_shared(uint64_t offset) {
  Group *g = me()->g;
  if (offset == UINT64_MAX) /* `extern __shared__`: after the kernel's own */
    offset = (g->L->k->static_shared + 15) / 16 * 16;
  return g->shared + offset;
}
unsigned __zy_gpu_dynamic_smem_size(void) { return me()->g->L->dyn; }

void *__zy_gpu_amd_dispatch_ptr(void) { return &me()->g->L->amd.packet; }
void *__zy_gpu_amd_implicitarg_ptr(void) { return &me()->g->L->amd.implicit; }

_Static_assert(offsetof(ZgDispatch, implicit.dynamic_lds_size) -
                       offsetof(ZgDispatch, implicit) ==
                   120,
               "hidden_dynamic_lds_size is byte 120 of the hidden arguments");

/* The HSA dispatch packet and the code object v5 hidden arguments
 * (`shared`: the block's shared bytes, `dyn` of them dynamic). */
static void amd_dispatch(ZgDispatch *d, ZgDim3 grid, ZgDim3 block,
                         uint64_t shared, unsigned dyn) {
  unsigned g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z};
  memset(d, 0, sizeof *d);
  d->packet.setup = 3;
  d->packet.group_segment_size = (uint32_t)shared;
  d->implicit.dynamic_lds_size = dyn;
  for (int i = 0; i < 3; i++) {
    d->packet.workgroup_size[i] = (uint16_t)b[i];
    d->packet.grid_size[i] = g[i] * b[i];
    d->implicit.block_count[i] = g[i];
    d->implicit.group_size[i] = (uint16_t)b[i];
  }
}

/* Called with g->mu held before a thread waits: when every thread of the
 * block that has not returned waits, none can release the others. */
static void check_deadlock(Group *g, Thread *t, const char *what) {
  if (g->blocked < g->nthreads - g->exited)
    return;
  zg_fatal("deadlock in %s: every thread of the block waits (%u at "
           "__syncthreads, %u returned), the last at %s; the threads do not "
           "all reach the same barriers",
           where(t), g->arrived, g->exited, what);
}

/* __syncthreads and its reductions: every thread of the block at the same
 * barrier (the same call site). */
static int block_barrier(void *site, int pred, int red) {
  Thread *t = me();
  Group *g = t->g;
  pthread_mutex_lock(&g->mu);
  if (g->exited)
    zg_fatal("barrier divergence in %s: it reached __syncthreads after %u "
             "of the block's %u threads returned",
             where(t), g->exited, g->nthreads);
  if (g->arrived == 0)
    g->site = site;
  else if (g->site != site)
    zg_fatal("barrier divergence in %s: threads of the block wait at "
             "different __syncthreads",
             where(t));
  if (red == 1)
    g->red_acc += pred != 0;
  else if (red == 2)
    g->red_acc &= pred != 0;
  else if (red == 3)
    g->red_acc |= pred != 0;
  if (++g->arrived == g->nthreads) {
    g->red_out = g->red_acc;
    g->red_acc = 0;
    g->arrived = 0;
    g->blocked -= g->nthreads - 1;
    g->gen++;
    pthread_cond_broadcast(&g->cv);
  } else {
    unsigned long gen = g->gen;
    g->blocked++;
    check_deadlock(g, t, "__syncthreads");
    while (g->gen == gen)
      pthread_cond_wait(&g->cv, &g->mu);
  }
  int out = g->red_out;
  pthread_mutex_unlock(&g->mu);
  return out;
}

/* The and-reduction starts from 1: the first arrival sets it. */
static int block_and(void *site, int pred) {
  Group *g = me()->g;
  pthread_mutex_lock(&g->mu);
  if (g->arrived == 0)
    g->red_acc = 1;
  pthread_mutex_unlock(&g->mu);
  return block_barrier(site, pred, 2);
}

#define SITE __builtin_return_address(0)
void __zy_gpu_barrier(void) { block_barrier(SITE, 0, 0); }
void __zy_gpu_barrier_n(unsigned id) { block_barrier(SITE, 0, 0); }
int __zy_gpu_barrier_popc(int p) { return block_barrier(SITE, p, 1); }
int __zy_gpu_barrier_and(int p) { return block_and(SITE, p); }
int __zy_gpu_barrier_or(int p) { return block_barrier(SITE, p, 3); }
unsigned __zy_gpu_barrier_red_popc(unsigned id, bool p) {
  return block_barrier(SITE, p, 1);
}
bool __zy_gpu_barrier_red_and(unsigned id, bool p) {
  return block_and(SITE, p);
}
bool __zy_gpu_barrier_red_or(unsigned id, bool p) {
  return block_barrier(SITE, p, 3);
}

/* Wakes the lanes of a warp operation that is complete: every lane it
 * needs arrived (`waiting` of them wait).  Called with g->mu held. */
static void warp_release(Group *g, Warp *w, unsigned waiting) {
  memcpy(w->out, w->in, sizeof w->out);
  w->outmask = w->arrived;
  g->blocked -= waiting;
  w->arrived = 0;
  w->gen++;
  pthread_cond_broadcast(&w->cv);
}

/* One warp operation: the lanes of `mask` (the live lanes when
 * `implicit`) exchange `v`; `out` receives every lane's value, `*who` the
 * lanes that took part. */
static void warp_op(const char *what, uint64_t mask, int implicit, uint32_t v,
                    uint32_t out[ZG_WARP_MAX], uint64_t *who) {
  Thread *t = me();
  Group *g = t->g;
  Warp *w = &g->warps[t->warp];
  uint64_t bit = 1ull << t->lane;
  pthread_mutex_lock(&g->mu);
  if (implicit)
    mask = w->present & ~w->exited;
  if (!(mask & bit))
    zg_fatal("%s: %s with mask 0x%08llx, which does not name the calling "
             "lane %u",
             where(t), what, (unsigned long long)mask, t->lane);
  /* Lanes of the mask that do not exist or returned take no part, as on
   * a GPU (where sync operations ignore exited threads): reading one gives
   * the reader's own value. */
  uint64_t need = mask & w->present & ~w->exited;
  if (w->arrived == 0) {
    w->mask = mask;
    w->implicit = implicit;
  } else if (w->implicit != implicit || (!implicit && w->mask != mask))
    zg_fatal("%s: lanes of warp %u meet in %s with different masks (0x%08llx "
             "and 0x%08llx)",
             where(t), t->warp, what, (unsigned long long)w->mask,
             (unsigned long long)mask);
  w->in[t->lane] = v;
  w->arrived |= bit;
  if (w->arrived == need)
    warp_release(g, w, (unsigned)__builtin_popcountll(need) - 1);
  else {
    unsigned long gen = w->gen;
    g->blocked++;
    check_deadlock(g, t, what);
    while (w->gen == gen)
      pthread_cond_wait(&w->cv, &g->mu);
  }
  memcpy(out, w->out, sizeof w->out);
  *who = w->outmask;
  pthread_mutex_unlock(&g->mu);
}

int zg_lane(void) { return (int)me()->lane; }

uint64_t zg_warp_exchange(const char *what, uint32_t v,
                          uint32_t out[ZG_WARP_MAX]) {
  uint64_t who;
  warp_op(what, 0, 1, v, out, &who);
  return who;
}

enum { SHFL_IDX, SHFL_UP, SHFL_DOWN, SHFL_BFLY };

/* PTX shfl.sync: `c` packs the segment mask (bits 8-12) and the clamp. */
static uint32_t shfl(int mode, unsigned mask, uint32_t v, int b, int c) {
  static const char *const names[] = {"__shfl_sync", "__shfl_up_sync",
                                      "__shfl_down_sync", "__shfl_xor_sync"};
  uint32_t vals[ZG_WARP_MAX];
  uint64_t who;
  warp_op(names[mode], mask, 0, v, vals, &who);
  int lane = (int)self->lane;
  int seg = (c >> 8) & 0x1f;
  int max_lane = (lane & seg) | (c & 0x1f & ~seg);
  int min_lane = lane & seg;
  int j = lane, ok = 0;
  switch (mode) {
  case SHFL_UP:
    j = lane - b;
    ok = j >= max_lane;
    break;
  case SHFL_DOWN:
    j = lane + b;
    ok = j <= max_lane;
    break;
  case SHFL_BFLY:
    j = lane ^ b;
    ok = j <= max_lane;
    break;
  default:
    j = min_lane | (b & 0x1f & ~seg);
    ok = j <= max_lane;
    break;
  }
  if (!ok || j < 0 || j >= (int)ZG_WARP || !(who >> j & 1))
    return v;
  return vals[j];
}

static uint32_t f2u(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static float u2f(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

#define ZG_SHFL(name, mode)                                                    \
  int __zy_gpu_shfl_##name##_i32(unsigned m, int v, int b, int c) {            \
    return (int)shfl(mode, m, (uint32_t)v, b, c);                              \
  }                                                                            \
  float __zy_gpu_shfl_##name##_f32(unsigned m, float v, int b, int c) {        \
    return u2f(shfl(mode, m, f2u(v), b, c));                                   \
  }
ZG_SHFL(idx, SHFL_IDX)
ZG_SHFL(up, SHFL_UP)
ZG_SHFL(down, SHFL_DOWN)
ZG_SHFL(bfly, SHFL_BFLY)

unsigned __zy_gpu_vote_ballot(unsigned mask, bool p) {
  uint32_t vals[ZG_WARP_MAX];
  uint64_t who;
  unsigned out = 0;
  warp_op("__ballot_sync", mask, 0, p, vals, &who);
  for (unsigned l = 0; l < ZG_WARP; l++)
    if ((who >> l & 1) && vals[l])
      out |= 1u << l;
  return out;
}
bool __zy_gpu_vote_all(unsigned mask, bool p) {
  uint32_t vals[ZG_WARP_MAX];
  uint64_t who;
  warp_op("__all_sync", mask, 0, p, vals, &who);
  for (unsigned l = 0; l < ZG_WARP; l++)
    if ((who >> l & 1) && !vals[l])
      return 0;
  return 1;
}
bool __zy_gpu_vote_any(unsigned mask, bool p) {
  uint32_t vals[ZG_WARP_MAX];
  uint64_t who;
  warp_op("__any_sync", mask, 0, p, vals, &who);
  for (unsigned l = 0; l < ZG_WARP; l++)
    if ((who >> l & 1) && vals[l])
      return 1;
  return 0;
}
bool __zy_gpu_vote_uni(unsigned mask, bool p) {
  uint32_t vals[ZG_WARP_MAX];
  uint64_t who;
  warp_op("__uni_sync", mask, 0, p, vals, &who);
  for (unsigned l = 0; l < ZG_WARP; l++)
    if ((who >> l & 1) && !vals[l] != !p)
      return 0;
  return 1;
}
void __zy_gpu_syncwarp(unsigned mask) {
  uint32_t vals[ZG_WARP_MAX];
  uint64_t who;
  warp_op("__syncwarp", mask, 0, 0, vals, &who);
}
unsigned __zy_gpu_activemask(void) {
  Thread *t = me();
  Warp *w = &t->g->warps[t->warp];
  pthread_mutex_lock(&t->g->mu);
  unsigned m = (unsigned)(w->present & ~w->exited);
  pthread_mutex_unlock(&t->g->mu);
  return m;
}

/* A thread returned from the kernel: none may wait for it any more. */
static void thread_done(Thread *t) {
  Group *g = t->g;
  Warp *w = &g->warps[t->warp];
  uint64_t bit = 1ull << t->lane;
  pthread_mutex_lock(&g->mu);
  g->exited++;
  w->exited |= bit;
  /* A HIP warp operation no longer waits for this lane. */
  if (w->arrived && w->implicit && w->arrived == (w->present & ~w->exited))
    warp_release(g, w, (unsigned)__builtin_popcountll(w->arrived));
  if (g->arrived)
    zg_fatal("barrier divergence in %s: it returned while %u threads of the "
             "block wait at __syncthreads",
             where(t), g->arrived);
  /* Nor does a CUDA one whose mask names it. */
  if (w->arrived && !w->implicit && (w->mask & bit) &&
      w->arrived == (w->mask & w->present & ~w->exited))
    warp_release(g, w, (unsigned)__builtin_popcountll(w->arrived));
  if (g->blocked && g->blocked == g->nthreads - g->exited)
    check_deadlock(g, t, "its return");
  pthread_mutex_unlock(&g->mu);
}

/* PTX `exit` (CUB's ThreadExit): the GPU thread ends here, as if its
 * kernel returned. */
void __zy_gpu_exit(void) {
  if (!self)
    zg_fatal("PTX exit outside a kernel");
  longjmp(self->exit_to, 1);
}

/* PTX `nanosleep` (spin loops waiting for other blocks): let them run. */
void __zy_gpu_nanosleep(unsigned ns) { sched_yield(); }

/* The group's first thread takes the next block and resets its state. */
static void next_block(Group *g) {
  Launch *L = g->L;
  g->block = atomic_fetch_add(&L->next, 1);
  if (g->block >= L->nblocks)
    return;
  unsigned long long b = g->block;
  g->ctaid.x = b % L->grid.x;
  g->ctaid.y = b / L->grid.x % L->grid.y;
  g->ctaid.z = b / L->grid.x / L->grid.y;
  g->arrived = g->exited = g->blocked = 0;
  g->red_acc = 0;
  for (unsigned i = 0; i < g->nwarps; i++) {
    g->warps[i].exited = g->warps[i].arrived = 0;
  }
}

/* ZYMASE_GPU_FAST=1: a kernel that synchronizes nothing runs each
 * block's threads one after another on one OS thread per group (a valid
 * schedule; races between threads of one block no longer show). */
static int fast_mode(void) {
  const char *env = getenv("ZYMASE_GPU_FAST");
  return env && *env == '1';
}

static void *serial_main(void *arg) {
  Thread *t = arg; /* the group's first thread; the others follow it */
  Group *g = t->g;
  Launch *L = g->L;
  for (;;) {
    next_block(g);
    if (g->block >= L->nblocks)
      break;
    for (volatile unsigned j = 0; j < g->nthreads; j++) {
      self = &t[j];
      if (!setjmp(self->exit_to))
        L->k->entry(L->args);
    }
  }
  self = NULL;
  return NULL;
}

static void *thread_main(void *arg) {
  Thread *t = arg;
  Group *g = t->g;
  self = t;
  for (;;) {
    if (t->linear == 0)
      next_block(g);
    pthread_barrier_wait(&g->start);
    if (g->block >= g->L->nblocks)
      break;
    if (!setjmp(t->exit_to))
      g->L->k->entry(g->L->args);
    thread_done(t);
    pthread_barrier_wait(&g->end);
  }
  self = NULL;
  return NULL;
}

static void group_init(Group *g, Launch *L, unsigned n, size_t shared) {
  memset(g, 0, sizeof *g);
  g->L = L;
  g->nthreads = n;
  g->shared = malloc(shared ? shared : 1);
  pthread_barrier_init(&g->start, NULL, n);
  pthread_barrier_init(&g->end, NULL, n);
  pthread_mutex_init(&g->mu, NULL);
  pthread_cond_init(&g->cv, NULL);
  unsigned ws = L->ws;
  g->nwarps = (n + ws - 1) / ws;
  g->warps = calloc(g->nwarps, sizeof *g->warps);
  if (!g->shared || !g->warps)
    zg_fatal("out of memory for a block of kernel '%s'", L->k->display);
  for (unsigned i = 0; i < g->nwarps; i++) {
    unsigned lanes = n - i * ws < ws ? n - i * ws : ws;
    g->warps[i].present = lanes == 64 ? ~0ull : (1ull << lanes) - 1;
    pthread_cond_init(&g->warps[i].cv, NULL);
  }
}

static void group_free(Group *g) {
  for (unsigned i = 0; i < g->nwarps; i++)
    pthread_cond_destroy(&g->warps[i].cv);
  free(g->warps);
  free(g->shared);
  pthread_barrier_destroy(&g->start);
  pthread_barrier_destroy(&g->end);
  pthread_mutex_destroy(&g->mu);
  pthread_cond_destroy(&g->cv);
}

/* The OS threads that run the GPU threads outlive a launch: starting one
 * costs more than most test launches run (about 0.4 ms, 2 ms under
 * AddressSanitizer: a program of 90 launches of 256 threads spent 9 s of
 * its 12 starting threads, 53 s under ASan).  Worker w runs job w of a
 * launch, woken by its own semaphore; each posts `done` when its job
 * returns, so that the launch is ordered after every job for
 * ThreadSanitizer too (this file is not instrumented: only the
 * semaphores it intercepts order the kernel's accesses with the host's). */
typedef struct Worker {
  size_t index;
  sem_t go;
} Worker;

static struct {
  pthread_mutex_t mu; /* held by the launch that uses the pool */
  Worker **w;
  size_t n;
  void *(*fn)(void *);
  Thread *jobs;
  size_t step;
  sem_t done;
} pool = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void wait_sem(sem_t *s) {
  while (sem_wait(s) && errno == EINTR)
    ;
}

static void *worker_main(void *arg) {
  Worker *w = arg;
  for (;;) {
    wait_sem(&w->go);
    pool.fn(&pool.jobs[w->index * pool.step]);
    sem_post(&pool.done);
  }
  return NULL;
}

static pthread_t start_thread(ZgKernel *k, size_t count, void *(*fn)(void *),
                              void *arg) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 1u << 20);
  pthread_t id;
  int err = pthread_create(&id, &attr, fn, arg);
  pthread_attr_destroy(&attr);
  if (err)
    zg_fatal("cannot start the %zu threads of kernel '%s': %s", count,
             k->display, strerror(err));
  return id;
}

/* Grows the pool to `n` workers (the pool's mutex held). */
static void grow_pool(ZgKernel *k, size_t n) {
  if (!pool.w)
    sem_init(&pool.done, 0, 0);
  if (n <= pool.n)
    return;
  Worker **w = realloc(pool.w, n * sizeof *w);
  if (!w)
    zg_fatal("out of memory launching kernel '%s'", k->display);
  pool.w = w;
  for (; pool.n < n; pool.n++) {
    Worker *x = calloc(1, sizeof *x);
    if (!x)
      zg_fatal("out of memory launching kernel '%s'", k->display);
    x->index = pool.n;
    sem_init(&x->go, 0, 0);
    pthread_t id = start_thread(k, n, worker_main, x);
    pthread_detach(id);
    pool.w[pool.n] = x;
  }
}

/* Runs fn(&jobs[i * step]) for i < njobs, each on its own OS thread, and
 * returns when all have.  A launch while the pool is busy (from another
 * host thread, or nested) starts threads of its own, as every launch once
 * did. */
static void run_threads(ZgKernel *k, void *(*fn)(void *), Thread *jobs,
                        size_t njobs, size_t step) {
  if (pthread_mutex_trylock(&pool.mu) == 0) {
    grow_pool(k, njobs);
    pool.fn = fn;
    pool.jobs = jobs;
    pool.step = step;
    for (size_t i = 0; i < njobs; i++)
      sem_post(&pool.w[i]->go);
    for (size_t i = 0; i < njobs; i++)
      wait_sem(&pool.done);
    pthread_mutex_unlock(&pool.mu);
    return;
  }
  pthread_t *ids = calloc(njobs, sizeof *ids);
  if (!ids)
    zg_fatal("out of memory launching kernel '%s'", k->display);
  for (size_t i = 0; i < njobs; i++)
    ids[i] = start_thread(k, njobs, fn, &jobs[i * step]);
  for (size_t i = 0; i < njobs; i++)
    pthread_join(ids[i], NULL);
  free(ids);
}

/* How many blocks run at once: ZYMASE_GPU_BLOCKS, else the cores. */
static unsigned concurrent_blocks(void) {
  const char *env = getenv("ZYMASE_GPU_BLOCKS");
  long n = env ? atol(env) : sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : (unsigned)n;
}

/* A launch that breaks the GPU's rules: printed, and the error returned. */
static int bad_launch(ZgKernel *k, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad_launch(ZgKernel *k, int err, const char *fmt, ...) {
  va_list ap;
  fflush(stdout);
  fprintf(stderr, "zymase-gpu: launch of kernel '%s': ", k->display);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return err;
}

int zg_launch(ZgKernel *k, ZgDim3 grid, ZgDim3 block, size_t dyn, void **args) {
  enum { INVALID_VALUE = 1, INVALID_CONFIGURATION = 9 };
  unsigned long long nthreads = (unsigned long long)block.x * block.y * block.z;
  if (!nthreads || !grid.x || !grid.y || !grid.z)
    return bad_launch(k, INVALID_CONFIGURATION, "empty grid or block");
  if (nthreads > ZG_MAX_BLOCK || block.z > 64)
    return bad_launch(k, INVALID_CONFIGURATION,
                      "a block of %u x %u x %u threads (the limit is %u, and "
                      "64 in z)",
                      block.x, block.y, block.z, ZG_MAX_BLOCK);
  if (grid.y > 65535 || grid.z > 65535)
    return bad_launch(k, INVALID_CONFIGURATION,
                      "a grid of %u x %u x %u blocks (the limit is 65535 in "
                      "y and z)",
                      grid.x, grid.y, grid.z);
  uint64_t limit = k->max_dynamic_shared
                       ? k->static_shared + k->max_dynamic_shared
                       : ZG_SHARED_DEFAULT;
  if (limit > ZG_SHARED_OPTIN)
    limit = ZG_SHARED_OPTIN;
  uint64_t shared = (k->static_shared + 15) / 16 * 16 + dyn;
  if (k->static_shared + dyn > limit)
    return bad_launch(k, INVALID_VALUE,
                      "%llu bytes of shared memory per block (%llu static, "
                      "%zu dynamic; the limit is %llu)",
                      (unsigned long long)(k->static_shared + dyn),
                      (unsigned long long)k->static_shared, dyn,
                      (unsigned long long)limit);
  Launch L;
  memset(&L, 0, sizeof L);
  L.k = k;
  L.ws = k->wave64 ? 64 : ZG_WARP;
  L.grid = grid;
  L.block = block;
  L.args = args;
  L.nblocks = (unsigned long long)grid.x * grid.y * grid.z;
  L.dyn = (unsigned)dyn;
  amd_dispatch(&L.amd, grid, block, shared, L.dyn);
  unsigned ng = concurrent_blocks();
  if (ng > L.nblocks)
    ng = (unsigned)L.nblocks;
  Group *groups = calloc(ng, sizeof *groups);
  Thread *threads = calloc((size_t)ng * nthreads, sizeof *threads);
  if (!groups || !threads)
    zg_fatal("out of memory launching kernel '%s'", k->display);
  for (unsigned i = 0; i < ng; i++) {
    group_init(&groups[i], &L, (unsigned)nthreads, shared);
    for (unsigned j = 0; j < nthreads; j++) {
      Thread *t = &threads[(size_t)i * nthreads + j];
      t->g = &groups[i];
      t->linear = j;
      t->x = j % block.x;
      t->y = j / block.x % block.y;
      t->z = j / block.x / block.y;
      t->lane = j % L.ws;
      t->warp = j / L.ws;
    }
  }
  int serial = !k->synchronizes && fast_mode();
  size_t step = serial ? nthreads : 1;
  run_threads(k, serial ? serial_main : thread_main, threads,
              (size_t)ng * nthreads / step, step);
  for (unsigned i = 0; i < ng; i++)
    group_free(&groups[i]);
  free(groups);
  free(threads);
  return 0;
}
