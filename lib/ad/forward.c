/* forward.c - the forward sweep: a copy of the primal body in the
 * gradient, with each `ret` turned into the seeding of the return adjoint
 * and a jump into the reverse sweep.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad.h"

#include "cache.h"

#include "ir/rules.h"
#include "runtime.h"

#include <string.h>

static int is_debug_intrinsic(LLVMValueRef inst) {
  LLVMValueRef callee = LLVMIsACallInst(inst) ? LLVMGetCalledValue(inst) : 0;
  return callee && LLVMIsAFunction(callee) &&
         !strncmp(LLVMGetValueName(callee), "llvm.dbg.", 9);
}

static LLVMValueRef map(ZyGen *g, LLVMValueRef v) {
  LLVMValueRef m = zy_map_get(&g->vmap, v);
  return m ? m : v; /* constants and globals map to themselves */
}

/* In the gradient a math call's only effect that matters is its value:
 * without errno writes, calls whose results the gradient does not need
 * are deleted by the post-AD pipeline. */
static void mark_pure(ZyGen *g, LLVMValueRef call) {
  static const char *const attrs[] = {"memory", "nounwind", "willreturn"};
  for (int k = 0; k < 3; k++) {
    unsigned kind = LLVMGetEnumAttributeKindForName(attrs[k], strlen(attrs[k]));
    LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex,
                             LLVMCreateEnumAttribute(g->zm->ctx, kind, 0));
  }
}

/* `ret v` becomes: adjoint(v) += dret; br reverse.<block>. */
static void lower_return(ZyGen *g, LLVMBasicBlockRef bb, LLVMValueRef ret) {
  if (g->split) {
    /* Split: remember the return; the reverse function seeds it. */
    LLVMTypeRef i32 = LLVMInt32TypeInContext(g->zm->ctx);
    if (!g->retslot) {
      g->retslot = zy_new_slot(g, i32, "zymase.return", 0);
      zy_vec_push(&g->tape, g->retslot);
    }
    LLVMBuildStore(g->b, LLVMConstInt(i32, g->retblocks.len, 0), g->retslot);
    zy_vec_push(&g->retblocks, bb);
    zy_vec_push(&g->retvals,
                LLVMGetNumOperands(ret) ? LLVMGetOperand(ret, 0) : NULL);
    LLVMBuildBr(g->b, g->rstart);
    return;
  }
  if (g->sig.active_ret && LLVMGetNumOperands(ret) == 1) {
    /* The return adjoints are the last parameters, one per lane. */
    unsigned w = ZY_LANES(g->sig), np = LLVMCountParams(g->grad);
    for (unsigned j = 0; j < w; j++)
      zy_lane_add_adjoint(g, LLVMGetOperand(ret, 0), j,
                          LLVMGetParam(g->grad, np - w + j));
  }
  LLVMBuildBr(g->b, zy_map_get(&g->rblock, bb));
}

/* A block with several predecessors records which one it was entered
 * from, so the reverse sweep can go back the same way (a loop header
 * knows it from its iteration number).  Its incoming values are added by
 * add_pred_incoming once every forward block is complete. */
static void record_predecessor(ZyGen *g, LLVMBasicBlockRef bb) {
  ZyVec *preds = zy_preds(g, bb);
  ZyLoop *l = zy_loop_of(g, bb);
  if (preds->len < 2 || (l && l->header == bb))
    return;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(g->zm->ctx);
  zy_map_put(&g->predidx, bb, LLVMBuildPhi(g->b, i32, "zymase.from"));
}

static void add_pred_incoming(ZyGen *g) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(g->zm->ctx);
  for (size_t b = 0; b < g->predidx.order.len; b++) {
    LLVMBasicBlockRef bb = g->predidx.order.data[b];
    LLVMValueRef phi = zy_map_get(&g->predidx, bb);
    ZyVec *preds = zy_preds(g, bb);
    for (size_t k = 0; k < preds->len; k++) {
      LLVMValueRef idx = LLVMConstInt(i32, k, 0);
      LLVMBasicBlockRef from = zy_map_get(&g->fend, preds->data[k]);
      /* One entry per edge: a switch may reach bb through several cases. */
      LLVMValueRef t = LLVMGetBasicBlockTerminator(preds->data[k]);
      for (unsigned s = 0; s < LLVMGetNumSuccessors(t); s++)
        if (LLVMGetSuccessor(t, s) == bb)
          LLVMAddIncoming(phi, &idx, &from, 1);
    }
  }
}

/* Points the operands of copy `c` at the forward values. */
static void remap_operands(ZyGen *g, LLVMValueRef c) {
  int nops = LLVMGetNumOperands(c);
  for (int o = 0; o < nops; o++) {
    LLVMValueRef op = LLVMGetOperand(c, o);
    if (op && zy_map_has(&g->vmap, op))
      LLVMSetOperand(c, o, zy_map_get(&g->vmap, op));
  }
}

int zy_forward_sweep(ZyGen *g) {
  unsigned n = LLVMCountParams(g->primal), next = n;
  for (unsigned i = 0; i < n; i++) {
    zy_map_put(&g->vmap, LLVMGetParam(g->primal, i), LLVMGetParam(g->grad, i));
    for (unsigned j = 0; j < ZY_LANES(g->sig) && (g->sig.dup_args >> i & 1);
         j++) {
      zy_lane_switch(g, j); /* each lane's shadows in a row */
      zy_map_put(&g->shadow, LLVMGetParam(g->primal, i),
                 LLVMGetParam(g->grad, next++));
    }
    zy_lane_switch(g, 0);
  }

  ZyVec phis = {0};
  int err = 0;
  for (size_t k = 0; k < g->order.len && !err; k++) {
    LLVMBasicBlockRef bb = g->order.data[k];
    LLVMPositionBuilderAtEnd(g->b, zy_map_get(&g->vmap, bb));
    record_predecessor(g, bb);
    int begun = 0;
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && !err;
         i = LLVMGetNextInstruction(i)) {
      const char *name = LLVMGetValueName(i);
      g->cur = i; /* for errors about this instruction */
      if (g->lanes && (err = zy_rlanes_check(g, i)))
        break;
      /* A landing pad stays first after the phis (C++ cleanups). */
      if (!begun && !LLVMIsAPHINode(i) && !LLVMIsALandingPadInst(i)) {
        zy_loops_forward_begin(g, bb);
        zy_parallel()->priv_forward_block_begin(g, bb);
        begun = 1;
      }
      if (LLVMIsATerminatorInst(i)) {
        zy_loops_forward_end(g, bb);
        zy_parallel()->priv_forward_block_end(g, bb);
      }
      if (LLVMGetInstructionOpcode(i) == LLVMRet) {
        lower_return(g, bb, i);
        continue;
      }
      if (LLVMIsAPHINode(i)) {
        zy_map_put(&g->vmap, i, LLVMBuildPhi(g->b, LLVMTypeOf(i), name));
        zy_vec_push(&phis, i);
      } else if (zy_parallel()->omp_is_region(i)) {
        err = zy_parallel()->omp_forward_region(g, i);
        continue;
      } else if (zy_region_drops_lifetime(g, i)) {
        continue;
      } else if (zy_free_deferred(g, i)) {
        zy_free_defer(g, i); /* freed at the end of the reverse sweep */
        continue;
      } else if (LLVMIsACallInst(i) && zy_call_mode(g, i) == ZY_CALL_SPLIT) {
        err = zy_forward_split_call(g, i);
        continue;
      } else if (!is_debug_intrinsic(i)) {
        int blas = LLVMIsACallInst(i) && zy_call_mode(g, i) == ZY_CALL_BLAS;
        if (blas && (err = zy_runtime(ZY_CALL_BLAS)->forward(g, i, 0)))
          continue;
        if (LLVMIsACallInst(i) && zy_call_mode(g, i) == ZY_CALL_MPI &&
            (err = zy_runtime(ZY_CALL_MPI)->forward(g, i, 0)))
          continue;
        LLVMValueRef c = LLVMInstructionClone(i);
        if (LLVMIsACallInst(c) && zy_rule_known(LLVMGetCalledValue(c)))
          mark_pure(g, c);
        LLVMInsertIntoBuilderWithName(g->b, c, name);
        zy_map_put(&g->vmap, i, c);
        remap_operands(g, c);
        zy_parallel()->priv_forward_access(g, i);
        if (blas && (err = zy_runtime(ZY_CALL_BLAS)->forward(g, i, 1)))
          continue;
        if (LLVMIsACallInst(i) && zy_call_mode(g, i) == ZY_CALL_MPI &&
            (err = zy_runtime(ZY_CALL_MPI)->forward(g, i, 1)))
          continue;
      } else {
        continue;
      }
      err = zy_rlanes_shadow_forward(g, i);
    }
    zy_map_put(&g->fend, bb, LLVMGetInsertBlock(g->b));
  }
  /* Phis last: their incoming values may come from later blocks. */
  for (size_t k = 0; k < phis.len && !err; k++) {
    LLVMValueRef p = phis.data[k], c = zy_map_get(&g->vmap, p);
    unsigned m = LLVMCountIncoming(p);
    for (unsigned j = 0; j < m; j++) {
      if (!zy_map_has(&g->reachable, LLVMGetIncomingBlock(p, j)))
        continue;
      LLVMValueRef v = map(g, LLVMGetIncomingValue(p, j));
      LLVMBasicBlockRef from =
          zy_map_get(&g->fend, LLVMGetIncomingBlock(p, j));
      LLVMAddIncoming(c, &v, &from, 1);
    }
  }
  if (!err) {
    add_pred_incoming(g);
    zy_loops_forward_fixups(g);
  }
  for (unsigned j = 0; j < ZY_LANES(g->sig) && !err; j++) {
    zy_lane_switch(g, j);
    err = zy_shadow_phis(g, &phis);
  }
  zy_lane_switch(g, 0);
  /* Blocks the entry cannot reach keep no code. */
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
       bb = LLVMGetNextBasicBlock(bb))
    if (!zy_map_has(&g->reachable, bb)) {
      LLVMPositionBuilderAtEnd(g->b, zy_map_get(&g->vmap, bb));
      LLVMBuildUnreachable(g->b);
    }
  zy_vec_free(&phis);
  return err;
}
