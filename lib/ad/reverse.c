/* reverse.c - the reverse sweep: one reverse block per primal block,
 * instructions visited last to first, adjoints kept in stack slots that
 * the post-AD pipeline promotes to registers.  Also the lookup of forward
 * values from the reverse sweep and the one place adjoints are added into
 * memory (zy_accumulate).
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad.h"

#include "cache.h"
#include "runtime.h"

#include "ir/irutil.h"

#include <stdio.h>
#include <stdlib.h>

LLVMValueRef zy_new_slot(ZyGen *g, LLVMTypeRef t, const char *name,
                         int zero) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(g->zm->ctx);
  LLVMPositionBuilderAtEnd(b, g->allocas);
  LLVMValueRef slot = LLVMBuildAlloca(b, t, name);
  if (zero)
    LLVMBuildStore(b, LLVMConstNull(t), slot);
  LLVMDisposeBuilder(b);
  return slot;
}

static LLVMValueRef adjoint_slot(ZyGen *g, LLVMValueRef v) {
  LLVMValueRef slot = zy_map_get(&g->adjoint, v);
  if (!slot) {
    char name[128];
    snprintf(name, sizeof name, "d.%s", LLVMGetValueName(v));
    slot = zy_new_slot(g, LLVMTypeOf(v), name, 1);
    zy_map_put(&g->adjoint, v, slot);
  }
  return slot;
}

/* Adds a + d member by member over the differentiable leaves. */
static LLVMValueRef add_deep(LLVMBuilderRef b, LLVMValueRef a,
                             LLVMValueRef d) {
  LLVMTypeRef t = LLVMTypeOf(a);
  LLVMTypeKind k = LLVMGetTypeKind(t);
  if (k == LLVMStructTypeKind || k == LLVMArrayTypeKind) {
    unsigned n = k == LLVMStructTypeKind ? LLVMCountStructElementTypes(t)
                                         : LLVMGetArrayLength(t);
    for (unsigned i = 0; i < n; i++) {
      LLVMTypeRef et = k == LLVMStructTypeKind ? LLVMStructGetTypeAtIndex(t, i)
                                               : LLVMGetElementType(t);
      if (!zy_type_differentiable(et))
        continue;
      LLVMValueRef s = add_deep(b, LLVMBuildExtractValue(b, a, i, ""),
                                LLVMBuildExtractValue(b, d, i, ""));
      a = LLVMBuildInsertValue(b, a, s, i, "");
    }
    return a;
  }
  /* The sign of a zero adjoint does not matter: nsz lets 0 + d fold. */
  LLVMValueRef sum = LLVMBuildFAdd(b, a, d, "");
  LLVMSetFastMathFlags(sum, LLVMFastMathNoSignedZeros);
  return sum;
}

/* Atomic adds of the differentiable leaves of `d` at `ptr` (one per
 * member and vector lane). */
static void atomic_add_deep(LLVMBuilderRef b, LLVMValueRef ptr,
                            LLVMValueRef d) {
  LLVMTypeRef t = LLVMTypeOf(d);
  LLVMTypeKind k = LLVMGetTypeKind(t);
  LLVMContextRef c = LLVMGetTypeContext(t);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
  if (k == LLVMStructTypeKind || k == LLVMArrayTypeKind ||
      k == LLVMVectorTypeKind) {
    unsigned n = k == LLVMStructTypeKind  ? LLVMCountStructElementTypes(t)
                 : k == LLVMArrayTypeKind ? LLVMGetArrayLength(t)
                                          : LLVMGetVectorSize(t);
    for (unsigned i = 0; i < n; i++) {
      LLVMTypeRef et = k == LLVMStructTypeKind ? LLVMStructGetTypeAtIndex(t, i)
                                               : LLVMGetElementType(t);
      if (!zy_type_differentiable(et))
        continue;
      LLVMValueRef idx[2] = {LLVMConstInt(i32, 0, 0), LLVMConstInt(i32, i, 0)};
      LLVMValueRef at =
          k == LLVMVectorTypeKind
              ? LLVMBuildGEP2(b, et, ptr, idx + 1, 1, "")
              : LLVMBuildGEP2(b, t, ptr, idx, 2, "");
      LLVMValueRef e = k == LLVMVectorTypeKind
                           ? LLVMBuildExtractElement(b, d, idx[1], "")
                           : LLVMBuildExtractValue(b, d, i, "");
      atomic_add_deep(b, at, e);
    }
    return;
  }
  LLVMBuildAtomicRMW(b, LLVMAtomicRMWBinOpFAdd, ptr, d,
                     LLVMAtomicOrderingMonotonic, 0);
}

void zy_accumulate(ZyGen *g, LLVMValueRef ptr, LLVMValueRef delta,
                   ZyAccKind kind) {
  LLVMBuilderRef b = g->b;
  if (kind == ZY_ACC_ATOMIC) {
    atomic_add_deep(b, ptr, delta);
    return;
  }
  LLVMValueRef old = LLVMBuildLoad2(b, LLVMTypeOf(delta), ptr, "");
  LLVMBuildStore(b, add_deep(b, old, delta), ptr);
}

void zy_accumulate_shadow(ZyGen *g, LLVMValueRef p, LLVMValueRef shadow,
                          LLVMValueRef delta) {
  const ZyAccStrategy *s = zy_acc_strategy(g, p, delta);
  if (s)
    s->add(g, p, shadow, delta); /* registered by the runtimes */
  else
    zy_accumulate(g, shadow, delta, ZY_ACC_PLAIN);
}

void zy_add_adjoint(ZyGen *g, LLVMValueRef v, LLVMValueRef delta) {
  if (!delta || !(LLVMIsAInstruction(v) || LLVMIsAArgument(v)) ||
      !zy_activity_active(g->act, v))
    return;
  ZY_ASSERT(LLVMTypeOf(delta) == LLVMTypeOf(v));
  zy_accumulate(g, adjoint_slot(g, v), delta, ZY_ACC_PLAIN);
}

/* Loads the adjoint of `v` and resets it to zero: in the reverse sweep an
 * instruction's adjoint is complete when the instruction is reached. */
static LLVMValueRef take_adjoint(ZyGen *g, LLVMValueRef v) {
  LLVMValueRef slot = adjoint_slot(g, v);
  LLVMTypeRef t = LLVMTypeOf(v);
  LLVMValueRef d = LLVMBuildLoad2(g->b, t, slot, "");
  LLVMBuildStore(g->b, LLVMConstNull(t), slot);
  return d;
}

LLVMValueRef zy_lane_take_adjoint(ZyGen *g, LLVMValueRef v, unsigned j) {
  unsigned cur = g->lane;
  zy_lane_switch(g, j);
  LLVMValueRef d = take_adjoint(g, v);
  zy_lane_switch(g, cur);
  return d;
}

void zy_lane_add_adjoint(ZyGen *g, LLVMValueRef v, unsigned j,
                         LLVMValueRef delta) {
  unsigned cur = g->lane;
  zy_lane_switch(g, j);
  zy_add_adjoint(g, v, delta);
  zy_lane_switch(g, cur);
}

/* The forward value `fv` of primal block `pbb`, usable at the reverse
 * builder position.  Values of blocks that dominate every return are used
 * directly; the others go through a slot stored right after them. */
LLVMValueRef zy_reload(ZyGen *g, LLVMValueRef fv, LLVMBasicBlockRef pbb) {
  ZyLoop *l = zy_loop_of(g, pbb);
  if (l)
    return zy_loops_reload(g, fv, l);
  if (zy_map_has(&g->domrets, pbb) && !g->split)
    return fv;
  LLVMValueRef slot = zy_map_get(&g->cache, fv);
  if (!slot) {
    zy_loops_report(g, fv, "once, in a stack slot");
    slot = zy_new_slot(g, LLVMTypeOf(fv), "zymase.cache", 0);
    zy_vec_push(&g->tape, slot);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(g->zm->ctx);
    zy_position_after(g, b, fv);
    LLVMBuildStore(b, fv, slot);
    LLVMDisposeBuilder(b);
    zy_map_put(&g->cache, fv, slot);
  }
  return LLVMBuildLoad2(g->b, LLVMTypeOf(fv), slot, "");
}

LLVMValueRef zy_lookup(ZyGen *g, LLVMValueRef v) {
  if (LLVMIsAArgument(v))
    return zy_map_get(&g->vmap, v);
  if (!LLVMIsAInstruction(v))
    return v;
  if (zy_loop_of(g, LLVMGetInstructionParent(v)))
    return zy_plan_defer(g, v); /* cached or recomputed: see cacheplan.c */
  if (zy_split_recomputable(g, v))
    return zy_split_recompute(g, v); /* rather than saved in the tape */
  return zy_reload(g, zy_map_get(&g->vmap, v), LLVMGetInstructionParent(v));
}

static int reverse_instruction(ZyGen *g, LLVMValueRef i) {
  LLVMValueRef d = take_adjoint(g, i);
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMFAdd:
  case LLVMFSub:
  case LLVMFMul:
  case LLVMFDiv:
  case LLVMFRem:
  case LLVMFNeg:
  case LLVMFPExt:
  case LLVMFPTrunc:
  case LLVMFreeze:
  case LLVMSelect:
    return zy_reverse_arith(g, i, d);
  case LLVMExtractValue:
  case LLVMInsertValue:
  case LLVMExtractElement:
  case LLVMInsertElement:
  case LLVMShuffleVector:
    return zy_reverse_aggregate(g, i, d);
  case LLVMCall:
    return zy_reverse_call(g, i, d);
  case LLVMLoad:
    return zy_reverse_memory(g, i, d);
  default:
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                        "no derivative rule for this instruction");
  }
}

/* Returns the adjoints of the active arguments (in vector mode each
 * argument's lanes in a row). */
static void return_gradients(ZyGen *g) {
  LLVMTypeRef rt = LLVMGetReturnType(LLVMGlobalGetValueType(g->grad));
  if (LLVMGetTypeKind(rt) == LLVMVoidTypeKind) {
    g->retinst = LLVMBuildRetVoid(g->b);
    return;
  }
  LLVMValueRef r = LLVMGetUndef(rt);
  unsigned n = LLVMCountParams(g->primal), k = 0;
  for (unsigned i = 0; i < n; i++) {
    if (!(g->sig.active_args >> i & 1))
      continue;
    LLVMValueRef a = LLVMGetParam(g->primal, i);
    for (unsigned j = 0; j < ZY_LANES(g->sig); j++) {
      zy_lane_switch(g, j);
      LLVMValueRef d =
          zy_activity_active(g->act, a)
              ? LLVMBuildLoad2(g->b, LLVMTypeOf(a), adjoint_slot(g, a), "")
              : LLVMConstNull(LLVMTypeOf(a));
      r = LLVMBuildInsertValue(g->b, r, d, k++, "");
    }
  }
  zy_lane_switch(g, 0);
  g->retinst = LLVMBuildRet(g->b, r);
}

/* Leaves a reverse block towards the reverse of predecessor `pred`,
 * handing each phi's adjoint to the value that came from `pred` (phi k's
 * adjoint in lane j is dphis[k * lanes + j]). */
static void edge_to(ZyGen *g, LLVMBasicBlockRef bb, LLVMBasicBlockRef pred,
                    ZyVec *phis, ZyVec *dphis) {
  zy_loops_enter(g, bb, pred);
  zy_parallel()->priv_reverse_enter(g, bb, pred);
  unsigned w = ZY_LANES(g->sig);
  for (size_t k = 0; k < phis->len; k++) {
    LLVMValueRef p = phis->data[k];
    unsigned m = LLVMCountIncoming(p);
    for (unsigned j = 0; j < m; j++)
      if (LLVMGetIncomingBlock(p, j) == pred) {
        for (unsigned l = 0; l < w; l++)
          zy_lane_add_adjoint(g, LLVMGetIncomingValue(p, j), l,
                              dphis->data[k * w + l]);
        break;
      }
  }
  LLVMBuildBr(g->b, zy_map_get(&g->rblock, pred));
}

/* Ends the reverse of an iteration of loop `l`: back to the latch (the
 * previous iteration), or to the preheader after the first. */
static void leave_header(ZyGen *g, ZyLoop *l, ZyVec *phis, ZyVec *dphis) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(g->zm->ctx);
  LLVMValueRef one = LLVMConstInt(i64, 1, 0);
  LLVMValueRef r = LLVMBuildLoad2(g->b, i64, l->rc, "zymase.iv");
  LLVMValueRef n = LLVMBuildLoad2(g->b, i64, l->count, "");
  LLVMBuildStore(g->b, LLVMBuildSub(g->b, n, one, ""), l->count);
  LLVMBasicBlockRef first =
      LLVMAppendBasicBlockInContext(g->zm->ctx, g->grad, "reverse.loop.done");
  l->rdone = first;
  LLVMBasicBlockRef back =
      LLVMAppendBasicBlockInContext(g->zm->ctx, g->grad, "reverse.loop.back");
  LLVMBuildCondBr(g->b,
                  LLVMBuildICmp(g->b, LLVMIntEQ, r, LLVMConstInt(i64, 0, 0), ""),
                  first, back);
  LLVMPositionBuilderAtEnd(g->b, back);
  LLVMBuildStore(g->b, LLVMBuildSub(g->b, r, one, ""), l->rc);
  edge_to(g, l->header, l->latch, phis, dphis);
  LLVMPositionBuilderAtEnd(g->b, first);
  zy_parallel()->priv_reverse_leave(g, l);
  edge_to(g, l->header, l->preheader, phis, dphis);
}

/* Ends reverse block of `bb`: back to the predecessor the forward sweep
 * came from, or out of the gradient at the entry block. */
static void leave_block(ZyGen *g, LLVMBasicBlockRef bb, ZyVec *phis,
                        ZyVec *dphis) {
  ZyVec *preds = zy_preds(g, bb);
  ZyLoop *l = zy_loop_of(g, bb);
  if (bb == LLVMGetEntryBasicBlock(g->primal)) {
    return_gradients(g);
  } else if (l && l->header == bb) {
    leave_header(g, l, phis, dphis);
  } else if (preds->len == 0) {
    LLVMBuildUnreachable(g->b);
  } else if (preds->len == 1) {
    edge_to(g, bb, preds->data[0], phis, dphis);
  } else {
    LLVMValueRef from = zy_recompute_pred(g, bb);
    if (!from)
      from = zy_reload(g, zy_map_get(&g->predidx, bb), bb);
    LLVMBasicBlockRef here = LLVMGetInsertBlock(g->b);
    LLVMValueRef sw = LLVMBuildSwitch(g->b, from, here, preds->len);
    for (size_t k = 0; k < preds->len; k++) {
      LLVMBasicBlockRef edge =
          LLVMAppendBasicBlockInContext(g->zm->ctx, g->grad, "reverse.edge");
      LLVMAddCase(sw, LLVMConstInt(LLVMTypeOf(from), k, 0), edge);
      LLVMPositionBuilderAtEnd(g->b, edge);
      edge_to(g, bb, preds->data[k], phis, dphis);
    }
    /* The default is never taken; make it the last edge. */
    LLVMSetSuccessor(sw, 0, LLVMGetInsertBlock(g->b));
  }
}

/* Split mode: the reverse function starts here, seeding the adjoint of
 * the value returned by the return that the forward took. */
static void reverse_start(ZyGen *g) {
  LLVMPositionBuilderAtEnd(g->b, g->rstart);
  unsigned w = ZY_LANES(g->sig), np = LLVMCountParams(g->grad);
  size_t n = g->retblocks.len;
  LLVMValueRef sw = NULL;
  if (!n) { /* the function never returns (exit, abort, a loop forever) */
    LLVMBuildUnreachable(g->b);
    return;
  }
  if (n > 1) {
    LLVMValueRef k = LLVMBuildLoad2(g->b, LLVMInt32TypeInContext(g->zm->ctx),
                                    g->retslot, "");
    sw = LLVMBuildSwitch(g->b, k, g->rstart, n);
  }
  for (size_t j = 0; j < n; j++) {
    if (sw) {
      LLVMBasicBlockRef b =
          LLVMAppendBasicBlockInContext(g->zm->ctx, g->grad, "reverse.ret");
      LLVMAddCase(sw, LLVMConstInt(LLVMInt32TypeInContext(g->zm->ctx), j, 0),
                  b);
      if (j == n - 1)
        LLVMSetSuccessor(sw, 0, b);
      LLVMPositionBuilderAtEnd(g->b, b);
    }
    for (unsigned l = 0; g->sig.active_ret && g->retvals.data[j] && l < w; l++)
      zy_lane_add_adjoint(g, g->retvals.data[j], l,
                          LLVMGetParam(g->grad, np - w + l));
    LLVMBuildBr(g->b, zy_map_get(&g->rblock, g->retblocks.data[j]));
  }
}

/* The reverse of primal instruction `i`, once in each lane (once in all
 * for a call made for all lanes); `active`: it has an adjoint. */
static int reverse_lanes(ZyGen *g, LLVMValueRef i, int active) {
  unsigned w = zy_rlanes_lane_wide(g, i) ? 1 : ZY_LANES(g->sig);
  int err = 0;
  for (unsigned j = 0; j < w && !err; j++) {
    zy_lane_switch(g, j);
    if (active)
      err = reverse_instruction(g, i);
    else if (zy_reverse_memory_needed(g, i))
      err = zy_reverse_memory(g, i, NULL);
    else
      err = zy_reverse_call(g, i, NULL);
  }
  zy_lane_switch(g, 0);
  return err;
}

int zy_reverse_sweep(ZyGen *g) {
  ZyVec phis = {0}, dphis = {0};
  int err = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb && !err;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMPositionBuilderAtEnd(g->b, zy_map_get(&g->rblock, bb));
    if (!zy_map_has(&g->reachable, bb)) {
      LLVMBuildUnreachable(g->b);
      continue;
    }
    LLVMValueRef first = LLVMGetFirstInstruction(bb);
    for (LLVMValueRef i = LLVMGetLastInstruction(bb); i && !err;
         i = LLVMGetPreviousInstruction(i)) {
      if (LLVMIsAPHINode(i))
        continue;
      g->cur = i;
      if (zy_activity_active(g->act, i))
        err = reverse_lanes(g, i, 1);
      else if (zy_reverse_memory_needed(g, i))
        err = reverse_lanes(g, i, 0);
      else if (zy_parallel()->omp_reverse_needed(i))
        err = zy_parallel()->omp_reverse_sync(g, i);
      else if (zy_parallel()->gpu_reverse_needed(i))
        err = zy_parallel()->gpu_reverse_sync(g, i);
      else if (LLVMIsACallInst(i) && (zy_call_mode(g, i) == ZY_CALL_SPLIT ||
                                      zy_call_mode(g, i) == ZY_CALL_WRITER ||
                                      zy_call_mode(g, i) == ZY_CALL_BLAS ||
                                      zy_call_mode(g, i) == ZY_CALL_MPI))
        err = reverse_lanes(g, i, 0);
    }
    phis.len = dphis.len = 0;
    for (LLVMValueRef i = first; i && LLVMIsAPHINode(i);
         i = LLVMGetNextInstruction(i))
      if (zy_activity_active(g->act, i)) {
        zy_vec_push(&phis, i);
        for (unsigned j = 0; j < ZY_LANES(g->sig); j++)
          zy_vec_push(&dphis, zy_lane_take_adjoint(g, i, j));
      }
    if (!err)
      leave_block(g, bb, &phis, &dphis);
  }
  zy_vec_free(&phis);
  zy_vec_free(&dphis);
  if (!err)
    zy_reverse_memory_finish(g);
  if (!err)
    zy_parallel()->gpu_finish(g);
  if (!err && g->split)
    reverse_start(g);
  return err;
}
