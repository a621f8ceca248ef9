/* tangent_lanes.c - vector mode (enzyme_width N): one copy of the primal
 * carries N directions, each a "lane" with its own tangents, shadows and
 * (reverse mode, reverse_lanes.c) adjoints.  The sweeps build each
 * instruction's tangent, shadow or adjoint once per lane with the same
 * code as for one direction, the lane's maps swapped into ZyGen's
 * `tangent`, `shadow` and `adjoint`; the primal copy is made once.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad.h"
#include "runtime.h"

#include "calls/mpi_calls.h"

#include <stdlib.h>

void zy_lanes_begin(ZyGen *g, unsigned width) {
  g->width = width;
  g->lane = 0;
  g->lanes = calloc(3 * (size_t)width, sizeof *g->lanes);
}

void zy_lane_switch(ZyGen *g, unsigned j) {
  if (!g->lanes || j == g->lane)
    return;
  ZyMap *was = &g->lanes[3 * g->lane], *now = &g->lanes[3 * j];
  was[0] = g->tangent;
  was[1] = g->shadow;
  was[2] = g->adjoint;
  g->tangent = now[0];
  g->shadow = now[1];
  g->adjoint = now[2];
  g->lane = j;
}

void zy_lanes_end(ZyGen *g) {
  if (!g->lanes)
    return;
  zy_lane_switch(g, 0);
  for (unsigned j = 1; j < g->width; j++)
    for (unsigned m = 0; m < 3; m++)
      zy_map_free(&g->lanes[3 * j + m]);
  free(g->lanes);
  g->lanes = NULL;
}

LLVMValueRef zy_lane_tangent(ZyGen *g, LLVMValueRef v, unsigned j) {
  unsigned cur = g->lane;
  zy_lane_switch(g, j);
  LLVMValueRef t = zy_tangent_value(g, v);
  zy_lane_switch(g, cur);
  return t;
}

void zy_lane_put(ZyGen *g, LLVMValueRef v, unsigned j, LLVMValueRef t) {
  unsigned cur = g->lane;
  zy_lane_switch(g, j);
  int ptr = LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMPointerTypeKind;
  zy_map_put(ptr ? &g->shadow : &g->tangent, v, t);
  zy_lane_switch(g, cur);
}

/* The global a constant pointer is, or is a GEP or cast of. */
static LLVMValueRef base_global(LLVMValueRef v) {
  while (v && LLVMIsAConstantExpr(v) && LLVMGetNumOperands(v) > 0)
    v = LLVMGetOperand(v, 0);
  return v && LLVMIsAGlobalVariable(v) ? v : NULL;
}

int zy_lanes_check(ZyGen *g, LLVMValueRef i) {
  /* MPI handles (Open MPI's are addresses of its globals) carry none. */
  if (LLVMIsACallInst(i) && zy_mpi_handled(LLVMGetCalledValue(i)))
    return 0;
  for (int o = 0, n = LLVMGetNumOperands(i); o < n; o++) {
    LLVMValueRef v = LLVMGetOperand(i, o);
    LLVMValueRef gv = v && LLVMIsAConstant(v) ? base_global(v) : NULL;
    /* An integer global's shadow never holds a derivative: shared.  A
     * __shared__ array's shadows are the device runtime's (gpu_sync.c:
     * one per lane, or a located error for dynamic shared memory). */
    if (!gv || !zy_activity_shadowed_global(v) ||
        LLVMGetTypeKind(LLVMGlobalGetValueType(gv)) == LLVMIntegerTypeKind ||
        zy_parallel()->gpu_shared_lanes(gv))
      continue;
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                        "pass the data as a pointer argument with enzyme_dup "
                        "or enzyme_dupv, or use width 1",
                        "vector %s mode (enzyme_width %u): a global "
                        "variable with derivatives ('%s'), whose one shadow "
                        "cannot hold several directions",
                        g->rblock.order.len ? "reverse" : "forward", g->width,
                        LLVMGetValueName(gv));
  }
  return 0;
}
