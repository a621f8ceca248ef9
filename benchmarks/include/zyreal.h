/* zyreal.h - the scalar type every workload is written in, so one primal
 * source compiles as C on double and as C++ on ADOL-C's adouble.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Workload objectives use only ZY_REAL, the arithmetic operators, <math.h>
 * functions that ADOL-C overloads (exp, log, sqrt, sin, cos, tanh, ...),
 * comparisons, and ZY_ALLOC/ZY_FREE for scratch arrays.  Everything that
 * is not differentiated (sizes, generated inputs) stays double/int.  The
 * code must also be valid C++: cast malloc, no VLAs, no designated
 * initializers, no `restrict`. */
#ifndef ZY_BENCH_ZYREAL_H
#define ZY_BENCH_ZYREAL_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#ifdef ZY_ADOLC
#include <adolc/adouble.h>
#define ZY_REAL adouble
#define ZY_ALLOC(n) (new adouble[(n)])
#define ZY_FREE(p) (delete[](p))
#else
#define ZY_REAL double
#define ZY_ALLOC(n) ((double *)malloc(sizeof(double) * (size_t)(n)))
#define ZY_FREE(p) free(p)
#endif

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#if defined(__GNUC__)
#define ZY_UNUSED __attribute__((unused))
#else
#define ZY_UNUSED
#endif

/* Deterministic inputs: splitmix64, so every tool and every run sees the
 * same numbers without depending on libc's rand(). */
typedef struct ZyRng {
  uint64_t s;
} ZyRng;

static ZY_UNUSED uint64_t zy_rng_next(ZyRng *r) {
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform in [lo, hi). */
static ZY_UNUSED double zy_rng_uniform(ZyRng *r, double lo, double hi) {
  return lo + (hi - lo) * (double)(zy_rng_next(r) >> 11) * 0x1.0p-53;
}

static ZY_UNUSED double *zy_alloc_doubles(size_t n) {
  return (double *)calloc(n ? n : 1, sizeof(double));
}

#endif
