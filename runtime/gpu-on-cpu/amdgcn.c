/* amdgcn.c - what HIP device code (amdgcn) calls on the CPU: the ockl
 * work-item functions, the wave operations (ds_bpermute, swizzle,
 * readlane, ballots through llvm.amdgcn.icmp/fcmp, any/all) on warps of 64
 * lanes, fences, and ocml's math on the host's libm.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#define _GNU_SOURCE
#include "zymase_gpu.h"

#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* --- Work-items (ockl) ------------------------------------------------- */

uint64_t __zy_gpu_ockl_local_id(unsigned d) {
  return d == 0 ? __zy_gpu_tid_x() : d == 1 ? __zy_gpu_tid_y()
                                   : d == 2 ? __zy_gpu_tid_z()
                                            : 0;
}
uint64_t __zy_gpu_ockl_group_id(unsigned d) {
  return d == 0 ? __zy_gpu_ctaid_x() : d == 1 ? __zy_gpu_ctaid_y()
                                     : d == 2 ? __zy_gpu_ctaid_z()
                                              : 0;
}
uint64_t __zy_gpu_ockl_local_size(unsigned d) {
  return d == 0 ? __zy_gpu_ntid_x() : d == 1 ? __zy_gpu_ntid_y()
                                    : d == 2 ? __zy_gpu_ntid_z()
                                             : 1;
}
uint64_t __zy_gpu_ockl_num_groups(unsigned d) {
  return d == 0 ? __zy_gpu_nctaid_x() : d == 1 ? __zy_gpu_nctaid_y()
                                      : d == 2 ? __zy_gpu_nctaid_z()
                                               : 1;
}
uint64_t __zy_gpu_ockl_global_id(unsigned d) {
  return __zy_gpu_ockl_group_id(d) * __zy_gpu_ockl_local_size(d) +
         __zy_gpu_ockl_local_id(d);
}
uint64_t __zy_gpu_ockl_global_size(unsigned d) {
  return __zy_gpu_ockl_num_groups(d) * __zy_gpu_ockl_local_size(d);
}
uint64_t __zy_gpu_ockl_zero(unsigned d) { return 0; }
unsigned __zy_gpu_ockl_dim(void) { return 3; }

/* The device heap (HIP's malloc and free): the host's. */
uint64_t __zy_gpu_ockl_dm_alloc(uint64_t size) {
  void *p = malloc(size);
  if (p)
    zg_heap_count(size);
  return (uint64_t)(uintptr_t)p;
}
void __zy_gpu_ockl_dm_dealloc(uint64_t addr) { free((void *)(uintptr_t)addr); }

/* __atomic_work_item_fence(flags, order, scope) (and the builtin fences):
 * every fence is a full host fence. */
void __zy_gpu_amd_fence(unsigned flags, unsigned order, unsigned scope) {
  atomic_thread_fence(memory_order_seq_cst);
}

/* --- Lanes ------------------------------------------------------------- */

/* mbcnt: `add` plus the bits of `mask` below the calling lane, among
 * lanes 0-31 (lo) or 32-63 (hi). */
unsigned __zy_gpu_mbcnt_lo(unsigned mask, unsigned add) {
  int l = zg_lane();
  unsigned below = l >= 32 ? ~0u : (1u << l) - 1;
  return add + (unsigned)__builtin_popcount(mask & below);
}
unsigned __zy_gpu_mbcnt_hi(unsigned mask, unsigned add) {
  int l = zg_lane() - 32;
  unsigned below = l <= 0 ? 0 : (1u << l) - 1;
  return add + (unsigned)__builtin_popcount(mask & below);
}

/* ds_bpermute: each lane reads `v` of lane (addr / 4) mod 64; a lane that
 * takes no part reads 0. */
int __zy_gpu_ds_bpermute(int addr, int v) {
  uint32_t vals[ZG_WARP_MAX];
  uint64_t who = zg_warp_exchange("__shfl (ds_bpermute)", (uint32_t)v, vals);
  unsigned src = ((unsigned)addr >> 2) & 63;
  return who >> src & 1 ? (int)vals[src] : 0;
}

/* ds_permute: each lane writes `v` to lane (addr / 4) mod 64 (the highest
 * writer wins); a lane nobody writes reads 0. */
int __zy_gpu_ds_permute(int addr, int v) {
  uint32_t vals[ZG_WARP_MAX], addrs[ZG_WARP_MAX];
  uint64_t who = zg_warp_exchange("ds_permute", (uint32_t)v, vals);
  zg_warp_exchange("ds_permute", (uint32_t)addr, addrs);
  int me = zg_lane(), out = 0;
  for (int l = 0; l < ZG_WARP_MAX; l++)
    if ((who >> l & 1) && (int)((addrs[l] >> 2) & 63) == me)
      out = (int)vals[l];
  return out;
}

/* ds_swizzle: the bit-mask mode (within 32 lanes) and the quad
 * permutation mode (bit 15). */
int __zy_gpu_ds_swizzle(int v, int pattern) {
  uint32_t vals[ZG_WARP_MAX];
  uint64_t who = zg_warp_exchange("ds_swizzle", (uint32_t)v, vals);
  int l = zg_lane(), j;
  if (pattern & 0x8000)
    j = (l & ~3) | ((pattern >> (2 * (l & 3))) & 3);
  else {
    int and_mask = pattern & 0x1f, or_mask = (pattern >> 5) & 0x1f,
        xor_mask = (pattern >> 10) & 0x1f;
    j = (l & 0x20) | ((((l & 0x1f) & and_mask) | or_mask) ^ xor_mask);
  }
  return who >> j & 1 ? (int)vals[j] : 0;
}

int __zy_gpu_readlane(int v, int lane) {
  uint32_t vals[ZG_WARP_MAX];
  uint64_t who = zg_warp_exchange("readlane", (uint32_t)v, vals);
  lane &= 63;
  return who >> lane & 1 ? (int)vals[lane] : 0;
}
int __zy_gpu_readfirstlane(int v) {
  uint32_t vals[ZG_WARP_MAX];
  uint64_t who = zg_warp_exchange("readfirstlane", (uint32_t)v, vals);
  return (int)vals[__builtin_ctzll(who)];
}

/* --- Votes --------------------------------------------------------------- */

static uint64_t ballot(const char *what, int p) {
  uint32_t vals[ZG_WARP_MAX];
  uint64_t who = zg_warp_exchange(what, p != 0, vals), out = 0;
  for (int l = 0; l < ZG_WARP_MAX; l++)
    if ((who >> l & 1) && vals[l])
      out |= 1ull << l;
  return out;
}
uint64_t __zy_gpu_amd_ballot64(bool p) { return ballot("__ballot", p); }
unsigned __zy_gpu_amd_ballot32(bool p) {
  return (unsigned)ballot("__ballot", p);
}
void __zy_gpu_amd_wave_barrier(void) { ballot("wave_barrier", 0); }
bool __zy_gpu_ockl_wfany(int p) { return ballot("__any", p) != 0; }
bool __zy_gpu_ockl_wfall(int p) {
  uint32_t vals[ZG_WARP_MAX];
  uint64_t who = zg_warp_exchange("__all", p != 0, vals);
  for (int l = 0; l < ZG_WARP_MAX; l++)
    if ((who >> l & 1) && !vals[l])
      return 0;
  return 1;
}
/* The calling lane's rank among the lanes that take part. */
unsigned __zy_gpu_ockl_activelane(void) {
  uint64_t who = ballot("__ockl_activelane", 1);
  return (unsigned)__builtin_popcountll(who & ((1ull << zg_lane()) - 1));
}

/* llvm.amdgcn.icmp / fcmp: the ballot of a comparison (LLVM's predicate
 * numbers). */
#define ZG_CMP(a, b, pred, ord)                                                \
  int ord = !isnan((double)(a)) && !isnan((double)(b)), r = 0;                 \
  switch (pred) {                                                              \
  case 1: case 9: r = a == b; break;                                           \
  case 2: case 10: r = a > b; break;                                           \
  case 3: case 11: r = a >= b; break;                                          \
  case 4: case 12: r = a < b; break;                                           \
  case 5: case 13: r = a <= b; break;                                          \
  case 6: case 14: r = a != b; break;                                          \
  case 7: r = ord; break;                                                      \
  case 8: r = !ord; break;                                                     \
  case 15: r = 1; break;                                                       \
  }                                                                            \
  if (pred >= 9 && pred <= 14)                                                 \
    r = r || !ord;                                                             \
  else if (pred >= 1 && pred <= 6)                                             \
    r = r && ord;
uint64_t __zy_gpu_amd_fcmp_f32(float a, float b, int pred) {
  ZG_CMP(a, b, pred, ord)
  return ballot("__ballot", r);
}
uint64_t __zy_gpu_amd_fcmp_f64(double a, double b, int pred) {
  ZG_CMP(a, b, pred, ord)
  return ballot("__ballot", r);
}
#undef ZG_CMP
#define ZG_ICMP(N, T, U)                                                       \
  uint64_t __zy_gpu_amd_icmp_##N(T a, T b, int pred) {                         \
    U ua = (U)a, ub = (U)b;                                                    \
    int r = pred == 32 ? a == b : pred == 33 ? a != b                          \
          : pred == 34 ? ua > ub  : pred == 35 ? ua >= ub                      \
          : pred == 36 ? ua < ub  : pred == 37 ? ua <= ub                      \
          : pred == 38 ? a > b    : pred == 39 ? a >= b                        \
          : pred == 40 ? a < b    : pred == 41 ? a <= b : 0;                   \
    return ballot("__ballot", r);                                              \
  }
ZG_ICMP(i32, int32_t, uint32_t)
ZG_ICMP(i64, int64_t, uint64_t)
#undef ZG_ICMP

/* --- ocml: the device math library, on libm ---------------------------- */

#define ZG_OCML1(n)                                                            \
  double __ocml_##n##_f64(double x) { return n(x); }                           \
  float __ocml_##n##_f32(float x) { return n##f(x); }
#define ZG_OCML2(n)                                                            \
  double __ocml_##n##_f64(double x, double y) { return n(x, y); }              \
  float __ocml_##n##_f32(float x, float y) { return n##f(x, y); }
ZG_OCML1(sin) ZG_OCML1(cos) ZG_OCML1(tan) ZG_OCML1(asin) ZG_OCML1(acos)
ZG_OCML1(atan) ZG_OCML1(sinh) ZG_OCML1(cosh) ZG_OCML1(tanh) ZG_OCML1(asinh)
ZG_OCML1(acosh) ZG_OCML1(atanh) ZG_OCML1(exp) ZG_OCML1(exp2) ZG_OCML1(expm1)
ZG_OCML1(exp10) ZG_OCML1(log) ZG_OCML1(log2) ZG_OCML1(log10) ZG_OCML1(log1p)
ZG_OCML1(sqrt) ZG_OCML1(cbrt) ZG_OCML1(fabs) ZG_OCML1(floor) ZG_OCML1(ceil)
ZG_OCML1(trunc) ZG_OCML1(round) ZG_OCML1(rint) ZG_OCML1(nearbyint)
ZG_OCML1(erf) ZG_OCML1(erfc) ZG_OCML1(tgamma) ZG_OCML1(lgamma) ZG_OCML1(logb)
ZG_OCML2(pow) ZG_OCML2(atan2) ZG_OCML2(fmod) ZG_OCML2(fmin) ZG_OCML2(fmax)
ZG_OCML2(hypot) ZG_OCML2(copysign) ZG_OCML2(fdim) ZG_OCML2(remainder)
ZG_OCML2(nextafter)
#undef ZG_OCML1
#undef ZG_OCML2
double __ocml_fma_f64(double x, double y, double z) { return fma(x, y, z); }
float __ocml_fma_f32(float x, float y, float z) { return fmaf(x, y, z); }
double __ocml_rsqrt_f64(double x) { return 1 / sqrt(x); }
float __ocml_rsqrt_f32(float x) { return 1 / sqrtf(x); }
double __ocml_rcbrt_f64(double x) { return 1 / cbrt(x); }
float __ocml_rcbrt_f32(float x) { return 1 / cbrtf(x); }
double __ocml_sinpi_f64(double x) { return sin(M_PI * x); }
float __ocml_sinpi_f32(float x) { return (float)sin(M_PI * x); }
double __ocml_cospi_f64(double x) { return cos(M_PI * x); }
float __ocml_cospi_f32(float x) { return (float)cos(M_PI * x); }
double __ocml_pown_f64(double x, int n) { return pow(x, n); }
float __ocml_pown_f32(float x, int n) { return powf(x, (float)n); }
double __ocml_ldexp_f64(double x, int n) { return ldexp(x, n); }
float __ocml_ldexp_f32(float x, int n) { return ldexpf(x, n); }
double __ocml_sincos_f64(double x, double *c) {
  *c = cos(x);
  return sin(x);
}
float __ocml_sincos_f32(float x, float *c) {
  *c = cosf(x);
  return sinf(x);
}
float __ocml_native_sin_f32(float x) { return sinf(x); }
float __ocml_native_cos_f32(float x) { return cosf(x); }
float __ocml_native_exp_f32(float x) { return expf(x); }
float __ocml_native_log_f32(float x) { return logf(x); }
int __ocml_isnan_f64(double x) { return isnan(x); }
int __ocml_isnan_f32(float x) { return isnan(x); }
int __ocml_isinf_f64(double x) { return isinf(x); }
int __ocml_isinf_f32(float x) { return isinf(x); }
int __ocml_isfinite_f64(double x) { return isfinite(x); }
int __ocml_isfinite_f32(float x) { return isfinite(x); }

/* --- printf and assert (ockl's hostcall printf) --------------------------
 * clang lowers device printf to __ockl_printf_begin, then one append per
 * piece: the format string first, each %s argument as a string, the other
 * arguments as 64-bit words (doubles by their bits), the last append
 * flagged.  The pieces are packed the way CUDA's vprintf takes them. */

typedef struct HipPrintf {
  FILE *f;
  char *fmt;
  int n;
  struct {
    uint64_t word;
    char *str;
  } items[64];
} HipPrintf;

static uint64_t printf_begin(FILE *f) {
  HipPrintf *p = calloc(1, sizeof *p);
  if (!p)
    zg_fatal("out of memory in device printf");
  p->f = f;
  return (uint64_t)(uintptr_t)p;
}
uint64_t __zy_gpu_hip_printf_begin(uint64_t version) {
  return printf_begin(stdout);
}
uint64_t __zy_gpu_hip_stdout_begin(void) { return printf_begin(stdout); }
uint64_t __zy_gpu_hip_stderr_begin(void) { return printf_begin(stderr); }

/* Packs the items by the conversions of the format, and prints. */
static uint64_t printf_end(HipPrintf *p) {
  char buf[64 * 8];
  size_t off = 0;
  int k = 0, ret = 0;
  for (const char *c = p->fmt ? p->fmt : ""; *c && k < p->n; c++) {
    if (*c != '%')
      continue;
    if (c[1] == '%') {
      c++;
      continue;
    }
    c++;
    int longs = 0;
    while (*c && strchr("-+ #0123456789.*hlLqjzt", *c))
      longs |= strchr("lLqjzt", *c++) != NULL;
    if (!*c)
      break;
    uint64_t w = p->items[k].word;
    if (*c == 's')
      w = (uint64_t)(uintptr_t)p->items[k].str;
    k++;
    if (strchr("fFeEgGaAsp", *c) || longs) {
      off = (off + 7) / 8 * 8;
      memcpy(buf + off, &w, 8);
      off += 8;
    } else {
      uint32_t v = (uint32_t)w;
      memcpy(buf + off, &v, 4);
      off += 4;
    }
  }
  if (p->fmt)
    ret = zg_vfprintf(p->f, p->fmt, buf);
  for (int i = 0; i < p->n; i++)
    free(p->items[i].str);
  free(p->fmt);
  free(p);
  return (uint64_t)ret;
}

uint64_t __zy_gpu_hip_printf_string(uint64_t desc, const char *s, uint64_t len,
                                    int last) {
  HipPrintf *p = (HipPrintf *)(uintptr_t)desc;
  char *copy = malloc(len + 1);
  if (!copy)
    zg_fatal("out of memory in device printf");
  if (s)
    memcpy(copy, s, len);
  copy[s ? len : 0] = 0;
  if (!p->fmt)
    p->fmt = copy;
  else if (p->n < 64)
    p->items[p->n++].str = copy;
  else
    free(copy);
  return last ? printf_end(p) : desc;
}

uint64_t __zy_gpu_hip_printf_args(uint64_t desc, unsigned n, uint64_t a0,
                                  uint64_t a1, uint64_t a2, uint64_t a3,
                                  uint64_t a4, uint64_t a5, uint64_t a6,
                                  int last) {
  HipPrintf *p = (HipPrintf *)(uintptr_t)desc;
  uint64_t a[7] = {a0, a1, a2, a3, a4, a5, a6};
  for (unsigned i = 0; i < n && i < 7 && p->n < 64; i++)
    p->items[p->n++].word = a[i];
  return last ? printf_end(p) : desc;
}
