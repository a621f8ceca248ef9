/* cacheplan.c - which values of loop iterations the reverse sweep caches
 * and which it recomputes, chosen by a minimum cut.
 *
 * While the reverse sweep is generated, each lookup of a value of a loop
 * iteration leaves a placeholder.  Once every lookup is known, the values
 * they need and the values those can be recomputed from form a graph:
 * each value is an edge in -> out whose capacity is what caching it costs
 * (its bytes times the iterations it is cached for); a value that cannot
 * be recomputed (a call, a load of memory that is overwritten, a phi that
 * is not an induction variable, a replayed recurrence or the merge of a
 * recomputed branch) hangs from the source, a needed value
 * feeds the sink, and each operand feeds the values computed from it.  A
 * minimum cut between source and sink is the cheapest set of values to
 * cache such that everything needed is recomputable from them: for
 *   sum = x[i] + y[i]; ... x, y overwritten
 * it caches sum (one double), not x[i] and y[i] (two).  Then each
 * placeholder is replaced by a reload from a buffer or a recomputation.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "cache.h"

#include "ir/rules.h"
#include "support/maxflow.h"

#include <llvm-c/Target.h>
#include <stdint.h>
#include <stdlib.h>

#define CACHED ((void *)1)
#define RECOMPUTED ((void *)2)

LLVMValueRef zy_plan_defer(ZyGen *g, LLVMValueRef v) {
  LLVMValueRef ph =
      LLVMBuildFreeze(g->b, LLVMGetPoison(LLVMTypeOf(v)), "zymase.lookup");
  zy_vec_push(&g->pending, ph);
  zy_vec_push(&g->pending, v);
  return ph;
}

static int in_loop(ZyGen *g, LLVMValueRef v) {
  return LLVMIsAInstruction(v) && zy_loop_of(g, LLVMGetInstructionParent(v));
}

/* Whether `v` (a value of a loop iteration) may be computed again in the
 * reverse sweep from its operands. */
static int legal(ZyGen *g, LLVMValueRef v) {
  LLVMValueRef c, t, f;
  if (LLVMIsAPHINode(v))
    return zy_affine_start(g, v) != NULL || zy_phi_branch(g, v, &c, &t, &f) ||
           zy_replayable(g, v) || zy_region_phi(g, v);
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  if (op == LLVMLoad)
    return zy_load_recomputable(g, v) || zy_memsnap_load(g, v);
  return zy_cheap_value(g, v);
}

/* The in-loop values `v` is recomputed from. */
static void sources(ZyGen *g, LLVMValueRef v, LLVMValueRef *out, int *n) {
  *n = 0;
  LLVMValueRef br[3];
  if (LLVMIsAPHINode(v) && !zy_affine_start(g, v) &&
      zy_phi_branch(g, v, &br[0], &br[1], &br[2])) {
    for (int k = 0; k < 3; k++)
      if (in_loop(g, br[k]))
        out[(*n)++] = br[k];
    return;
  }
  if (LLVMIsAPHINode(v)) {
    LLVMValueRef s = zy_affine_start(g, v);
    if (s && in_loop(g, s))
      out[(*n)++] = s;
    if (s)
      return;
    ZyVec from = {0};
    if (zy_replayable(g, v))
      zy_replay_sources(g, v, &from);
    else
      zy_region_sources(g, v, &from);
    for (size_t k = 0; k < from.len && *n < 8; k++)
      if (in_loop(g, from.data[k]))
        out[(*n)++] = from.data[k];
    zy_vec_free(&from);
    return;
  }
  int k = LLVMGetNumOperands(v);
  for (int j = 0; j < k && *n < 8; j++)
    if (in_loop(g, LLVMGetOperand(v, j)))
      out[(*n)++] = LLVMGetOperand(v, j);
}

/* What caching `v` costs: its bytes times the iterations it is cached
 * for (constant trip counts, else 16 per loop level).  At most 2^42. */
static long long weight(ZyGen *g, LLVMValueRef v) {
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(g->zm->mod);
  long long w = (long long)LLVMABISizeOfType(td, LLVMTypeOf(v));
  for (ZyLoop *l = zy_loop_of(g, LLVMGetInstructionParent(v)); l;
       l = l->parent) {
    long long t = l->trip && LLVMIsAConstantInt(l->trip)
                      ? (long long)LLVMConstIntGetZExtValue(l->trip)
                      : 16;
    w *= t < 1 ? 1 : t;
    if (w > (1LL << 40))
      return 1LL << 40;
  }
  /* Weights count quarter bytes, less one for a math call: between
   * caching a call and caching as many bytes of its arguments, caching
   * the call saves computing it again. */
  return 4 * (w < 1 ? 1 : w) - (zy_math_call(g, v) ? 1 : 0);
}

/* The minimum cut over the values the placeholders need; fills
 * g->plan with CACHED or RECOMPUTED for each value of the graph. */
static void solve(ZyGen *g) {
  ZyVec nodes = {0};
  ZyMap index = {0}, needed = {0};
  for (size_t k = 0; k < g->pending.len; k += 2) {
    LLVMValueRef v = g->pending.data[k + 1];
    if (!LLVMGetFirstUse(g->pending.data[k]) || zy_map_has(&needed, v))
      continue;
    zy_map_put(&needed, v, v);
    zy_map_put(&index, v, (void *)(intptr_t)(nodes.len + 1));
    zy_vec_push(&nodes, v);
  }
  /* The closure under recomputation sources. */
  for (size_t k = 0; k < nodes.len; k++) {
    LLVMValueRef v = nodes.data[k], src[8];
    int n;
    if (!legal(g, v))
      continue;
    sources(g, v, src, &n);
    for (int j = 0; j < n; j++)
      if (!zy_map_has(&index, src[j])) {
        zy_map_put(&index, src[j], (void *)(intptr_t)(nodes.len + 1));
        zy_vec_push(&nodes, src[j]);
      }
  }
  int nv = (int)nodes.len, s = 2 * nv, t = 2 * nv + 1;
  ZyFlow *f = zy_flow_new(2 * nv + 2);
  for (int k = 0; k < nv; k++) {
    LLVMValueRef v = nodes.data[k], src[8];
    int n;
    zy_flow_edge(f, 2 * k, 2 * k + 1, weight(g, v));
    if (zy_map_has(&needed, v))
      zy_flow_edge(f, 2 * k + 1, t, ZY_FLOW_INF);
    if (!legal(g, v)) {
      zy_flow_edge(f, s, 2 * k, ZY_FLOW_INF);
      continue;
    }
    sources(g, v, src, &n);
    for (int j = 0; j < n; j++) {
      int u = (int)(intptr_t)zy_map_get(&index, src[j]) - 1;
      zy_flow_edge(f, 2 * u + 1, 2 * k, ZY_FLOW_INF);
    }
  }
  zy_flow_max(f, s, t);
  for (int k = 0; k < nv; k++) {
    int cut =
        zy_flow_source_side(f, 2 * k) && !zy_flow_source_side(f, 2 * k + 1);
    zy_map_put(&g->plan, nodes.data[k], cut ? CACHED : RECOMPUTED);
  }
  zy_flow_free(f);
  zy_vec_free(&nodes);
  zy_map_free(&index);
  zy_map_free(&needed);
}

/* While one placeholder is resolved: primal value -> what was built for
 * it before the placeholder (a value the recomputation of several others
 * needs is built once: the recomputed values form a DAG, which cloned as
 * a tree would grow exponentially with its depth). */
static ZyMap *built;
/* Values built once per reverse iteration (share.c), the reverse block
 * being built in, and whether what is built is at that block's start. */
static ZyShare *shared;
static LLVMBasicBlockRef building_in;
static int at_start;

static LLVMValueRef plan_value(ZyGen *g, LLVMValueRef v);

LLVMValueRef zy_plan_value(ZyGen *g, LLVMValueRef v) {
  LLVMValueRef r = built ? zy_map_get(built, v) : NULL;
  if (r)
    return r;
  if (shared && building_in)
    r = zy_share_find(shared, g, v, building_in);
  if (!r)
    r = plan_value(g, v);
  if (built)
    zy_map_put(built, v, r);
  if (shared && building_in && at_start)
    zy_share_add(shared, v, building_in, r);
  return r;
}

static LLVMValueRef plan_value(ZyGen *g, LLVMValueRef v) {
  if (LLVMIsAArgument(v))
    return zy_map_get(&g->vmap, v);
  if (!LLVMIsAInstruction(v))
    return v;
  LLVMBasicBlockRef pbb = LLVMGetInstructionParent(v);
  ZyLoop *l = zy_loop_of(g, pbb);
  LLVMValueRef fv = zy_map_get(&g->vmap, v);
  if (!l)
    return zy_lookup(g, v); /* (split mode: maybe computed again) */
  void *how = zy_map_get(&g->plan, v);
  if (how != RECOMPUTED || !legal(g, v))
    return zy_loops_reload(g, fv, l);
  LLVMValueRef br[3];
  int branch = LLVMIsAPHINode(v) && !zy_affine_start(g, v) &&
               zy_phi_branch(g, v, &br[0], &br[1], &br[2]);
  int replay = LLVMIsAPHINode(v) && !zy_affine_start(g, v) && !branch &&
               zy_replayable(g, v);
  int region =
      LLVMIsAPHINode(v) && !zy_affine_start(g, v) && !branch && !replay;
  LLVMValueRef r = replay ? zy_replay_value(g, v) : NULL;
  if (replay && !r) /* no entry into its loop was reversed */
    return zy_loops_reload(g, fv, l);
  int snap = LLVMIsALoadInst(v) && !zy_load_recomputable(g, v);
  LLVMValueRef logged = replay || region || snap ? NULL : zy_mathlog_read(g, v);
  if (!zy_map_has(&g->reported, fv)) {
    zy_map_put(&g->reported, fv, fv);
    zy_loops_report(g, fv,
                    replay   ? "recomputed: the recurrence is replayed "
                               "at each entry of its loop"
                    : region ? "recomputed: its branch region (branches, "
                               "inner loops) is run again"
                    : snap   ? "recomputed from a copy of its local array "
                               "kept per iteration of the enclosing loop"
                    : logged ? "recomputed, read back from a log when the "
                               "call's iterations fit in it"
                             : "recomputed");
  }
  if (r)
    return r;
  if (region)
    return zy_region_value(g, v);
  if (logged)
    return logged;
  if (branch) { /* both sides, then the one the iteration took */
    LLVMValueRef c = zy_plan_value(g, br[0]), t = zy_plan_value(g, br[1]);
    return LLVMBuildSelect(g->b, c, t, zy_plan_value(g, br[2]), "");
  }
  if (LLVMIsAPHINode(v))
    return zy_affine_rebuild(g, v, zy_plan_value(g, zy_affine_start(g, v)));
  if (snap) /* memsnap.c */
    return zy_memsnap_value(g, v, zy_plan_value(g, LLVMGetOperand(v, 0)));
  LLVMValueRef c = LLVMInstructionClone(fv);
  int n = LLVMGetNumOperands(v);
  for (int k = 0; k < n; k++) {
    LLVMValueRef op = LLVMGetOperand(v, k);
    if (LLVMIsAInstruction(op) || LLVMIsAArgument(op))
      LLVMSetOperand(c, k, zy_plan_value(g, op));
  }
  LLVMInsertIntoBuilderWithName(g->b, c, "");
  return c;
}

static int planned_recompute(ZyGen *g, LLVMValueRef v) {
  return zy_map_get(&g->plan, v) == RECOMPUTED;
}

/* The values needed in several reverse blocks of one reverse iteration
 * are built once, at the start of the block that dominates the others
 * (share.c), outer blocks first so that inner ones reuse their values;
 * their placeholders are then replaced and erased. */
static void build_shared(ZyGen *g) {
  ZyMap groups = {0}; /* primal value -> ZyVec* of placeholders */
  for (size_t k = 0; k < g->pending.len; k += 2) {
    LLVMValueRef ph = g->pending.data[k], v = g->pending.data[k + 1];
    if (!LLVMGetFirstUse(ph) || zy_map_get(&g->plan, v) != RECOMPUTED ||
        !legal(g, v))
      continue;
    ZyVec *phs = zy_map_get(&groups, v);
    if (!phs) {
      phs = calloc(1, sizeof *phs);
      zy_map_put(&groups, v, phs);
    }
    zy_vec_push(phs, ph);
  }
  ZyVec todo = {0}; /* (value, target block, depth) */
  ZyMap starts = {0};
  for (size_t k = 0; k < groups.order.len; k++) {
    LLVMValueRef v = groups.order.data[k];
    ZyVec *phs = zy_map_get(&groups, v), blocks = {0};
    for (size_t j = 0; j < phs->len; j++)
      zy_vec_push(&blocks, LLVMGetInstructionParent(phs->data[j]));
    int d = 0;
    LLVMBasicBlockRef r = zy_share_target(shared, g, v, &blocks, &d);
    zy_vec_free(&blocks);
    if (!r)
      continue;
    zy_vec_push(&todo, v);
    zy_vec_push(&todo, r);
    /* Everything built in `r` goes before what was its first instruction,
     * in the order built. */
    LLVMValueRef first = LLVMGetFirstInstruction(r);
    while (first && LLVMIsAPHINode(first))
      first = LLVMGetNextInstruction(first);
    if (!zy_map_has(&starts, r))
      zy_map_put(&starts, r, first);
    zy_vec_push(&todo, (void *)(intptr_t)d);
  }
  for (int d = 0, more = 1; more; d++) { /* by depth: dominators first */
    more = 0;
    for (size_t k = 0; k < todo.len; k += 3) {
      int dk = (int)(intptr_t)todo.data[k + 2];
      more |= dk > d;
      if (dk != d)
        continue;
      LLVMValueRef v = todo.data[k];
      building_in = todo.data[k + 1];
      LLVMPositionBuilderBefore(g->b, zy_map_get(&starts, building_in));
      ZyMap memo = {0};
      built = &memo;
      at_start = 1;
      LLVMValueRef r = zy_plan_value(g, v);
      at_start = 0;
      built = NULL;
      zy_map_free(&memo);
      ZyVec *phs = zy_map_get(&groups, v);
      for (size_t j = 0; j < phs->len; j++)
        LLVMReplaceAllUsesWith(phs->data[j], r);
    }
  }
  building_in = NULL;
  for (size_t k = 0; k < groups.order.len; k++) {
    ZyVec *phs = zy_map_get(&groups, groups.order.data[k]);
    zy_vec_free(phs);
    free(phs);
  }
  zy_map_free(&groups);
  zy_map_free(&starts);
  zy_vec_free(&todo);
}

void zy_plan_finish(ZyGen *g) {
  solve(g);
  LLVMBuilderRef saved = g->b;
  g->b = LLVMCreateBuilderInContext(g->zm->ctx);
  zy_replay_emit(g, planned_recompute);
  zy_mathlog_emit(g, planned_recompute);
  /* (split mode: the reverse is moved to a function of its own later) */
  shared = g->split || !g->pending.len ? NULL : zy_share_new(g);
  if (shared)
    build_shared(g);
  for (size_t k = 0; k < g->pending.len; k += 2) {
    LLVMValueRef ph = g->pending.data[k], v = g->pending.data[k + 1];
    if (LLVMGetFirstUse(ph)) {
      ZyMap memo = {0};
      built = &memo;
      building_in = LLVMGetInstructionParent(ph);
      LLVMPositionBuilderBefore(g->b, ph);
      LLVMReplaceAllUsesWith(ph, zy_plan_value(g, v));
      built = NULL;
      building_in = NULL;
      zy_map_free(&memo);
    }
    LLVMInstructionEraseFromParent(ph);
  }
  zy_share_free(shared);
  shared = NULL;
  zy_mathlog_free(g);
  zy_region_free(g);
  zy_memsnap_free(g);
  LLVMDisposeBuilder(g->b);
  g->b = saved;
  g->pending.len = 0;
}
