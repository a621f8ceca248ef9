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
  unsigned n = LLVMCountParamTypes(fty);
  LLVMTypeRef params[65];
  LLVMGetParamTypes(fty, params);
  if (sig.active_ret)
    params[n++] = LLVMGetReturnType(fty);
  LLVMTypeRef gty =
      LLVMFunctionType(zy_gradient_return_type(fn, sig), params, n, 0);
  char name[256];
  snprintf(name, sizeof name, "__zymase_grad.%s.%llx%s",
           LLVMGetValueName(fn), sig.active_args, sig.active_ret ? "r" : "");
  LLVMValueRef g = LLVMAddFunction(LLVMGetGlobalParent(fn), name, gty);
  LLVMSetLinkage(g, LLVMInternalLinkage);
  return g;
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
      !zy_effects_first_write(callee, zy_rule_known))
    return 0;
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
      if (op == LLVMStore)
        return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                            "an active value is stored to memory; "
                            "derivatives through memory are not supported "
                            "yet");
      if (zy_activity_useful(g->act, i))
        return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                            "an active value flows through an instruction "
                            "that Zymase cannot differentiate");
    }
  return 0;
}

ZyVec *zy_preds(ZyGen *g, LLVMBasicBlockRef bb) {
  return zy_map_get(&g->preds, bb);
}

/* Step 5: returning blocks, distinct predecessors, and which blocks
 * dominate every return (their values are available to the whole reverse
 * sweep without caching). */
static void analyse_cfg(ZyGen *g) {
  LLVMValueRef f = g->primal;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
       bb = LLVMGetNextBasicBlock(bb))
    zy_map_put(&g->preds, bb, calloc(1, sizeof(ZyVec)));
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
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
}

static void verify_step(ZyGen *g, LLVMValueRef fn, const char *step) {
  if (zy_opt_verify_steps() && zy_llvm_verify_function(fn))
    fprintf(stderr, "zymase: invalid IR in '%s' after %s\n",
            LLVMGetValueName(fn), step);
}

/* Step 9: close the entry block, drop the primal clone, optimize. */
static void finish(ZyGen *g) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(g->zm->ctx);
  LLVMPositionBuilderAtEnd(b, g->allocas);
  LLVMBuildBr(b, zy_map_get(&g->vmap, LLVMGetEntryBasicBlock(g->primal)));
  LLVMDisposeBuilder(b);
  verify_step(g, g->grad, "the reverse sweep");
  if (zy_opt_postopt())
    zy_llvm_simplify_function(g->grad, 2);
  verify_step(g, g->grad, "post-AD optimization");
  if (zy_opt_print_gradient()) {
    char *s = LLVMPrintValueToString(g->grad);
    fprintf(stderr, "%s\n", s);
    LLVMDisposeMessage(s);
  }
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
  zy_vec_free(&g->rets);
  zy_activity_free(g->act);
  if (g->dt)
    zy_llvm_domtree_free(g->dt);
  if (g->b)
    LLVMDisposeBuilder(g->b);
  if (g->primal)
    LLVMDeleteFunction(g->primal);
}

static int build_gradient(ZyGen *g) {
  g->primal = preprocess(g->user);                                /* 1 */
  verify_step(g, g->primal, "the pre-AD pipeline");
  if (check_control_flow(g))                                      /* 2 */
    return -1;
  g->act = zy_activity_compute(g->primal, g->sig.active_args,     /* 3 */
                               g->sig.active_ret);
  if (check_flows(g))                                             /* 4 */
    return -1;
  analyse_cfg(g);                                                 /* 5 */
  create_blocks(g);                                               /* 6 */
  g->b = LLVMCreateBuilderInContext(g->zm->ctx);
  if (zy_forward_sweep(g))                                        /* 7 */
    return -1;
  if (zy_reverse_sweep(g))                                        /* 8 */
    return -1;
  finish(g);                                                      /* 9 */
  return 0;
}

static int same_sig(ZySig a, ZySig b) {
  return a.active_args == b.active_args && a.active_ret == b.active_ret;
}

/* A failed gradient keeps no body: it becomes an external declaration so
 * the module stays valid while the compilation fails on the error. */
static void discard_body(LLVMValueRef grad) {
  LLVMBasicBlockRef bb;
  while ((bb = LLVMGetFirstBasicBlock(grad)))
    LLVMDeleteBasicBlock(bb);
  LLVMSetLinkage(grad, LLVMExternalLinkage);
}

LLVMValueRef zy_gradient(ZyModule *zm, LLVMValueRef fn, ZySig sig) {
  for (size_t i = 0; i < zm->grads.len; i++) {
    ZyGradEntry *e = zm->grads.data[i];
    if (e->fn == fn && same_sig(e->sig, sig))
      return e->failed ? NULL : e->grad;
  }
  ZyGradEntry *e = calloc(1, sizeof *e);
  e->fn = fn;
  e->sig = sig;
  e->grad = declare_gradient(fn, sig);
  zy_vec_push(&zm->grads, e);

  ZyGen g = {.zm = zm, .user = fn, .grad = e->grad, .sig = sig};
  int err = build_gradient(&g);
  free_gen(&g);
  if (err) {
    e->failed = 1;
    discard_body(e->grad);
    return NULL;
  }
  return e->grad;
}
