/* share.c - recomputed values built once per reverse iteration: where the
 * reverse sweep needs a recomputed value of a loop iteration in several
 * reverse blocks (cos(theta) in each reverse block that uses it), it is
 * built once, at the start of the reverse block that dominates them all in
 * that iteration, and the others reuse it.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "cache.h"

#include <stdint.h>
#include <stdlib.h>

struct ZyShare {
  ZyDomTree *dt; /* dominators of the gradient                          */
  ZyMap regions; /* ZyLoop* -> ZyMap* of its reverse blocks, or IRREG   */
  ZyMap built;   /* primal value -> ZyVec* of (block, value) pairs      */
};

#define IRREG ((void *)1)

ZyShare *zy_share_new(ZyGen *g) {
  ZyShare *s = calloc(1, sizeof *s);
  /* The block of slots is closed at the end (gradient.c): until then the
   * gradient's blocks are unreachable for the dominator tree. */
  LLVMValueRef br = NULL;
  if (!LLVMGetBasicBlockTerminator(g->allocas)) {
    LLVMBuilderRef b = LLVMCreateBuilderInContext(g->zm->ctx);
    LLVMPositionBuilderAtEnd(b, g->allocas);
    br =
        LLVMBuildBr(b, zy_map_get(&g->vmap, LLVMGetEntryBasicBlock(g->primal)));
    LLVMDisposeBuilder(b);
  }
  s->dt = zy_llvm_domtree_new(g->grad);
  if (br)
    LLVMInstructionEraseFromParent(br);
  return s;
}

void zy_share_free(ZyShare *s) {
  if (!s)
    return;
  for (size_t k = 0; k < s->regions.order.len; k++) {
    ZyMap *m = zy_map_get(&s->regions, s->regions.order.data[k]);
    if (m != IRREG) {
      zy_map_free(m);
      free(m);
    }
  }
  for (size_t k = 0; k < s->built.order.len; k++) {
    ZyVec *v = zy_map_get(&s->built, s->built.order.data[k]);
    zy_vec_free(v);
    free(v);
  }
  zy_map_free(&s->regions);
  zy_map_free(&s->built);
  zy_llvm_domtree_free(s->dt);
  free(s);
}

/* Whether the latch is the only block of `l` that leaves it: then every
 * iteration runs each block that dominates the latch, and the reverse of
 * the loop is entered only at the reverse of the latch. */
static int latch_only_exit(ZyGen *g, ZyLoop *l) {
  for (size_t k = 0; k < g->order.len; k++) {
    LLVMBasicBlockRef bb = g->order.data[k];
    if (bb == l->latch || !zy_loop_contains(g, l, bb))
      continue;
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    for (unsigned j = 0; t && j < LLVMGetNumSuccessors(t); j++)
      if (!zy_loop_contains(g, l, LLVMGetSuccessor(t, j)))
        return 0;
  }
  return 1;
}

/* The reverse blocks of one iteration of `l`: from the reverse of its
 * latch (where each reverse iteration starts) up to the block taken after
 * the first iteration; NULL when the reverse of `l` has other entries. */
static ZyMap *region(ZyShare *s, ZyGen *g, ZyLoop *l) {
  ZyMap *m = zy_map_get(&s->regions, l);
  if (m)
    return m == IRREG ? NULL : m;
  LLVMBasicBlockRef h = l->latch ? zy_map_get(&g->rblock, l->latch) : NULL;
  if (!h || !l->rdone || !latch_only_exit(g, l)) {
    zy_map_put(&s->regions, l, IRREG);
    return NULL;
  }
  m = calloc(1, sizeof *m);
  ZyVec work = {0};
  zy_map_put(m, h, h);
  zy_vec_push(&work, h);
  while (work.len) {
    LLVMBasicBlockRef bb = work.data[--work.len];
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    for (unsigned j = 0; t && j < LLVMGetNumSuccessors(t); j++) {
      LLVMBasicBlockRef n = LLVMGetSuccessor(t, j);
      if (n == l->rdone || zy_map_has(m, n))
        continue;
      zy_map_put(m, n, n);
      zy_vec_push(&work, n);
    }
  }
  zy_vec_free(&work);
  zy_map_put(&s->regions, l, m);
  return m;
}

/* Whether a value of primal `v` built at the start of reverse block `r`
 * holds in reverse block `at` (same iteration of every loop around `v`). */
static int holds(ZyShare *s, ZyGen *g, LLVMValueRef v, LLVMBasicBlockRef r,
                 LLVMBasicBlockRef at) {
  if (r != at && !zy_llvm_domtree_dominates(s->dt, r, at))
    return 0;
  ZyLoop *l =
      LLVMIsAInstruction(v) ? zy_loop_of(g, LLVMGetInstructionParent(v)) : NULL;
  if (!l)
    return 1;
  ZyMap *m = region(s, g, l);
  return m && zy_map_has(m, r) && zy_map_has(m, at);
}

LLVMValueRef zy_share_find(ZyShare *s, ZyGen *g, LLVMValueRef v,
                           LLVMBasicBlockRef at) {
  ZyVec *b = zy_map_get(&s->built, v);
  for (size_t k = 0; b && k < b->len; k += 2)
    if (holds(s, g, v, b->data[k], at))
      return b->data[k + 1];
  return NULL;
}

void zy_share_add(ZyShare *s, LLVMValueRef v, LLVMBasicBlockRef at,
                  LLVMValueRef r) {
  ZyVec *b = zy_map_get(&s->built, v);
  if (!b) {
    b = calloc(1, sizeof *b);
    zy_map_put(&s->built, v, b);
  }
  zy_vec_push(b, at);
  zy_vec_push(b, r);
}

/* The depth of `bb` in the gradient's dominator tree. */
static int depth(ZyShare *s, LLVMBasicBlockRef bb) {
  int d = 0;
  while ((bb = zy_llvm_domtree_idom(s->dt, bb)))
    d++;
  return d;
}

LLVMBasicBlockRef zy_share_target(ZyShare *s, ZyGen *g, LLVMValueRef v,
                                  ZyVec *blocks, int *dep) {
  LLVMBasicBlockRef pb = LLVMGetInstructionParent(v);
  ZyLoop *l = zy_loop_of(g, pb);
  ZyMap *m = l ? region(s, g, l) : NULL;
  /* Computed in every iteration, so in every reverse one too. */
  if (!m || !zy_llvm_domtree_dominates(g->dt, pb, l->latch))
    return NULL;
  LLVMBasicBlockRef r = NULL;
  for (size_t k = 0; k < blocks->len; k++) {
    LLVMBasicBlockRef bb = blocks->data[k];
    if (!zy_map_has(m, bb))
      return NULL;
    if (!r)
      r = bb;
    while (r && r != bb && !zy_llvm_domtree_dominates(s->dt, r, bb))
      r = zy_llvm_domtree_idom(s->dt, r);
  }
  if (!r || !zy_map_has(m, r))
    return NULL;
  *dep = depth(s, r);
  return r;
}
