/* gradient.c - generates the gradient of one function: the steps, in
 * order, are listed in build_gradient().
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad.h"

#include "analysis/effects.h"
#include "rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *const YES = (void *)1;

LLVMTypeRef zy_gradient_return_type(LLVMValueRef fn, ZySig sig) {
  LLVMTypeRef fty = LLVMGlobalGetValueType(fn);
  unsigned n = LLVMCountParamTypes(fty), k = 0;
  LLVMTypeRef params[64], fields[64];
  LLVMGetParamTypes(fty, params);
  for (unsigned i = 0; i < n && i < 64; i++)
    if (sig.active_args >> i & 1)
      fields[k++] = params[i];
  LLVMContextRef c = LLVMGetTypeContext(fty);
  return k ? LLVMStructTypeInContext(c, fields, k, 0) : LLVMVoidTypeInContext(c);
}

/* The gradient's declaration: primal parameters, then the return
 * adjoint; returns the argument adjoints. */
static LLVMValueRef declare_gradient(LLVMValueRef fn, ZySig sig) {
  LLVMTypeRef fty = LLVMGlobalGetValueType(fn);
  unsigned n = LLVMCountParamTypes(fty), np = n;
  LLVMTypeRef params[130];
  LLVMGetParamTypes(fty, params);
  for (unsigned i = 0; i < np; i++)
    if (sig.dup_args >> i & 1)
      params[n++] = params[i];
  if (sig.active_ret)
    params[n++] = LLVMGetReturnType(fty);
  LLVMTypeRef gty =
      LLVMFunctionType(zy_gradient_return_type(fn, sig), params, n, 0);
  char name[256], dups[24] = "";
  if (sig.dup_args)
    snprintf(dups, sizeof dups, ".d%llx", sig.dup_args);
  snprintf(name, sizeof name, "__zymase_%s.%s.%llx%s%s",
           sig.split ? "combined" : "grad", LLVMGetValueName(fn),
           sig.active_args, dups, sig.active_ret ? "r" : "");
  LLVMValueRef g = LLVMAddFunction(LLVMGetGlobalParent(fn), name, gty);
  LLVMSetLinkage(g, LLVMInternalLinkage);
  return g;
}

/* Split mode's pair.  aug(params, shadows) -> { result?, ptr tape };
 * rev(params, shadows, dret?, ptr tape) -> adjoints. */
static void declare_split(LLVMValueRef fn, ZySig sig, LLVMValueRef *aug,
                          LLVMValueRef *rev) {
  LLVMTypeRef fty = LLVMGlobalGetValueType(fn);
  LLVMContextRef c = LLVMGetTypeContext(fty);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  unsigned n = LLVMCountParamTypes(fty), np = n;
  LLVMTypeRef params[131], ret = LLVMGetReturnType(fty), fields[2];
  LLVMGetParamTypes(fty, params);
  for (unsigned i = 0; i < np; i++)
    if (sig.dup_args >> i & 1)
      params[n++] = params[i];
  unsigned nf = 0;
  if (LLVMGetTypeKind(ret) != LLVMVoidTypeKind)
    fields[nf++] = ret;
  fields[nf++] = ptr;
  char name[256];
  snprintf(name, sizeof name, "__zymase_aug.%s.%llx.d%llx%s",
           LLVMGetValueName(fn), sig.active_args, sig.dup_args,
           sig.active_ret ? "r" : "");
  *aug = LLVMAddFunction(
      LLVMGetGlobalParent(fn), name,
      LLVMFunctionType(LLVMStructTypeInContext(c, fields, nf, 0), params, n, 0));
  if (sig.active_ret)
    params[n++] = ret;
  params[n++] = ptr;
  name[9] = 'r', name[10] = 'e', name[11] = 'v'; /* __zymase_rev */
  *rev = LLVMAddFunction(
      LLVMGetGlobalParent(fn), name,
      LLVMFunctionType(zy_gradient_return_type(fn, sig), params, n, 0));
  LLVMSetLinkage(*aug, LLVMInternalLinkage);
  LLVMSetLinkage(*rev, LLVMInternalLinkage);
}

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

/* Step 1: a clone of the user's function, simplified by the pre-AD
 * pipeline.  optnone/noinline are removed so -O0 input is simplified. */
static LLVMValueRef preprocess(LLVMValueRef fn) {
  char name[256];
  snprintf(name, sizeof name, "%s.zymase.primal", LLVMGetValueName(fn));
  LLVMValueRef p = zy_llvm_clone_function(fn, name);
  static const char *const drop[] = {"optnone", "noinline"};
  for (int i = 0; i < 2; i++) {
    unsigned kind = LLVMGetEnumAttributeKindForName(drop[i], strlen(drop[i]));
    LLVMRemoveEnumAttributeAtIndex(p, LLVMAttributeFunctionIndex, kind);
  }
  if (zy_opt_preopt())
    zy_llvm_simplify_function(p, 2);
  promote_indirect_calls(p);
  return p;
}

/* Step 2: control flow the reverse sweep handles (acyclic for now). */
static int check_control_flow(ZyGen *g) {
  LLVMBasicBlockRef cyc = zy_llvm_find_cycle(g->primal);
  if (!cyc)
    return 0;
  /* Point at the block's first instruction that has a source location. */
  LLVMValueRef at = LLVMGetBasicBlockTerminator(cyc);
  for (LLVMValueRef i = LLVMGetFirstInstruction(cyc); i;
       i = LLVMGetNextInstruction(i))
    if (LLVMGetDebugLocLine(i)) {
      at = i;
      break;
    }
  return zy_error(ZY_ERR_UNSUPPORTED, g->user, at,
                  "a loop with a small constant trip count is unrolled "
                  "and works; tail recursion is turned into a loop at -O2",
                  "the function contains a loop (after optimization); "
                  "loops are not differentiated yet");
}

/* Whether `p` points into a global the user marked inactive. */
static int stores_to_inactive_global(LLVMValueRef p) {
  while (LLVMIsAGetElementPtrInst(p) || LLVMIsABitCastInst(p) ||
         (LLVMIsAConstantExpr(p) && !LLVMIsAGlobalValue(p)))
    p = LLVMGetOperand(p, 0);
  return LLVMIsAGlobalVariable(p) && zy_activity_inactive_global(p);
}

/* A call that receives an active value: fine when derivatives can only
 * leave it through its result (math functions, calls that only read
 * memory, functions whose bodies write nothing outside their frame) or
 * when it only prints. */
static int check_call_flow(ZyGen *g, LLVMValueRef call) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  if (zy_rule_for_call(callee) || zy_llvm_call_reads_only(call) ||
      zy_activity_inactive_function(callee))
    return 0;
  if (callee && LLVMIsAFunction(callee) && !LLVMIsDeclaration(callee) &&
      !LLVMIsFunctionVarArg(LLVMGlobalGetValueType(callee)))
    return 0; /* differentiated through its own gradient */
  if (callee && LLVMIsAFunction(callee) && LLVMIsDeclaration(callee) &&
      zy_activity_useful(g->act, call) && zy_activity_varied(g->act, call))
    return 0; /* reported by the reverse sweep as a missing rule */
  g->cur = call;
  return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                      "pass the value as a return value, or mark the "
                      "argument enzyme_const",
                      "an active value is passed to a call that may write "
                      "memory; derivatives through memory are not "
                      "supported yet");
}

/* Step 4: every place where an active value flows into something that
 * does not propagate derivatives must be one where dropping the
 * derivative is right (comparisons, float-to-int conversion, calls
 * without effects on memory).  Anything else would silently lose
 * derivatives. */
static int check_flows(ZyGen *g) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      int nops = LLVMGetNumOperands(i), varied = 0;
      for (int k = 0; k < nops; k++)
        varied |= zy_activity_varied(g->act, LLVMGetOperand(i, k));
      if (!varied)
        continue;
      LLVMOpcode op = LLVMGetInstructionOpcode(i);
      if (op == LLVMCall) {
        if (check_call_flow(g, i))
          return -1;
        continue;
      }
      /* Extracting an integer member of an active aggregate is fine. */
      if (zy_activity_varied(g->act, i) || op == LLVMFCmp ||
          op == LLVMFPToSI || op == LLVMFPToUI || op == LLVMRet ||
          op == LLVMBr || op == LLVMSwitch || op == LLVMExtractValue ||
          op == LLVMExtractElement)
        continue;
      g->cur = i;
      if (op == LLVMStore &&
          zy_activity_shadowed(g->act, LLVMGetOperand(i, 1)))
        continue; /* into shadowed memory: reversed */
      if (op == LLVMStore && stores_to_inactive_global(LLVMGetOperand(i, 1)))
        continue; /* dropped on purpose */
      if (op == LLVMStore)
        return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                            "pass the memory with enzyme_dup (or as a "
                            "pointer argument) so that it has a shadow",
                            "an active value is stored to memory that has "
                            "no shadow (a global, or memory reached through "
                            "an enzyme_const pointer)");
      if (zy_activity_useful(g->act, i))
        return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                            "an active value flows through an instruction "
                            "that Zymase cannot differentiate");
    }
  return 0;
}

static int is_null(LLVMValueRef v) {
  return LLVMIsAConstantPointerNull(v) || LLVMIsUndef(v) || LLVMIsPoison(v);
}

/* Calls that may receive shadowed pointers: the ones the memory rules
 * know, and ones that cannot write through their arguments. */
static int call_takes_shadowed(LLVMValueRef call) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  const char *name = callee && LLVMIsAFunction(callee)
                         ? LLVMGetValueName(callee)
                         : "";
  return zy_activity_allocation(call) == ZY_ALLOC_MALLOC ||
         zy_activity_allocation(call) == ZY_ALLOC_CALLOC ||
         zy_activity_allocation(call) == ZY_ALLOC_ALIGNED ||
         zy_activity_deallocation(call) || !strncmp(name, "llvm.mem", 8) ||
         !strncmp(name, "llvm.lifetime.", 14) ||
         !strncmp(name, "llvm.dbg.", 9) || !strcmp(name, "llvm.assume") ||
         zy_activity_inactive_function(callee);
}

/* Whether integer `v` is (bits of) a value loaded from shadowed memory,
 * through integer operations. */
static int int_from_shadowed_memory(ZyGen *g, LLVMValueRef v, int depth) {
  if (depth > 16 || !LLVMIsAInstruction(v))
    return 0;
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMLoad:
    return zy_activity_shadowed(g->act, LLVMGetOperand(v, 0));
  case LLVMTrunc:
  case LLVMZExt:
  case LLVMSExt:
  case LLVMLShr:
  case LLVMAShr:
  case LLVMShl:
  case LLVMAnd:
  case LLVMOr:
  case LLVMXor:
  case LLVMBitCast:
  case LLVMExtractElement:
  case LLVMFreeze:
    for (int k = 0; k < LLVMGetNumOperands(v) && k < 2; k++)
      if (int_from_shadowed_memory(g, LLVMGetOperand(v, k), depth + 1))
        return 1;
    return 0;
  case LLVMPHI:
  case LLVMSelect:
    for (int k = 0; k < LLVMGetNumOperands(v); k++)
      if (int_from_shadowed_memory(g, LLVMGetOperand(v, k), depth + 1))
        return 1;
    return 0;
  default:
    return 0;
  }
}

/* Step 4b: memory operations on shadowed pointers that the sweeps know
 * how to mirror on the shadows. */
static int check_memory(ZyGen *g) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      LLVMOpcode op = LLVMGetInstructionOpcode(i);
      g->cur = i;
      if (op == LLVMStore) {
        LLVMValueRef v = LLVMGetOperand(i, 0), p = LLVMGetOperand(i, 1);
        int sv = zy_activity_shadowed(g->act, v);
        if (sv && !zy_activity_shadowed(g->act, p))
          return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                              "a pointer to memory that has a shadow is "
                              "stored to memory that has none");
        if (!zy_activity_shadowed(g->act, p) ||
            zy_type_differentiable(LLVMTypeOf(v)) || sv || is_null(v))
          continue;
        if (LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMPointerTypeKind)
          return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                              "a pointer without a shadow is stored to "
                              "memory that has one");
        if (zy_ty_is_float(zy_types_memory(g->types, p, 0)) &&
            !LLVMIsAConstant(v))
          return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                              "floating-point data is stored as an integer; "
                              "copying floats through integers is not "
                              "supported yet");
      } else if (op == LLVMLoad) {
        LLVMValueRef p = LLVMGetOperand(i, 0);
        if (zy_activity_shadowed(g->act, p) &&
            LLVMGetTypeKind(LLVMTypeOf(i)) == LLVMIntegerTypeKind &&
            zy_ty_is_float(zy_types_memory(g->types, p, 0)))
          return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                              "floating-point data is loaded as an integer; "
                              "copying floats through integers is not "
                              "supported yet");
      } else if (op == LLVMCall) {
        LLVMValueRef callee = LLVMGetCalledValue(i);
        if ((call_takes_shadowed(i) &&
             zy_activity_allocation(i) != ZY_ALLOC_REALLOC) ||
            (callee && LLVMIsAFunction(callee) && !LLVMIsDeclaration(callee) &&
             !LLVMIsFunctionVarArg(LLVMGlobalGetValueType(callee))))
          continue;
        if (zy_activity_allocation(i) == ZY_ALLOC_REALLOC)
          return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                              "realloc is not supported yet");
        for (unsigned k = 0; k < LLVMGetNumArgOperands(i); k++)
          if (zy_activity_shadowed(g->act, LLVMGetOperand(i, k)))
            return ZY_GEN_ERROR(
                g, ZY_ERR_UNSUPPORTED,
                "pass the argument with enzyme_const if no derivative "
                "flows through its memory",
                "calls that receive pointers to memory with a shadow are "
                "not supported yet");
      } else if (op == LLVMBitCast && int_from_shadowed_memory(
                                          g, LLVMGetOperand(i, 0), 0) &&
                 zy_type_differentiable(LLVMTypeOf(i))) {
        return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                            "floating-point data moves through integers "
                            "(an integer load of memory with a shadow, "
                            "reinterpreted as a float); this is not "
                            "supported yet");
      } else if (op == LLVMIntToPtr || op == LLVMAtomicRMW ||
                 op == LLVMAtomicCmpXchg) {
        for (LLVMBasicBlockRef b2 = LLVMGetFirstBasicBlock(g->primal); b2;
             b2 = LLVMGetNextBasicBlock(b2))
          for (LLVMValueRef j = LLVMGetFirstInstruction(b2); j;
               j = LLVMGetNextInstruction(j))
            if (zy_activity_shadowed(g->act, j) ||
                (LLVMGetNumOperands(j) &&
                 zy_activity_shadowed(g->act, LLVMGetOperand(j, 0))))
              return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                                  "integer-to-pointer casts and atomics "
                                  "in functions that use memory with a "
                                  "shadow are not supported yet");
      }
    }
  return 0;
}

ZyVec *zy_preds(ZyGen *g, LLVMBasicBlockRef bb) {
  return zy_map_get(&g->preds, bb);
}

/* Primal blocks in reverse post-order: a block's dominators come before
 * it, so each copied instruction's operands are already copied. */
static void reverse_post_order(LLVMValueRef fn, ZyVec *out) {
  ZyVec stack = {0}, post = {0};
  ZyMap seen = {0};
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
  zy_vec_push(&stack, entry);
  zy_map_put(&seen, entry, (void *)1);
  /* Iterative DFS; a block is finished when all successors are seen. */
  ZyMap next = {0}; /* block -> index of the next successor to visit + 1 */
  while (stack.len) {
    LLVMBasicBlockRef bb = stack.data[stack.len - 1];
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    unsigned k = (unsigned)(size_t)zy_map_get(&next, bb);
    unsigned n = t ? LLVMGetNumSuccessors(t) : 0;
    if (k < n) {
      zy_map_put(&next, bb, (void *)(size_t)(k + 1));
      LLVMBasicBlockRef s = LLVMGetSuccessor(t, k);
      if (!zy_map_has(&seen, s)) {
        zy_map_put(&seen, s, (void *)1);
        zy_vec_push(&stack, s);
      }
      continue;
    }
    stack.len--;
    zy_vec_push(&post, bb);
  }
  for (size_t i = post.len; i-- > 0;)
    zy_vec_push(out, post.data[i]);
  zy_vec_free(&stack);
  zy_vec_free(&post);
  zy_map_free(&seen);
  zy_map_free(&next);
}

/* Step 5: reachable blocks in reverse post-order, returning blocks,
 * distinct reachable predecessors, and which blocks dominate every return
 * (their values are available to the whole reverse sweep without
 * caching). */
static void analyse_cfg(ZyGen *g) {
  LLVMValueRef f = g->primal;
  reverse_post_order(f, &g->order);
  for (size_t k = 0; k < g->order.len; k++)
    zy_map_put(&g->reachable, g->order.data[k], YES);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
       bb = LLVMGetNextBasicBlock(bb))
    zy_map_put(&g->preds, bb, calloc(1, sizeof(ZyVec)));
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    if (!zy_map_has(&g->reachable, bb))
      continue;
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    if (LLVMGetInstructionOpcode(t) == LLVMRet)
      zy_vec_push(&g->rets, bb);
    unsigned n = LLVMGetNumSuccessors(t);
    for (unsigned k = 0; k < n; k++) {
      ZyVec *p = zy_preds(g, LLVMGetSuccessor(t, k));
      if (!zy_vec_contains(p, bb))
        zy_vec_push(p, bb);
    }
  }
  g->dt = zy_llvm_domtree_new(f);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    int all = 1;
    for (size_t r = 0; r < g->rets.len && all; r++)
      all = zy_llvm_domtree_dominates(g->dt, bb, g->rets.data[r]);
    if (all)
      zy_map_put(&g->domrets, bb, YES);
  }
}

/* Step 6: the gradient's entry block (adjoint and cache slots live there)
 * and one empty reverse block per primal block. */
static void create_blocks(ZyGen *g) {
  LLVMContextRef c = g->zm->ctx;
  g->allocas = LLVMAppendBasicBlockInContext(c, g->grad, "zymase.slots");
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMBasicBlockRef fb = LLVMAppendBasicBlockInContext(
        c, g->grad, LLVMGetBasicBlockName(bb));
    zy_map_put(&g->vmap, bb, fb);
    zy_map_put(&g->vmap, LLVMBasicBlockAsValue(bb), LLVMBasicBlockAsValue(fb));
  }
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    char name[128];
    snprintf(name, sizeof name, "reverse.%s", LLVMGetBasicBlockName(bb));
    zy_map_put(&g->rblock, bb,
               LLVMAppendBasicBlockInContext(c, g->grad, name));
  }
  if (g->split)
    g->rstart = LLVMAppendBasicBlockInContext(c, g->grad, "reverse.start");
}

static void verify_step(ZyGen *g, LLVMValueRef fn, const char *step) {
  if (zy_opt_verify_steps() && zy_llvm_verify_function(fn))
    fprintf(stderr, "zymase: invalid IR in '%s' after %s\n",
            LLVMGetValueName(fn), step);
}

static void optimize_and_print(ZyGen *g, LLVMValueRef fn) {
  verify_step(g, fn, "the reverse sweep");
  if (zy_opt_postopt())
    zy_llvm_simplify_function(fn, 2);
  verify_step(g, fn, "post-AD optimization");
  if (zy_opt_print_gradient()) {
    char *s = LLVMPrintValueToString(fn);
    fprintf(stderr, "%s\n", s);
    LLVMDisposeMessage(s);
  }
}

/* Step 9: close the entry block, split (in split mode), optimize. */
static void finish(ZyGen *g, LLVMValueRef aug, LLVMValueRef rev) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(g->zm->ctx);
  LLVMPositionBuilderAtEnd(b, g->allocas);
  LLVMBuildBr(b, zy_map_get(&g->vmap, LLVMGetEntryBasicBlock(g->primal)));
  LLVMDisposeBuilder(b);
  if (!g->split) {
    optimize_and_print(g, g->grad);
    return;
  }
  verify_step(g, g->grad, "the sweeps (before splitting)");
  zy_split(g, aug, rev);
  g->grad = NULL;
  optimize_and_print(g, aug);
  optimize_and_print(g, rev);
}

static void free_gen(ZyGen *g) {
  for (size_t i = 0; i < g->preds.order.len; i++) {
    ZyVec *p = zy_map_get(&g->preds, g->preds.order.data[i]);
    zy_vec_free(p);
    free(p);
  }
  zy_map_free(&g->preds);
  zy_map_free(&g->domrets);
  zy_map_free(&g->vmap);
  zy_map_free(&g->adjoint);
  zy_map_free(&g->cache);
  zy_map_free(&g->rblock);
  zy_map_free(&g->predidx);
  zy_map_free(&g->shadow);
  zy_map_free(&g->tapes);
  zy_vec_free(&g->tape);
  zy_vec_free(&g->retblocks);
  zy_vec_free(&g->retvals);
  zy_map_free(&g->reachable);
  zy_vec_free(&g->order);
  zy_types_free(g->types);
  zy_vec_free(&g->rets);
  zy_activity_free(g->act);
  if (g->dt)
    zy_llvm_domtree_free(g->dt);
  if (g->b)
    LLVMDisposeBuilder(g->b);
  if (g->primal)
    LLVMDeleteFunction(g->primal);
}

static int build_gradient(ZyGen *g, LLVMValueRef aug, LLVMValueRef rev) {
  g->primal = preprocess(g->user);                                /* 1 */
  verify_step(g, g->primal, "the pre-AD pipeline");
  if (check_control_flow(g))                                      /* 2 */
    return -1;
  g->act = zy_activity_compute(g->primal, g->sig.active_args,     /* 3 */
                               g->sig.dup_args, g->sig.active_ret);
  g->types = zy_types_analyze(g->primal, g->seeds);
  if (check_flows(g) || check_memory(g))                          /* 4 */
    return -1;
  analyse_cfg(g);                                                 /* 5 */
  create_blocks(g);                                               /* 6 */
  g->b = LLVMCreateBuilderInContext(g->zm->ctx);
  if (zy_forward_sweep(g))                                        /* 7 */
    return -1;
  if (zy_reverse_sweep(g))                                        /* 8 */
    return -1;
  finish(g, aug, rev);                                            /* 9 */
  return 0;
}

static int same_sig(ZySig a, ZySig b) {
  return a.active_args == b.active_args && a.dup_args == b.dup_args &&
         a.active_ret == b.active_ret && a.split == b.split;
}

/* A failed gradient keeps no body: it becomes an external declaration so
 * the module stays valid while the compilation fails on the error. */
static void discard_body(LLVMValueRef grad) {
  LLVMBasicBlockRef bb;
  while ((bb = LLVMGetFirstBasicBlock(grad)))
    LLVMDeleteBasicBlock(bb);
  LLVMSetLinkage(grad, LLVMExternalLinkage);
}

static ZyGradEntry *generate(ZyModule *zm, LLVMValueRef fn, ZySig sig,
                             const ZyTT *seeds) {
  for (size_t i = 0; i < zm->grads.len; i++) {
    ZyGradEntry *e = zm->grads.data[i];
    if (e->fn == fn && same_sig(e->sig, sig))
      return e;
  }
  ZyGradEntry *e = calloc(1, sizeof *e);
  e->fn = fn;
  e->sig = sig;
  if (sig.split)
    declare_split(fn, sig, &e->grad, &e->rev);
  else
    e->grad = declare_gradient(fn, sig);
  zy_vec_push(&zm->grads, e);

  /* Split mode builds one combined function first, then splits it. */
  LLVMValueRef work = sig.split ? declare_gradient(fn, sig) : e->grad;
  ZyGen g = {.zm = zm, .user = fn, .grad = work, .sig = sig,
             .split = sig.split, .seeds = seeds};
  int err = build_gradient(&g, e->grad, e->rev);
  free_gen(&g);
  if (err) {
    e->failed = 1;
    discard_body(e->grad);
    if (e->rev)
      discard_body(e->rev);
    if (sig.split && g.grad)
      LLVMDeleteFunction(work);
  }
  return e;
}

LLVMValueRef zy_gradient(ZyModule *zm, LLVMValueRef fn, ZySig sig,
                         const ZyTT *seeds) {
  ZyGradEntry *e = generate(zm, fn, sig, seeds);
  return e->failed ? NULL : e->grad;
}

int zy_gradient_split(ZyModule *zm, LLVMValueRef fn, ZySig sig,
                      const ZyTT *seeds, LLVMValueRef *aug, LLVMValueRef *rev) {
  sig.split = 1;
  ZyGradEntry *e = generate(zm, fn, sig, seeds);
  *aug = e->grad;
  *rev = e->rev;
  return e->failed ? -1 : 0;
}
