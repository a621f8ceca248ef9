/* bench.h - the interface between the benchmark driver and the variants
 * linked into one benchmark executable (primal, Zymase, hand-written,
 * ADOL-C, a compared plugin).  Each variant lives in its own object file.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_BENCH_BENCH_H
#define ZY_BENCH_BENCH_H

#ifdef __cplusplus
extern "C" {
#endif

/* The objective on double, compiled without any AD plugin. */
typedef double (*ZybPrimalFn)(const double *p, const void *data);

/* Writes the full gradient of the objective at p into g[0..np); g need
 * not be zeroed by the caller. */
typedef void (*ZybGradFn)(const double *p, const void *data, double *g, int np);

/* release, when not null, frees what the tool keeps between gradients
 * (ADOL-C's tape, gigabytes at the large sizes).  The driver times such
 * tools after the others and releases them first: memory another tool
 * holds makes every fresh page of the others slower to fault in (3x on the
 * benchmark machine's VM for 480 MB while 5 GB were held). */
typedef struct ZybTool {
  const char *name;
  ZybGradFn grad;
  void (*release)(void);
} ZybTool;

/* Defined by the variant objects; a variant that did not build is simply
 * not linked, and its symbol stays null (weak references in main.c). */
extern const ZybTool zyb_tool_zymase, zyb_tool_manual, zyb_tool_adolc,
    zyb_tool_adolc_reuse, zyb_tool_compare;
extern const ZybPrimalFn zyb_primal;

/* ADOL-C's memory for one gradient at p (tape + Taylor stack), in bytes. */
double zyb_adolc_tape_bytes(const double *p, const void *data, int np);

#ifdef __cplusplus
}
#endif

#endif
