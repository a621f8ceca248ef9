/* region.c - values at the merge of a branch region (both forms of a
 * function with their inner loops, or the exit of an inner loop)
 * computed again in the reverse sweep by running the region again.
 *
 * A phi of a loop iteration at block M, where E (the nearest dominator of
 * M in the same loop) enters a region that only leaves to M: the blocks
 * dominated by E that a path from E reaches before M, inner loops
 * included.  When nothing in the region writes memory or calls anything
 * but arithmetic and math functions, and its loads read memory nothing
 * writes after them (zy_load_recomputable), the region computes the same
 * value from the same inputs wherever it runs: the values it uses from
 * outside (its live-ins) decide every branch and trip count.  So the
 * reverse sweep calls a copy of the region (`zymase.region.N`, a function
 * of the live-ins returning the phi's value, inlined once the plan is
 * built) instead of caching the phi per iteration, and the cache plan
 * treats the live-ins as the values it is recomputed from.  RSBench's
 * pole loop kept w(z) at the merge of the Faddeeva function's two forms
 * and the series sum at its loop's exit per pole; they are computed from
 * the pole and the energy.
 *
 * Only in device code (a cache there is per-thread memory, and running
 * the region again arithmetic: one more evaluation of the region per
 * reverse iteration), not in split mode (the caller may write memory
 * before the reverse) nor in nested AD; -zymase-recompute-regions=false
 * turns it off.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "cache.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BLOCKS 256
#define MAX_INSTS 4096
#define MAX_LIVE 32
#define MAX_LIVE_IN_LOOP 8

typedef struct ZyRegion {
  LLVMBasicBlockRef entry;
  ZyVec blocks, live;
  LLVMValueRef helper; /* made on first use */
} ZyRegion;

#define NOT_A_REGION ((void *)1)

static int wanted(ZyGen *g) {
  if (zy_opt_recompute_regions_given() && !zy_opt_recompute_regions())
    return 0;
  return zy_gpu_device_kind(g->zm->mod) != 0 && !g->split && !g->zm->nested_ad;
}

/* Whether instruction `i` of the region computes its value from its
 * operands and memory alone, without side effects. */
static int pure(ZyGen *g, LLVMValueRef i) {
  if (zy_llvm_ignorable_intrinsic(i) || LLVMIsAPHINode(i))
    return 1;
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMBr:
  case LLVMSwitch:
  case LLVMUnreachable:
  case LLVMFDiv:
  case LLVMFRem:
  case LLVMSDiv:
  case LLVMUDiv:
  case LLVMSRem:
  case LLVMURem:
    return 1;
  case LLVMLoad:
    return zy_load_recomputable(g, i);
  default:
    return !LLVMIsATerminatorInst(i) && zy_cheap_value(g, i);
  }
}

static int in_region(ZyRegion *r, LLVMBasicBlockRef bb) {
  return bb == r->entry || zy_vec_contains(&r->blocks, bb);
}

/* Adds the operands of `i` defined outside the region to its live-ins. */
static int add_live(ZyGen *g, ZyRegion *r, LLVMValueRef i, ZyLoop *l,
                    int *in_loop) {
  for (int k = 0; k < LLVMGetNumOperands(i); k++) {
    LLVMValueRef op = LLVMGetOperand(i, k);
    if (!LLVMIsAArgument(op) &&
        !(LLVMIsAInstruction(op) &&
          !zy_vec_contains(&r->blocks, LLVMGetInstructionParent(op))))
      continue;
    if (zy_vec_contains(&r->live, op))
      continue;
    if (r->live.len >= MAX_LIVE)
      return 0;
    if (LLVMIsAInstruction(op) &&
        zy_loop_contains(g, l, LLVMGetInstructionParent(op)) &&
        ++*in_loop > MAX_LIVE_IN_LOOP)
      return 0;
    zy_vec_push(&r->live, op);
  }
  return 1;
}

/* The blocks of the region from `e` to `m` (the merge, in loop `l`), in
 * function order; 0 when it leaves elsewhere or re-enters from outside. */
static int collect(ZyGen *g, ZyRegion *r, LLVMBasicBlockRef m, ZyLoop *l) {
  ZyVec work = {0};
  zy_vec_push(&work, r->entry);
  int ok = 1;
  while (ok && work.len) {
    LLVMBasicBlockRef bb = work.data[--work.len];
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    for (unsigned s = 0; ok && s < LLVMGetNumSuccessors(t); s++) {
      LLVMBasicBlockRef n = LLVMGetSuccessor(t, s);
      if (n == m || n == r->entry || zy_vec_contains(&r->blocks, n))
        continue;
      if (n == l->header || !zy_loop_contains(g, l, n) ||
          !zy_llvm_domtree_dominates(g->dt, r->entry, n) ||
          r->blocks.len >= MAX_BLOCKS) {
        ok = 0;
        break;
      }
      zy_vec_push(&r->blocks, n);
      zy_vec_push(&work, n);
    }
  }
  zy_vec_free(&work);
  if (!ok)
    return 0;
  /* Entered only from the entry, and every predecessor of the merge in it. */
  for (size_t k = 0; k < r->blocks.len; k++) {
    ZyVec *p = zy_preds(g, r->blocks.data[k]);
    for (size_t j = 0; j < p->len; j++)
      if (!in_region(r, p->data[j]))
        return 0;
  }
  ZyVec *p = zy_preds(g, m);
  for (size_t j = 0; j < p->len; j++)
    if (!in_region(r, p->data[j]))
      return 0;
  /* Function order, so that the copy's entry leads and the blocks read
   * in the order the source has them. */
  ZyVec ordered = {0};
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
       bb = LLVMGetNextBasicBlock(bb))
    if (zy_vec_contains(&r->blocks, bb))
      zy_vec_push(&ordered, bb);
  zy_vec_free(&r->blocks);
  r->blocks = ordered;
  return 1;
}

static ZyRegion *analyze(ZyGen *g, LLVMValueRef phi) {
  LLVMBasicBlockRef m = LLVMGetInstructionParent(phi);
  ZyLoop *l = zy_loop_of(g, m);
  if (!l || l->header == m)
    return NULL;
  /* The nearest dominator of m in l itself (not in an inner loop). */
  LLVMBasicBlockRef e = zy_llvm_domtree_idom(g->dt, m);
  while (e && zy_loop_of(g, e) != l)
    e = zy_llvm_domtree_idom(g->dt, e);
  if (!e || !zy_loop_contains(g, l, e))
    return NULL;
  ZyRegion *r = calloc(1, sizeof *r);
  r->entry = e;
  int ok = collect(g, r, m, l), in_loop = 0, insts = 0;
  for (size_t k = 0; ok && k < r->blocks.len; k++)
    for (LLVMValueRef i = LLVMGetFirstInstruction(r->blocks.data[k]); ok && i;
         i = LLVMGetNextInstruction(i))
      ok = ++insts <= MAX_INSTS && pure(g, i) &&
           (zy_llvm_ignorable_intrinsic(i) || add_live(g, r, i, l, &in_loop));
  LLVMValueRef t = LLVMGetBasicBlockTerminator(e);
  ok = ok && pure(g, t) && add_live(g, r, t, l, &in_loop);
  for (unsigned k = 0; ok && k < LLVMCountIncoming(phi); k++) {
    LLVMValueRef v = LLVMGetIncomingValue(phi, k);
    if ((LLVMIsAInstruction(v) &&
         !zy_vec_contains(&r->blocks, LLVMGetInstructionParent(v))) ||
        LLVMIsAArgument(v)) {
      if (!zy_vec_contains(&r->live, v)) {
        if (r->live.len >= MAX_LIVE)
          ok = 0;
        else if (LLVMIsAInstruction(v) &&
                 zy_loop_contains(g, l, LLVMGetInstructionParent(v)) &&
                 ++in_loop > MAX_LIVE_IN_LOOP)
          ok = 0;
        else
          zy_vec_push(&r->live, v);
      }
    }
  }
  if (!ok) {
    zy_vec_free(&r->blocks);
    zy_vec_free(&r->live);
    free(r);
    return NULL;
  }
  return r;
}

static ZyRegion *region_of(ZyGen *g, LLVMValueRef phi) {
  if (!LLVMIsAPHINode(phi) || !wanted(g))
    return NULL;
  void *memo = zy_map_get(&g->region, phi);
  if (memo)
    return memo == NOT_A_REGION ? NULL : memo;
  ZyRegion *r = analyze(g, phi);
  zy_map_put(&g->region, phi, r ? (void *)r : NOT_A_REGION);
  return r;
}

int zy_region_phi(ZyGen *g, LLVMValueRef phi) {
  return region_of(g, phi) != NULL;
}

void zy_region_sources(ZyGen *g, LLVMValueRef phi, ZyVec *out) {
  ZyRegion *r = region_of(g, phi);
  for (size_t k = 0; r && k < r->live.len; k++)
    zy_vec_push(out, r->live.data[k]);
}

LLVMValueRef zy_region_value(ZyGen *g, LLVMValueRef phi) {
  ZyRegion *r = region_of(g, phi);
  if (!r)
    return NULL;
  if (!r->helper) {
    static unsigned serial;
    char name[64];
    snprintf(name, sizeof name, "zymase.region.%u", serial++);
    r->helper = zy_llvm_region_helper(
        phi, r->entry, (LLVMBasicBlockRef *)r->blocks.data,
        (unsigned)r->blocks.len, (LLVMValueRef *)r->live.data,
        (unsigned)r->live.len, name);
  }
  size_t n = r->live.len;
  LLVMValueRef args[n ? n : 1];
  for (size_t k = 0; k < n; k++)
    args[k] = zy_plan_value(g, r->live.data[k]);
  return LLVMBuildCall2(g->b, LLVMGlobalGetValueType(r->helper), r->helper,
                        args, (unsigned)n, "zymase.region");
}

void zy_region_free(ZyGen *g) {
  ZyVec helpers = {0};
  for (size_t k = 0; k < g->region.order.len; k++) {
    ZyRegion *r = zy_map_get(&g->region, g->region.order.data[k]);
    if (r == NOT_A_REGION || !r)
      continue;
    if (r->helper)
      zy_vec_push(&helpers, r->helper);
    zy_vec_free(&r->blocks);
    zy_vec_free(&r->live);
    free(r);
  }
  zy_map_free(&g->region);
  /* The calls are inlined into the gradient, then the copies deleted. */
  for (size_t k = 0; k < helpers.len; k++) {
    LLVMValueRef h = helpers.data[k];
    ZyVec calls = {0};
    for (LLVMUseRef u = LLVMGetFirstUse(h); u; u = LLVMGetNextUse(u))
      zy_vec_push(&calls, LLVMGetUser(u));
    for (size_t j = 0; j < calls.len; j++)
      zy_llvm_inline_call(calls.data[j]);
    zy_vec_free(&calls);
    if (!LLVMGetFirstUse(h))
      LLVMDeleteFunction(h);
  }
  zy_vec_free(&helpers);
}
