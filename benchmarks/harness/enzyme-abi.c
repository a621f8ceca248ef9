/* enzyme-abi.c - the gradient through an Enzyme-ABI plugin: the workload's
 * objective with its parameter array enzyme_dup and its data enzyme_const.
 * Compiled once with Zymase and, with --compare-plugin, once more with the
 * other plugin (ZYB_TOOL_SYMBOL=zyb_tool_compare).
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "bench.h"
#include "zyreal.h"
#include ZYW_HEADER
#include <string.h>

#ifndef ZYB_TOOL_SYMBOL
#define ZYB_TOOL_SYMBOL zyb_tool_zymase
#define ZYB_TOOL_NAME "zymase"
#endif

extern int enzyme_dup, enzyme_const; /* defined in main.c */
void __enzyme_autodiff(void *, ...);

static void grad(const double *p, const void *data, double *g, int np) {
  memset(g, 0, sizeof(double) * np);
  __enzyme_autodiff((void *)ZYW_OBJECTIVE, enzyme_dup, p, g, enzyme_const,
                    (const ZYW_DATA *)data);
}

const ZybTool ZYB_TOOL_SYMBOL = {ZYB_TOOL_NAME, grad};
