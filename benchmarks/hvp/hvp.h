/* hvp.h - the interface between the Hessian-vector-product driver
 * (main.c) and the tools linked into it (hvp.c, once per plugin).
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_BENCH_HVP_H
#define ZY_BENCH_HVP_H

/* grad writes the gradient at p into g; hvp writes the gradient into g
 * and the Hessian at p times v into hv.  Neither output need be zeroed. */
typedef struct ZyhTool {
  const char *name;
  void (*grad)(const double *p, const void *data, double *g, int np);
  void (*hvp)(const double *p, const double *v, const void *data, double *g,
              double *hv, int np);
} ZyhTool;

extern const ZyhTool zyh_tool_zymase, zyh_tool_compare;

#endif
