/* reverse_calls.c - adjoints of calls: math functions through the rule
 * table, functions with a body through their own gradient.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad.h"

#include "analysis/effects.h"
#include "rules.h"

#include <stdlib.h>
#include <string.h>

static int apply_rule(ZyGen *g, LLVMValueRef call, const ZyRule *r,
                      LLVMValueRef d) {
  unsigned nargs = LLVMGetNumArgOperands(call);
  ZyRuleIO io = {.b = g->b, .dy = d};
  for (unsigned k = 0; k < nargs && k < 3; k++)
    io.x[k] = zy_lookup(g, LLVMGetOperand(call, k));
  if (r->needs_y)
    io.y = zy_lookup(g, call);
  r->build(&io);
  for (unsigned k = 0; k < r->arity && k < nargs; k++)
    zy_add_adjoint(g, LLVMGetOperand(call, k), io.dx[k]);
  return 0;
}

/* The callee's gradient recomputes its forward sweep, so the callee must
 * have no side effect that running it twice would repeat. */
static int call_gradient(ZyGen *g, LLVMValueRef call, LLVMValueRef callee,
                         LLVMValueRef d) {
  unsigned nargs = LLVMGetNumArgOperands(call);
  if (nargs > 63 || LLVMIsFunctionVarArg(LLVMGlobalGetValueType(callee)))
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                        "calls to variadic functions or functions with more "
                        "than 63 parameters are not differentiated");
  ZySig sig = {.active_ret = 1};
  for (unsigned k = 0; k < nargs; k++)
    if (zy_activity_active(g->act, LLVMGetOperand(call, k)))
      sig.active_args |= 1ull << k;
  if (!sig.active_args)
    return 0;
  LLVMValueRef w = zy_effects_first_write(callee, zy_rule_known);
  if (w) {
    zy_error(ZY_ERR_UNSUPPORTED, g->user, g->cur, NULL,
             "the called function '%s' has side effects, which its gradient "
             "would repeat; differentiating such calls is not supported yet",
             LLVMGetValueName(callee));
    return zy_error(ZY_ERR_UNSUPPORTED, callee, w, NULL,
                    "this is the side effect of '%s'",
                    LLVMGetValueName(callee));
  }
  LLVMValueRef grad = zy_gradient(g->zm, callee, sig);
  if (!grad)
    return -1;
  LLVMValueRef *args = calloc(nargs + 1, sizeof *args);
  for (unsigned k = 0; k < nargs; k++)
    args[k] = zy_lookup(g, LLVMGetOperand(call, k));
  args[nargs] = d;
  LLVMValueRef res = LLVMBuildCall2(g->b, LLVMGlobalGetValueType(grad), grad,
                                    args, nargs + 1, "");
  free(args);
  unsigned field = 0;
  for (unsigned k = 0; k < nargs; k++)
    if (sig.active_args >> k & 1)
      zy_add_adjoint(g, LLVMGetOperand(call, k),
                     LLVMBuildExtractValue(g->b, res, field++, ""));
  return 0;
}

int zy_reverse_call(ZyGen *g, LLVMValueRef call, LLVMValueRef d) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  const ZyRule *r = zy_rule_for_call(callee);
  if (r)
    return apply_rule(g, call, r, d);
  if (callee && LLVMIsAFunction(callee) && !LLVMIsDeclaration(callee))
    return call_gradient(g, call, callee, d);
  if (!callee || !LLVMIsAFunction(callee))
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                        "indirect calls are not differentiated yet");
  const char *name = LLVMGetValueName(callee);
  if (!strncmp(name, "llvm.", 5))
    return ZY_GEN_ERROR(g, ZY_ERR_NO_RULE, NULL,
                        "no derivative rule for the intrinsic '%s'", name);
  return ZY_GEN_ERROR(
      g, ZY_ERR_NO_RULE,
      "give the function a body in this translation unit, or pass its "
      "active arguments as enzyme_const",
      "no derivative rule for the external function '%s'", name);
}
