/* gradient.c - generates the gradient of one function: the steps, in
 * order, are listed in build_gradient().
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad.h"

#include "cache.h"

#include "analysis/registry.h"
#include "custom.h"
#include "runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *const YES = (void *)1;

LLVMTypeRef zy_gradient_return_type(LLVMValueRef fn, ZySig sig) {
  LLVMTypeRef fty = LLVMGlobalGetValueType(fn);
  unsigned n = LLVMCountParamTypes(fty), k = 0, w = ZY_LANES(sig);
  LLVMTypeRef params[64], *fields = malloc(64 * w * sizeof *fields);
  LLVMGetParamTypes(fty, params);
  for (unsigned i = 0; i < n && i < 64; i++)
    for (unsigned j = 0; j < w && (sig.active_args >> i & 1); j++)
      fields[k++] = params[i]; /* vector mode: the lanes in a row */
  LLVMContextRef c = LLVMGetTypeContext(fty);
  LLVMTypeRef t =
      k ? LLVMStructTypeInContext(c, fields, k, 0) : LLVMVoidTypeInContext(c);
  free(fields);
  return t;
}

/* The gradient's declaration: primal parameters, then the return
 * adjoint; returns the argument adjoints. */
/* C++ functions with cleanups or catches have landing pads, which the
 * sweeps copy: the gradient needs the primal's personality function. */
static void same_personality(LLVMValueRef g, LLVMValueRef fn) {
  if (LLVMHasPersonalityFn(fn))
    LLVMSetPersonalityFn(g, LLVMGetPersonalityFn(fn));
}

/* The parameters of a gradient (or split pair): fn's, then w shadows of
 * each dup argument (vector mode: the lanes in a row), then when `dret`
 * w return adjoints; one more slot is left free.  Free() the array. */
static LLVMTypeRef *gradient_params(LLVMValueRef fn, ZySig sig, int dret,
                                    unsigned *n) {
  LLVMTypeRef fty = LLVMGlobalGetValueType(fn);
  unsigned np = LLVMCountParamTypes(fty), w = ZY_LANES(sig);
  LLVMTypeRef *params = malloc((np * (w + 1) + w + 2) * sizeof *params);
  LLVMGetParamTypes(fty, params);
  *n = np;
  for (unsigned i = 0; i < np; i++)
    for (unsigned j = 0; j < w && (sig.dup_args >> i & 1); j++)
      params[(*n)++] = params[i];
  for (unsigned j = 0; j < w && dret; j++)
    params[(*n)++] = LLVMGetReturnType(fty);
  return params;
}

static LLVMValueRef declare_gradient(LLVMValueRef fn, ZySig sig) {
  unsigned n;
  LLVMTypeRef *params = gradient_params(fn, sig, sig.active_ret, &n);
  LLVMTypeRef gty =
      LLVMFunctionType(zy_gradient_return_type(fn, sig), params, n, 0);
  free(params);
  char name[256], dups[24] = "", width[16] = "";
  if (sig.dup_args)
    snprintf(dups, sizeof dups, ".d%llx", sig.dup_args);
  if (sig.width > 1)
    snprintf(width, sizeof width, ".w%u", sig.width);
  snprintf(name, sizeof name, "__zymase_%s.%s.%llx%s%s%s",
           sig.split ? "combined" : "grad", LLVMGetValueName(fn),
           sig.active_args, dups, sig.active_ret ? "r" : "", width);
  LLVMValueRef g = LLVMAddFunction(LLVMGetGlobalParent(fn), name, gty);
  LLVMSetLinkage(g, LLVMInternalLinkage);
  same_personality(g, fn);
  return g;
}

/* Split mode's pair.  aug(params, shadows) -> { result?, shadows of the
 * result?, ptr tape }; rev(params, shadows, drets?, ptr tape) ->
 * adjoints.  Inline tape: aug(params, shadows, ptr tape) -> { result? }
 * (void without one).  Vector mode: each shadow and dret w times. */
static void declare_split(LLVMValueRef fn, ZySig sig, LLVMValueRef *aug,
                          LLVMValueRef *rev) {
  LLVMTypeRef fty = LLVMGlobalGetValueType(fn);
  LLVMContextRef c = LLVMGetTypeContext(fty);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  unsigned n, w = ZY_LANES(sig);
  LLVMTypeRef *params = gradient_params(fn, sig, 0, &n);
  LLVMTypeRef ret = LLVMGetReturnType(fty), fields[67];
  unsigned nf = 0;
  if (LLVMGetTypeKind(ret) != LLVMVoidTypeKind)
    fields[nf++] = ret;
  for (unsigned j = 0; j < w && sig.dup_ret; j++)
    fields[nf++] = ret;
  if (!sig.inline_tape)
    fields[nf++] = ptr;
  char name[256], width[16] = "";
  if (sig.width > 1)
    snprintf(width, sizeof width, ".w%u", sig.width);
  snprintf(name, sizeof name, "__zymase_aug.%s.%llx.d%llx%s%s%s%s%s",
           LLVMGetValueName(fn), sig.active_args, sig.dup_args,
           sig.active_ret ? "r" : "", sig.dup_ret ? "s" : "",
           sig.nofree ? ".nofree" : "", sig.inline_tape ? ".inline" : "",
           width);
  if (sig.inline_tape)
    params[n] = ptr; /* aug's only: the caller's memory for the tape */
  /* (an empty struct would be an incomplete return array for nvptx) */
  LLVMTypeRef aret =
      nf ? LLVMStructTypeInContext(c, fields, nf, 0) : LLVMVoidTypeInContext(c);
  *aug = LLVMAddFunction(
      LLVMGetGlobalParent(fn), name,
      LLVMFunctionType(aret, params, n + (sig.inline_tape ? 1 : 0), 0));
  for (unsigned j = 0; j < w && sig.active_ret; j++)
    params[n++] = ret;
  params[n++] = ptr;
  name[9] = 'r', name[10] = 'e', name[11] = 'v'; /* __zymase_rev */
  *rev = LLVMAddFunction(
      LLVMGetGlobalParent(fn), name,
      LLVMFunctionType(zy_gradient_return_type(fn, sig), params, n, 0));
  free(params);
  LLVMSetLinkage(*aug, LLVMInternalLinkage);
  LLVMSetLinkage(*rev, LLVMInternalLinkage);
  same_personality(*aug, fn);
  same_personality(*rev, fn);
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
    int all = !zy_loop_of(g, bb); /* a loop's values change */
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

/* Step 9: buffer growth and frees, close the entry block, split (in
 * split mode), optimize. */
static void finish(ZyGen *g, LLVMValueRef aug, LLVMValueRef rev) {
  zy_plan_finish(g);
  zy_loops_finish(g);
  zy_free_deferred_finish(g);
  zy_cache_scopes(g);
  /* (device: the dynamic shared shadow) */
  zy_parallel()->gpu_dynamic_release(g);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(g->zm->ctx);
  LLVMPositionBuilderAtEnd(b, g->allocas);
  /* (device code: the block zeroes the __shared__ shadows first) */
  zy_parallel()->gpu_zero_shared(
      g, b, zy_map_get(&g->vmap, LLVMGetEntryBasicBlock(g->primal)));
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
  zy_lanes_end(g);
  for (size_t i = 0; i < g->preds.order.len; i++) {
    ZyVec *p = zy_map_get(&g->preds, g->preds.order.data[i]);
    zy_vec_free(p);
    free(p);
  }
  zy_map_free(&g->preds);
  zy_map_free(&g->stable);
  zy_map_free(&g->domrets);
  zy_map_free(&g->vmap);
  zy_map_free(&g->adjoint);
  zy_map_free(&g->cache);
  zy_map_free(&g->rblock);
  zy_map_free(&g->predidx);
  zy_map_free(&g->shadow);
  zy_map_free(&g->tapes);
  zy_runtimes_release(g);
  zy_map_free(&g->sizes);
  zy_loops_free(g);
  zy_vec_free(&g->tape);
  zy_vec_free(&g->ext_reallocs);
  zy_vec_free(&g->ext_realloc_ran);
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
  g->primal = zy_preprocess(g->user);                             /* 1 */
  verify_step(g, g->primal, "the pre-AD pipeline");
  if (zy_loops_analyze(g))                                        /* 2 */
    return -1;
  zy_sizes_analyze(g);                                            /* 2b */
  g->types = zy_types_analyze(g->primal, g->seeds);                 /* 3 */
  if (zy_punning_retype(g)) { /* floats moved through integers */
    zy_types_free(g->types);
    g->types = zy_types_analyze(g->primal, g->seeds);
  }
  if (zy_runtimes_prepare(g)) { /* MPI: contiguous datatypes */
    zy_types_free(g->types);
    g->types = zy_types_analyze(g->primal, g->seeds);
  }
  g->act = zy_activity_compute(g->primal, g->sig.active_args,
                               g->sig.dup_args, g->sig.active_ret);
  zy_punning_warn(g);
  if (zy_parallel()->gpu_shuffle_check(g) ||
      zy_parallel()->gpu_dynamic_shared_check(g) || /* 4 */
      zy_check_supported(g))
    return -1;
  analyse_cfg(g);                                                 /* 5 */
  zy_parallel()->priv_plan(g); /* parallel: per-thread shadows (privatize.c) */
  create_blocks(g);                                               /* 6 */
  if (g->sig.width > 1) /* vector mode: shadows and adjoints per lane */
    zy_lanes_begin(g, g->sig.width);
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
         a.active_ret == b.active_ret && a.dup_ret == b.dup_ret &&
         a.split == b.split && a.nofree == b.nofree &&
         a.inline_tape == b.inline_tape && a.parallel == b.parallel &&
         a.stable_args == b.stable_args && a.stable_deep == b.stable_deep &&
         a.own_args == b.own_args && ZY_LANES(a) == ZY_LANES(b);
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
  if (sig.split && seeds) { /* for a nofree pair made later */
    e->nseeds = LLVMCountParams(fn) + 1;
    e->seeds = calloc(e->nseeds, sizeof *e->seeds);
    for (unsigned k = 0; k + 1 < e->nseeds; k++)
      zy_tt_merge(&e->seeds[k], &seeds[k]);
  }
  if (sig.split)
    declare_split(fn, sig, &e->grad, &e->rev);
  else
    e->grad = declare_gradient(fn, sig);
  zy_vec_push(&zm->grads, e);

  if (zy_registry_custom(fn)) { /* the user's pair, through wrappers */
    if (zy_custom_build(zm, e)) {
      e->failed = 1;
      discard_body(e->grad);
      if (e->rev)
        discard_body(e->rev);
    }
    return e;
  }
  /* Split mode builds one combined function first, then splits it. */
  LLVMValueRef work = sig.split ? declare_gradient(fn, sig) : e->grad;
  ZyGen g = {.zm = zm, .user = fn, .grad = work, .sig = sig,
             .split = sig.split, .seeds = seeds};
  int err = build_gradient(&g, e->grad, e->rev);
  e->tape_bytes = g.tape_bytes;
  e->tape_align = g.tape_align;
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
  if (sig.nofree) {
    ZySig base = sig;
    base.nofree = 0;
    ZyGradEntry *b = generate(zm, fn, base, seeds);
    if (b->failed)
      return -1;
    seeds = b->seeds;
  }
  ZyGradEntry *e = generate(zm, fn, sig, seeds);
  *aug = e->grad;
  *rev = e->rev;
  return e->failed ? -1 : 0;
}

void zy_gradient_tape_layout(ZyModule *zm, LLVMValueRef aug,
                             unsigned long long *bytes,
                             unsigned long long *align) {
  *bytes = 0, *align = 1;
  for (size_t i = 0; i < zm->grads.len; i++) {
    ZyGradEntry *e = zm->grads.data[i];
    if (e->sig.split && e->grad == aug)
      *bytes = e->tape_bytes, *align = e->tape_align ? e->tape_align : 1;
  }
}

void zy_gradient_entry_free(ZyGradEntry *e) {
  for (unsigned k = 0; k < e->nseeds; k++)
    zy_tt_free(&e->seeds[k]);
  free(e->seeds);
  free(e);
}
