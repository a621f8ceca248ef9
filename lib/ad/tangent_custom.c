/* tangent_custom.c - forward mode through a custom forward derivative,
 * `void *__enzyme_register_derivative_f[2] = {f, df}` (Enzyme's
 * convention, analysis/registry.h): a call of f in a function
 * differentiated in forward mode calls df instead, each pointer and
 * floating-point argument followed by its shadow or tangent (a null
 * shadow, a zero tangent, where the argument has none).  In vector mode,
 * df is called once per direction with that direction's shadows.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad.h"

#include "analysis/registry.h"
#include "ir/irutil.h"

#include <stdlib.h>

static int has_shadow(LLVMTypeRef t) {
  LLVMTypeKind k = LLVMGetTypeKind(t);
  return k == LLVMPointerTypeKind || zy_type_differentiable(t);
}

/* The call of df for direction `lane` (0 without vector mode): returns
 * df's result, NULL for a void df. */
static LLVMValueRef call_deriv(ZyGen *g, LLVMValueRef call,
                               const ZyFwdCustom *c, unsigned lane) {
  unsigned n = LLVMGetNumArgOperands(call);
  LLVMValueRef *args = malloc((2 * n + 1) * sizeof *args);
  unsigned na = 0;
  for (unsigned k = 0; k < n; k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    args[na++] = zy_map_get(&g->vmap, a) ? zy_map_get(&g->vmap, a) : a;
    if (has_shadow(LLVMTypeOf(a)))
      args[na++] =
          g->lanes ? zy_lane_tangent(g, a, lane) : zy_tangent_value(g, a);
  }
  LLVMTypeRef dt = LLVMGlobalGetValueType(c->deriv);
  LLVMValueRef r = LLVMBuildCall2(g->b, dt, c->deriv, args, na, "");
  free(args);
  return LLVMGetTypeKind(LLVMGetReturnType(dt)) == LLVMVoidTypeKind ? NULL : r;
}

/* Sets the result's tangent (a float) or shadow (a pointer) of `call` in
 * direction `lane`. */
static void put(ZyGen *g, LLVMValueRef call, unsigned lane, LLVMValueRef t) {
  int ptr = LLVMGetTypeKind(LLVMTypeOf(call)) == LLVMPointerTypeKind;
  if (g->lanes)
    zy_lane_put(g, call, lane, t);
  else if (ptr ? zy_activity_shadowed(g->act, call)
               : zy_activity_active(g->act, call))
    zy_map_put(ptr ? &g->shadow : &g->tangent, call, t);
}

int zy_tangent_custom_call(ZyGen *g, LLVMValueRef call, const ZyFwdCustom *c) {
  if (g->lane > 0)
    return 0; /* the first lane's visit called df for every lane */
  LLVMValueRef f = c->fn;
  if (!LLVMIsACallInst(call) ||
      LLVMGetNumArgOperands(call) != LLVMCountParams(f) ||
      LLVMGlobalGetValueType(f) != LLVMGetCalledFunctionType(call))
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                        "call the function with its declared prototype",
                        "forward mode: the call of '%s' does not match the "
                        "type of the function its forward derivative is "
                        "registered for",
                        LLVMGetValueName(f));
  LLVMTypeRef rt = LLVMTypeOf(call);
  int with_result = LLVMGetTypeKind(rt) != LLVMVoidTypeKind && has_shadow(rt) &&
                    !c->tangent_only;
  /* df returning the tangent alone: the result comes from f itself. */
  if (c->tangent_only && LLVMGetFirstUse(call))
    zy_tangent_copy(g, call);
  unsigned w = g->lanes ? g->width : 1;
  for (unsigned j = 0; j < w; j++) {
    LLVMValueRef r = call_deriv(g, call, c, j);
    if (!r)
      continue;            /* void */
    if (!has_shadow(rt)) { /* an integer result: df's is the result */
      if (j == 0)
        zy_map_put(&g->vmap, call, r);
      continue;
    }
    if (with_result && j == 0)
      zy_map_put(&g->vmap, call, LLVMBuildExtractValue(g->b, r, 0, ""));
    put(g, call, j, with_result ? LLVMBuildExtractValue(g->b, r, 1, "") : r);
  }
  return 0;
}
