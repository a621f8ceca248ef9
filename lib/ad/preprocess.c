/* preprocess.c - step 1 of a gradient: the function to differentiate is a
 * clone of the user's, simplified by the pre-AD pipeline, with indirect
 * calls of known targets made direct.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad.h"
#include "runtime.h"

#include "analysis/registry.h"
#include "ir/irutil.h"
#include "ir/rules.h"

#include <stdio.h>
#include <string.h>

/* The functions an indirect callee can be, through selects, phis and
 * casts; 0 when some value could be anything else. */
static int known_targets(LLVMValueRef v, ZyVec *out, int depth) {
  if (depth > 8 || out->len > 8)
    return 0;
  if (LLVMIsAFunction(v)) {
    if (!zy_vec_contains(out, v))
      zy_vec_push(out, v);
    return 1;
  }
  if (LLVMIsASelectInst(v))
    return known_targets(LLVMGetOperand(v, 1), out, depth + 1) &&
           known_targets(LLVMGetOperand(v, 2), out, depth + 1);
  if (LLVMIsAPHINode(v)) {
    for (unsigned k = 0; k < LLVMCountIncoming(v); k++)
      if (!known_targets(LLVMGetIncomingValue(v, k), out, depth + 1))
        return 0;
    return 1;
  }
  if (LLVMIsABitCastInst(v) || (LLVMIsAConstantExpr(v) &&
                                LLVMGetConstOpcode(v) == LLVMBitCast))
    return known_targets(LLVMGetOperand(v, 0), out, depth + 1);
  return 0;
}

/* Step 1b: an indirect call whose possible targets are known becomes
 * direct calls, one per target, chosen by comparing the pointer. */
static void promote_indirect_calls(LLVMValueRef fn) {
  ZyVec calls = {0};
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMIsACallInst(i) && !LLVMIsAFunction(LLVMGetCalledValue(i)) &&
          !LLVMIsAInlineAsm(LLVMGetCalledValue(i)))
        zy_vec_push(&calls, i);
  for (size_t k = 0; k < calls.len; k++) {
    ZyVec targets = {0};
    if (known_targets(LLVMGetCalledValue(calls.data[k]), &targets, 0))
      for (size_t t = 0; t < targets.len; t++)
        if (!zy_llvm_promote_call(calls.data[k], targets.data[t],
                                  t + 1 < targets.len))
          break;
    zy_vec_free(&targets);
  }
  zy_vec_free(&calls);
}

/* Whether a call of `f` converts a float to its bits or bits to a float
 * (one parameter; a scalar float and an integer of the same width), as
 * helpers built on memcpy or unions do. */
static int is_bit_helper(LLVMValueRef f) {
  if (!f || !LLVMIsAFunction(f) || LLVMIsDeclaration(f) ||
      LLVMCountParams(f) != 1 || zy_registry_any_custom(f) ||
      zy_registry_function_like(f) || zy_activity_inactive_function(f))
    return 0;
  LLVMTypeRef a = LLVMTypeOf(LLVMGetParam(f, 0));
  LLVMTypeRef r = LLVMGetReturnType(LLVMGlobalGetValueType(f));
  LLVMTypeRef i = LLVMGetTypeKind(a) == LLVMIntegerTypeKind ? a : r;
  LLVMTypeRef x = i == a ? r : a;
  if (LLVMGetTypeKind(i) != LLVMIntegerTypeKind)
    return 0;
  unsigned w = LLVMGetIntTypeWidth(i);
  switch (LLVMGetTypeKind(x)) {
  case LLVMHalfTypeKind:
  case LLVMBFloatTypeKind:
    return w == 16;
  case LLVMFloatTypeKind:
    return w == 32;
  case LLVMDoubleTypeKind:
    return w == 64;
  default:
    return 0;
  }
}

/* Inlines the calls in `p` for which `pick` says yes (collected first:
 * inlining adds blocks); returns how many were inlined.  What an inlined
 * copy of snapshot.c calls is pointed at real functions first: a stand-in
 * is never inlined. */
static int inline_calls(LLVMValueRef p, int (*pick)(LLVMValueRef call)) {
  zy_snapshot_resolve(p);
  ZyVec calls = {0};
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(p); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMIsACallInst(i) && LLVMGetCalledValue(i) != p &&
          !zy_snapshot_stand_in(LLVMGetCalledValue(i)) && pick(i))
        zy_vec_push(&calls, i);
  int n = 0;
  for (size_t k = 0; k < calls.len; k++)
    n += zy_llvm_inline_call(calls.data[k]) != 0;
  zy_vec_free(&calls);
  zy_snapshot_resolve(p);
  return n;
}

/* Calls of bit helpers (is_bit_helper), inlined before the pipeline runs
 * so that floats moved through their bits stay visible (punning.c); a
 * call's integer result would otherwise carry no derivative. */
static int calls_bit_helper(LLVMValueRef call) {
  return is_bit_helper(LLVMGetCalledValue(call));
}

/* C++ code with cleanups allocates with `invoke` of operator new; such
 * an allocation becomes a call, whose memory gets a shadow like any
 * other (an allocation that fails then ends the program instead of
 * running the cleanups). */
static void calls_for_allocating_invokes(LLVMValueRef p) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(p); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    LLVMValueRef f = t && LLVMGetInstructionOpcode(t) == LLVMInvoke
                         ? LLVMGetCalledValue(t)
                         : NULL;
    if (f && LLVMIsAFunction(f) &&
        zy_activity_allocation_named(LLVMGetValueName(f)) != ZY_ALLOC_NONE)
      zy_llvm_invoke_to_call(t);
  }
}

/* Whether `f` may be inlined into the clone: a function with a body here
 * that the program registered nothing for, not variadic, and small. */
static int inlinable(LLVMValueRef f) {
  if (!f || !LLVMIsAFunction(f) || LLVMIsDeclaration(f) ||
      LLVMIsFunctionVarArg(LLVMGlobalGetValueType(f)) || zy_rule_for_call(f) ||
      zy_registry_any_custom(f) || zy_registry_function_like(f) ||
      zy_activity_inactive_function(f) || zy_registry_allocator(f) ||
      zy_registry_deallocator(f))
    return 0;
  unsigned n = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (++n > 400)
        return 0;
  return 1;
}

/* A call that receives the bits of a float as an integer argument (a
 * bitcast of a float), of a small function with a body: the callee may
 * turn them back into a float, and a call's integer argument carries no
 * derivative, so it is inlined after the pipeline. */
static int receives_bits(LLVMValueRef call) {
  if (!inlinable(LLVMGetCalledValue(call)) ||
      zy_parallel()->omp_is_region(call))
    return 0;
  for (unsigned k = 0; k < LLVMGetNumArgOperands(call); k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    if (LLVMIsABitCastInst(a) &&
        LLVMGetTypeKind(LLVMTypeOf(a)) == LLVMIntegerTypeKind &&
        zy_type_differentiable(LLVMTypeOf(LLVMGetOperand(a, 0))))
      return 1;
  }
  return 0;
}

static LLVMValueRef clone(LLVMValueRef fn, LLVMValueRef from) {
  char name[256];
  snprintf(name, sizeof name, "%s.zymase.primal", LLVMGetValueName(fn));
  LLVMValueRef p = zy_llvm_clone_function(from, name);
  zy_set_optnone(p, 0);
  zy_snapshot_resolve(p); /* a snapshot, or a copy of a callee of one */
  /* Parallel regions become calls of their body; extern __shared__:
   * one, generic. */
  zy_parallel()->omp_prepare(p);
  zy_parallel()->gpu_dynamic_shared_prepare(p);
  return p;
}

/* Step 1: a clone of the user's function, simplified by the pre-AD
 * pipeline.  optnone/noinline are removed so -O0 input is simplified.
 * When the function was copied before inlining (snapshot.c) and the
 * pipeline moves a call out of a loop in that copy, the copy is used,
 * with what the optimizer inlined into `fn` inlined after the move;
 * otherwise `fn` as the optimizer left it.  The copy is always used in
 * device code (`fn` holds the bodies of libdevice's math functions, which
 * the copy still calls) and where it calls a function the program
 * registered something for (a custom gradient, an inactive function: the
 * optimizer may have inlined it into `fn`); so is a copy `fn` itself, with
 * what the optimizer inlined into the function it copies. */
LLVMValueRef zy_preprocess(LLVMValueRef fn) {
  LLVMValueRef snap = zy_opt_preopt() ? zy_snapshot_of(fn) : NULL;
  LLVMValueRef optimized = fn, p = NULL;
  int device = zy_device_module(LLVMGetGlobalParent(fn));
  if (!snap && zy_opt_preopt() && zy_snapshot_original(fn) &&
      (device || zy_snapshot_calls_registered(fn))) {
    snap = fn;
    optimized = zy_snapshot_original(fn);
  }
  if (snap) {
    p = clone(fn, snap);
    calls_for_allocating_invokes(p);
    inline_calls(p, calls_bit_helper);
    while (inline_calls(p, zy_parallel()->gpu_wrapper))
      ;
    zy_llvm_infer_call_effects(p, zy_rule_call);
    int moved =
        zy_llvm_has_calls_in_loops(p) && zy_llvm_simplify_function(p, 2);
    if (moved || device || zy_snapshot_calls_registered(snap)) {
      zy_snapshot_inline(p, optimized);
      zy_llvm_simplify_function(p, 2);
    } else {
      LLVMDeleteFunction(p);
      p = NULL;
    }
  }
  if (!p) {
    p = clone(fn, fn);
    calls_for_allocating_invokes(p);
    inline_calls(p, calls_bit_helper);
    while (inline_calls(p, zy_parallel()->gpu_wrapper))
      ;
    if (zy_opt_preopt()) {
      zy_llvm_infer_call_effects(p, zy_rule_call);
      zy_llvm_simplify_function(p, 2);
    }
  }
  if (zy_opt_preopt() && inline_calls(p, receives_bits)) {
    inline_calls(p, calls_bit_helper); /* the bodies' own */
    zy_llvm_simplify_function(p, 2);
  }
  if (zy_opt_preopt()) /* the others: a twin taking the float */
    zy_punning_float_params(p);
  if (zy_opt_preopt()) {
    zy_llvm_forward_stores(p);
    zy_llvm_last_updates(p);
  }
  calls_for_allocating_invokes(p); /* from what was inlined */
  promote_indirect_calls(p);
  zy_parallel()->omp_type_regions(p);
  /* A double's two i32 shuffles: one call; extern __shared__ again, for
   * what was inlined. */
  zy_parallel()->gpu_shuffle_fuse(p);
  zy_parallel()->gpu_dynamic_shared_prepare(p);
  return p;
}
