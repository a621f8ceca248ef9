/* reverse_lanes.c - vector reverse mode (__enzyme_autodiff with
 * enzyme_width N): one forward sweep and one tape carry N directions,
 * each a "lane" with its own shadows and adjoints (tangent_lanes.c swaps
 * them).  Each instruction's shadow and adjoint is built once per lane
 * by the width-1 code; calls of functions with a body are made once for
 * all lanes (reverse_calls.c); what cannot serve several lanes is refused
 * here.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad.h"

#include "analysis/registry.h"
#include "runtime.h"

int zy_rlanes_lane_wide(ZyGen *g, LLVMValueRef i) {
  if (!g->lanes || !LLVMIsACallInst(i))
    return 0;
  ZyCallMode m = zy_call_mode(g, i);
  return m == ZY_CALL_SPLIT || m == ZY_CALL_RECOMPUTE;
}

int zy_rlanes_shadow_forward(ZyGen *g, LLVMValueRef i) {
  if (!g->lanes)
    return zy_shadow_forward(g, i);
  int err = 0;
  for (unsigned j = 0; j < g->width && !err; j++) {
    zy_lane_switch(g, j);
    err = zy_shadow_forward(g, i);
  }
  zy_lane_switch(g, 0);
  return err;
}

LLVMValueRef zy_lane_shadow_forward(ZyGen *g, LLVMValueRef p, unsigned j) {
  unsigned cur = g->lane;
  zy_lane_switch(g, j);
  LLVMValueRef s = zy_shadow_forward_of(g, p);
  zy_lane_switch(g, cur);
  return s;
}

LLVMValueRef zy_lane_shadow_lookup(ZyGen *g, LLVMValueRef p, unsigned j) {
  unsigned cur = g->lane;
  zy_lane_switch(g, j);
  LLVMValueRef s = zy_shadow_lookup(g, p);
  zy_lane_switch(g, cur);
  return s;
}

static const char *callee_name(LLVMValueRef call) {
  LLVMValueRef f = LLVMGetCalledValue(call);
  return f && LLVMIsAFunction(f) ? LLVMGetValueName(f) : "an indirect call";
}

static int refuse(ZyGen *g, const char *hint, const char *what,
                  const char *name) {
  return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, hint,
                      "vector reverse mode (enzyme_width %u): %s%s%s%s is "
                      "not supported",
                      g->width, what, name ? " ('" : "", name ? name : "",
                      name ? "')" : "");
}

static const char *const PER_LANE =
    "call __enzyme_autodiff once per direction (without enzyme_width)";

/* realloc of memory the function did not allocate: its old shadow comes
 * back at the end of the reverse sweep, one per call, not per lane. */
static int caller_realloc(ZyGen *g, LLVMValueRef call) {
  LLVMValueRef p = LLVMGetOperand(call, 0), n, m;
  return zy_activity_allocation(call) == ZY_ALLOC_REALLOC &&
         zy_activity_shadowed(g->act, call) && !LLVMIsAConstantPointerNull(p) &&
         !zy_allocation_size(g, p, &n, &m);
}

int zy_rlanes_check(ZyGen *g, LLVMValueRef i) {
  g->cur = i;
  if (zy_lanes_check(g, i))
    return -1;
  if (LLVMIsAInvokeInst(i) || !LLVMIsACallInst(i))
    return 0;
  if (zy_parallel()->omp_is_region(i))
    return refuse(g, PER_LANE, "an OpenMP parallel region", NULL);
  switch (zy_call_mode(g, i)) {
  case ZY_CALL_BLAS:
    return refuse(g, PER_LANE, "a BLAS call", callee_name(i));
  case ZY_CALL_MPI:
    return refuse(g, PER_LANE, "an MPI call", callee_name(i));
  case ZY_CALL_SHUFFLE:
    return refuse(g, PER_LANE, "a warp shuffle", callee_name(i));
  case ZY_CALL_SPLIT:
    if (zy_registry_custom(LLVMGetCalledValue(i)))
      return refuse(g,
                    "the registered augmented forward and reverse take one "
                    "shadow per pointer; call __enzyme_autodiff once per "
                    "direction",
                    "a call of a function with a custom gradient",
                    callee_name(i));
    return 0;
  case ZY_CALL_MEMORY:
    if (caller_realloc(g, i))
      return refuse(g, PER_LANE,
                    "realloc of memory the function did not allocate", NULL);
    return 0;
  default:
    return 0;
  }
}
