/* fwddiff.c - lowers __enzyme_fwddiff(fn, [marker,] arg, ...) calls:
 * forward mode, as Enzyme's: a floating-point argument is followed by its
 * tangent unless marked enzyme_const, a pointer by its shadow; the call
 * returns the tangent of the result, or with enzyme_primal_return the
 * struct { result, tangent }.  Vector mode (enzyme_width, N): N tangents
 * or shadows per argument (enzyme_dupv, stride: one shadow, the others
 * `stride` bytes apart), N tangents of the result returned in a row.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "abi.h"

#include "ir/irutil.h"

static const char *const HINT =
    "declare the result as the function's result type (its tangent), or "
    "with enzyme_primal_return as a struct { result; tangent; }; with "
    "enzyme_width N, a struct of N tangents (after the result with "
    "enzyme_primal_return)";

static int refused_marker(ZyCall *c) {
  if (!c->ret_kind && !c->noret && !c->nofree)
    return 0;
  return zy_error(ZY_ERR_BAD_MARKER, c->fn, c->call,
                  "__enzyme_fwddiff reads enzyme_const, enzyme_dup, "
                  "enzyme_dupnoneed and enzyme_primal_return",
                  "marker '%s' is not supported by __enzyme_fwddiff",
                  c->ret_name ? c->ret_name
                  : c->noret  ? "enzyme_noret"
                              : "enzyme_nofree");
}

static int lower(ZyCall *c) {
  c->fwd = 1;
  if (zy_abi_read_arguments(c) || refused_marker(c))
    return -1;
  for (unsigned k = 0; k < c->nshadows; k++)
    c->args[c->nargs++] = c->shadows[k];
  LLVMTypeRef fret = LLVMGetReturnType(LLVMGlobalGetValueType(c->fn));
  LLVMTypeKind fk = LLVMGetTypeKind(fret);
  c->sig.active_ret = zy_type_differentiable(fret);
  c->sig.dup_ret = fk == LLVMPointerTypeKind;
  int has_tangent = c->sig.active_ret || c->sig.dup_ret;
  LLVMTypeKind rk = LLVMGetTypeKind(c->rt);
  if (!has_tangent && rk != LLVMVoidTypeKind && !c->primal_return)
    return zy_error(ZY_ERR_BAD_RETURN, c->fn, c->call,
                    "declare __enzyme_fwddiff as returning void here",
                    "the function's result has no tangent (it is not a "
                    "floating-point value or a pointer)");
  ZyTT *seeds = zy_abi_seeds(c);
  LLVMValueRef tf = zy_tangent(c->zm, c->fn, c->sig, seeds);
  zy_abi_free_seeds(c, seeds);
  if (!tf)
    return -1;
  LLVMValueRef r = LLVMBuildCall2(c->b, LLVMGlobalGetValueType(tf), tf, c->args,
                                  c->nargs, "");
  if (fk == LLVMVoidTypeKind || (rk == LLVMVoidTypeKind && !c->out)) {
    LLVMInstructionEraseFromParent(c->call);
    return 0;
  }
  LLVMValueRef v = r;
  if (!c->primal_return && c->width == 1) { /* the tangent alone */
    LLVMValueRef t = LLVMBuildExtractValue(c->b, r, 1, "");
    if (!c->out && c->rt == fret) {
      LLVMReplaceAllUsesWith(c->call, t);
      LLVMInstructionEraseFromParent(c->call);
      return 0;
    }
    LLVMTypeRef ft = LLVMStructTypeInContext(c->zm->ctx, &fret, 1, 0);
    v = LLVMBuildInsertValue(c->b, LLVMGetUndef(ft), t, 0, "");
  } else if (!c->primal_return) { /* the N tangents, as Enzyme's [N x T] */
    LLVMTypeRef fields[64];
    for (unsigned j = 0; j < c->width; j++)
      fields[j] = fret;
    v = LLVMGetUndef(LLVMStructTypeInContext(c->zm->ctx, fields, c->width, 0));
    for (unsigned j = 0; j < c->width; j++)
      v = LLVMBuildInsertValue(
          c->b, v, LLVMBuildExtractValue(c->b, r, 1 + j, ""), j, "");
  }
  if (zy_abi_pack(c, v, "result", HINT))
    return -1;
  LLVMInstructionEraseFromParent(c->call);
  return 0;
}

int zy_lower_fwddiff_call(ZyModule *zm, LLVMValueRef call) {
  ZyCall c;
  int r = zy_abi_begin(&c, zm, call, 0);
  if (!r)
    r = lower(&c);
  zy_abi_end(&c);
  return r;
}
