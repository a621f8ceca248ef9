/* device.c - what device code calls besides the intrinsics: printf
 * (CUDA's packed argument buffer), assert, the device heap, 128-bit
 * ordered loads and stores, libdevice's __nv_* math and integer functions
 * on the host's libm, and the counts of atomics and heap allocations.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#define _GNU_SOURCE
#include "zymase_gpu.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- Atomics executed (-zymase-gpu-count-atomics) ---------------------- */

uint64_t __zy_gpu_atomics;

unsigned long long zymase_gpu_atomics(void) {
  return __atomic_load_n(&__zy_gpu_atomics, __ATOMIC_RELAXED);
}

/* --- The device heap ----------------------------------------------------- */

/* Each block carries its size in a 16-byte header, so that free gives the
 * bytes back to the limit.  Every allocation that succeeds is counted
 * (zymase_gpu_heap_allocs, zymase_gpu_heap_bytes): two relaxed adds next
 * to the host's malloc. */
static _Atomic uint64_t heap_used, heap_limit = 8u << 20;
static _Atomic uint64_t heap_allocs, heap_bytes;

void zg_heap_count(uint64_t size) {
  atomic_fetch_add_explicit(&heap_allocs, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&heap_bytes, size, memory_order_relaxed);
}
unsigned long long zymase_gpu_heap_allocs(void) {
  return atomic_load_explicit(&heap_allocs, memory_order_relaxed);
}
unsigned long long zymase_gpu_heap_bytes(void) {
  return atomic_load_explicit(&heap_bytes, memory_order_relaxed);
}

uint64_t zg_heap_limit(void) { return atomic_load(&heap_limit); }
void zg_set_heap_limit(uint64_t bytes) { atomic_store(&heap_limit, bytes); }
uint64_t zg_heap_used(void) { return atomic_load(&heap_used); }

void *__zy_gpu_malloc(uint64_t size) {
  uint64_t used = atomic_fetch_add(&heap_used, size);
  if (used + size > atomic_load(&heap_limit) || size > SIZE_MAX - 16) {
    atomic_fetch_sub(&heap_used, size);
    return NULL;
  }
  uint64_t *p = malloc(size + 16);
  if (!p) {
    atomic_fetch_sub(&heap_used, size);
    return NULL;
  }
  p[0] = size;
  zg_heap_count(size);
  return p + 2;
}

void __zy_gpu_free(void *q) {
  if (!q)
    return;
  uint64_t *p = (uint64_t *)q - 2;
  atomic_fetch_sub(&heap_used, p[0]);
  free(p);
}

/* --- 128-bit ordered loads and stores ---------------------------------- */

/* Striped spin locks keyed by address: the pair of words is read and
 * written as one (CUB's tile states of a status and a 64-bit value). */
static atomic_int locks128[64];

static atomic_int *lock128(const void *p) {
  atomic_int *l = &locks128[((uintptr_t)p >> 4) % 64];
  int expect = 0;
  while (!atomic_compare_exchange_weak_explicit(
      l, &expect, 1, memory_order_acquire, memory_order_relaxed)) {
    expect = 0;
    sched_yield();
  }
  return l;
}

void __zy_gpu_ld128(const void *p, uint64_t out[2], int acq_rel) {
  atomic_int *l = lock128(p);
  memcpy(out, p, 16);
  atomic_store_explicit(l, 0, memory_order_release);
}

void __zy_gpu_st128(void *p, const uint64_t in[2], int acq_rel) {
  atomic_int *l = lock128(p);
  memcpy(p, in, 16);
  atomic_store_explicit(l, 0, memory_order_release);
}

/* --- printf ------------------------------------------------------------- */

static size_t align_up(size_t off, size_t a) { return (off + a - 1) / a * a; }

/* Formats one conversion `spec` (a NUL-terminated "%...c") reading its
 * argument from the buffer at *off (each argument aligned to its size,
 * float promoted to double, as CUDA packs them). */
static int format_one(char *out, size_t n, const char *spec, char conv,
                      int longs, const char *args, size_t *off) {
  if (conv == '%')
    return snprintf(out, n, "%%");
  if (strchr("fFeEgGaA", conv)) {
    double d;
    *off = align_up(*off, 8);
    memcpy(&d, args + *off, 8);
    *off += 8;
    return snprintf(out, n, spec, d);
  }
  if (conv == 's' || conv == 'p') {
    const void *p;
    *off = align_up(*off, 8);
    memcpy(&p, args + *off, 8);
    *off += 8;
    if (conv == 's' && !p)
      p = "(null)";
    return snprintf(out, n, spec, p);
  }
  if (longs) {
    long long v;
    *off = align_up(*off, 8);
    memcpy(&v, args + *off, 8);
    *off += 8;
    return snprintf(out, n, spec, v);
  }
  int v;
  *off = align_up(*off, 4);
  memcpy(&v, args + *off, 4);
  *off += 4;
  return snprintf(out, n, spec, v);
}

int __zy_gpu_vprintf(const char *fmt, const void *argbuf) {
  return zg_vfprintf(stdout, fmt, argbuf);
}

int zg_vfprintf(FILE *f, const char *fmt, const void *argbuf) {
  static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
  const char *args = argbuf;
  size_t off = 0, len = 0, cap = 256;
  char *out = malloc(cap);
  if (!out)
    return -1;
  for (const char *p = fmt; *p;) {
    char piece[512], spec[64];
    int k;
    if (*p != '%') {
      const char *q = strchr(p, '%');
      size_t m = q ? (size_t)(q - p) : strlen(p);
      k = snprintf(piece, sizeof piece, "%.*s", (int)(m < 500 ? m : 500), p);
      p += m < 500 ? m : 500;
    } else {
      const char *q = p + 1;
      while (*q && strchr("-+ #0123456789.*", *q))
        q++;
      int longs = 0;
      while (*q && strchr("hlLqjzt", *q)) {
        longs |= strchr("lLqjzt", *q) != NULL;
        q++;
      }
      char conv = *q ? *q++ : '%';
      size_t m = (size_t)(q - p);
      if (m >= sizeof spec || memchr(p, '*', m)) {
        k = snprintf(piece, sizeof piece, "%.*s", (int)m, p);
      } else {
        /* A normalized spec: length modifiers replaced by ll or none. */
        char *s = spec;
        for (const char *c = p; c < q - 1; c++)
          if (!strchr("hlLqjzt", *c))
            *s++ = *c;
        if (longs && !strchr("fFeEgGaAsp", conv)) {
          *s++ = 'l';
          *s++ = 'l';
        }
        *s++ = conv;
        *s = 0;
        k = format_one(piece, sizeof piece, spec, conv, longs, args, &off);
      }
      p = q;
    }
    if (k < 0)
      continue;
    if ((size_t)k >= sizeof piece)
      k = sizeof piece - 1;
    if (len + (size_t)k + 1 > cap) {
      cap = 2 * (len + (size_t)k + 1);
      char *bigger = realloc(out, cap);
      if (!bigger)
        break;
      out = bigger;
    }
    memcpy(out + len, piece, (size_t)k);
    len += (size_t)k;
  }
  pthread_mutex_lock(&mu);
  fwrite(out, 1, len, f);
  pthread_mutex_unlock(&mu);
  free(out);
  return (int)len;
}

void __zy_gpu_assertfail(const char *msg, const char *file, unsigned line,
                         const char *func, size_t charsize) {
  unsigned bx = __zy_gpu_ctaid_x(), by = __zy_gpu_ctaid_y(),
           bz = __zy_gpu_ctaid_z();
  zg_fatal("%s:%u: %s: block [%u,%u,%u], thread [%u,%u,%u] Assertion `%s` "
           "failed (kernel '%s')",
           file, line, func, bx, by, bz, __zy_gpu_tid_x(), __zy_gpu_tid_y(),
           __zy_gpu_tid_z(), msg, zg_current_kernel());
}

/* --- libdevice ---------------------------------------------------------- */

static double zg_exp10(double x) { return pow(10.0, x); }
static float zg_exp10f(float x) { return powf(10.0f, x); }
static double zg_rsqrt(double x) { return 1.0 / sqrt(x); }
static float zg_rsqrtf(float x) { return 1.0f / sqrtf(x); }
static double zg_rcbrt(double x) { return 1.0 / cbrt(x); }
static float zg_rcbrtf(float x) { return 1.0f / cbrtf(x); }
static float zg_saturatef(float x) { return x < 0 ? 0 : x > 1 ? 1 : x; }
static float zg_divf(float a, float b) { return a / b; }
static double zg_mul(double a, double b) { return a * b; }
static float zg_mulf(float a, float b) { return a * b; }

#define ZG_F1(f, T)                                                            \
  T __nv_##f(T x) { return f(x); }
#define ZG_F2(f, T)                                                            \
  T __nv_##f(T x, T y) { return f(x, y); }
#define ZG_F3(f, T)                                                            \
  T __nv_##f(T x, T y, T z) { return f(x, y, z); }
#define ZG_ALIAS1(nv, f, T)                                                    \
  T __nv_##nv(T x) { return f(x); }
#define ZG_ALIAS2(nv, f, T)                                                    \
  T __nv_##nv(T x, T y) { return f(x, y); }
#include "libdevice.def"

void __nv_sincos(double x, double *s, double *c) { *s = sin(x), *c = cos(x); }
void __nv_sincosf(float x, float *s, float *c) { *s = sinf(x), *c = cosf(x); }
double __nv_ldexp(double x, int e) { return ldexp(x, e); }
float __nv_ldexpf(float x, int e) { return ldexpf(x, e); }
double __nv_frexp(double x, int *e) { return frexp(x, e); }
float __nv_frexpf(float x, int *e) { return frexpf(x, e); }
int __nv_isnand(double x) { return isnan(x); }
int __nv_isnanf(float x) { return isnan(x); }
int __nv_isinfd(double x) { return isinf(x); }
int __nv_isinff(float x) { return isinf(x); }
int __nv_isfinited(double x) { return isfinite(x); }
int __nv_finitef(float x) { return isfinite(x); }
int __nv_signbitd(double x) { return signbit(x) != 0; }
int __nv_signbitf(float x) { return signbit(x) != 0; }

/* Integer functions. */
int __nv_abs(int x) { return x < 0 ? -x : x; }
long long __nv_llabs(long long x) { return x < 0 ? -x : x; }
int __nv_min(int a, int b) { return a < b ? a : b; }
int __nv_max(int a, int b) { return a > b ? a : b; }
unsigned __nv_umin(unsigned a, unsigned b) { return a < b ? a : b; }
unsigned __nv_umax(unsigned a, unsigned b) { return a > b ? a : b; }
long long __nv_llmin(long long a, long long b) { return a < b ? a : b; }
long long __nv_llmax(long long a, long long b) { return a > b ? a : b; }
unsigned long long __nv_ullmin(unsigned long long a, unsigned long long b) {
  return a < b ? a : b;
}
unsigned long long __nv_ullmax(unsigned long long a, unsigned long long b) {
  return a > b ? a : b;
}
int __nv_popc(unsigned x) { return __builtin_popcount(x); }
int __nv_popcll(unsigned long long x) { return __builtin_popcountll(x); }
int __nv_clz(unsigned x) { return x ? __builtin_clz(x) : 32; }
int __nv_clzll(unsigned long long x) { return x ? __builtin_clzll(x) : 64; }
int __nv_ffs(int x) { return __builtin_ffs(x); }
int __nv_ffsll(long long x) { return __builtin_ffsll(x); }
unsigned __nv_brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; i++, x >>= 1)
    r = r << 1 | (x & 1);
  return r;
}
unsigned long long __nv_brevll(unsigned long long x) {
  unsigned long long r = 0;
  for (int i = 0; i < 64; i++, x >>= 1)
    r = r << 1 | (x & 1);
  return r;
}
int __nv_mul24(int a, int b) {
  return (int)((long long)(a << 8 >> 8) * (b << 8 >> 8));
}
unsigned __nv_umul24(unsigned a, unsigned b) {
  return (a & 0xffffff) * (b & 0xffffff);
}
int __nv_mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
unsigned __nv_umulhi(unsigned a, unsigned b) {
  return (unsigned)(((unsigned long long)a * b) >> 32);
}
long long __nv_mul64hi(long long a, long long b) {
  return (long long)(((__int128)a * b) >> 64);
}
unsigned long long __nv_umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
int __nv_float2int_rz(float x) { return (int)x; }
int __nv_float2int_rn(float x) { return (int)nearbyintf(x); }
int __nv_double2int_rz(double x) { return (int)x; }
int __nv_double2int_rn(double x) { return (int)nearbyint(x); }
float __nv_int2float_rn(int x) { return (float)x; }
double __nv_int2double_rn(int x) { return (double)x; }

/* NVVMReflect's query, left in device code compiled at -O0: no flag set. */
int __nvvm_reflect(const char *name) { return 0; }
