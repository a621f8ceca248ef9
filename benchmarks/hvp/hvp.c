/* hvp.c - the gradient and the Hessian-vector product of a workload's
 * objective through an Enzyme-ABI plugin: the gradient as in
 * harness/enzyme-abi.c, the product as Enzyme's documentation writes a
 * Hessian-vector product, forward mode over the gradient
 * (__enzyme_fwddiff of a function that calls __enzyme_autodiff), with the
 * parameters' tangent v and the gradient's shadow receiving H v.
 * Compiled once with Zymase and, with --compare-plugin, once more with the
 * other plugin (ZYH_TOOL_SYMBOL=zyh_tool_compare).
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "hvp.h"
#include "zyreal.h"
#include ZYW_HEADER
#include <string.h>

#ifndef ZYH_TOOL_SYMBOL
#define ZYH_TOOL_SYMBOL zyh_tool_zymase
#define ZYH_TOOL_NAME "zymase"
#endif

extern int enzyme_dup, enzyme_const; /* defined in main.c */
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);

/* g += the gradient at p. */
static void gradient(const double *p, double *g, const ZYW_DATA *d) {
  __enzyme_autodiff((void *)ZYW_OBJECTIVE, enzyme_dup, p, g, enzyme_const, d);
}

static void grad(const double *p, const void *data, double *g, int np) {
  memset(g, 0, sizeof(double) * np);
  gradient(p, g, (const ZYW_DATA *)data);
}

static void hvp(const double *p, const double *v, const void *data, double *g,
                double *hv, int np) {
  memset(g, 0, sizeof(double) * np);
  memset(hv, 0, sizeof(double) * np);
  __enzyme_fwddiff((void *)gradient, enzyme_dup, p, v, enzyme_dup, g, hv,
                   enzyme_const, (const ZYW_DATA *)data);
}

const ZyhTool ZYH_TOOL_SYMBOL = {ZYH_TOOL_NAME, grad, hvp};
