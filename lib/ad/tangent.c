/* tangent.c - forward mode: the tangent function of a function, one sweep
 * that copies the primal body and computes beside each active value its
 * tangent (arithmetic, casts, selects, phis, aggregates, loads and stores
 * through shadow pointers).  Pointers get shadows as in the reverse
 * mode's forward sweep (shadow.c); calls are in tangent_calls.c.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad.h"
#include "runtime.h"

#include "ir/irutil.h"
#include "ir/rules.h"

#include <llvm-c/DebugInfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static LLVMValueRef map(ZyGen *g, LLVMValueRef v) {
  LLVMValueRef m = zy_map_get(&g->vmap, v);
  return m ? m : v;
}

LLVMValueRef zy_tangent_or_null(ZyGen *g, LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v);
  if (LLVMGetTypeKind(t) == LLVMPointerTypeKind)
    return zy_activity_shadowed(g->act, v) ? zy_shadow_forward_of(g, v) : NULL;
  if (LLVMIsAConstant(v) &&
      zy_type_pointer_aggregate(t)) /* its pointers' shadows, zero floats */
    return zy_shadow_forward_of(g, v);
  return zy_map_get(&g->tangent, v);
}

LLVMValueRef zy_tangent_value(ZyGen *g, LLVMValueRef v) {
  LLVMValueRef t = zy_tangent_or_null(g, v);
  return t ? t : LLVMConstNull(LLVMTypeOf(v));
}

LLVMValueRef zy_tangent_copy(ZyGen *g, LLVMValueRef i) {
  LLVMValueRef c = zy_map_get(&g->vmap, i);
  if (c)
    return c; /* an earlier lane copied it */
  c = LLVMInstructionClone(i);
  LLVMInsertIntoBuilderWithName(g->b, c, LLVMGetValueName(i));
  for (int o = 0, n = LLVMGetNumOperands(c); o < n; o++) {
    LLVMValueRef op = LLVMGetOperand(c, o);
    if (op && zy_map_has(&g->vmap, op))
      LLVMSetOperand(c, o, zy_map_get(&g->vmap, op));
  }
  zy_map_put(&g->vmap, i, c);
  return c;
}

static int is_debug_intrinsic(LLVMValueRef i) {
  LLVMValueRef f = LLVMIsACallInst(i) ? LLVMGetCalledValue(i) : NULL;
  return f && LLVMIsAFunction(f) &&
         !strncmp(LLVMGetValueName(f), "llvm.dbg.", 9);
}

/* a + b, a - b, a * b where NULL stands for zero. */
static LLVMValueRef add(ZyGen *g, LLVMValueRef a, LLVMValueRef b) {
  return !a ? b : !b ? a : LLVMBuildFAdd(g->b, a, b, "");
}
static LLVMValueRef sub(ZyGen *g, LLVMValueRef a, LLVMValueRef b) {
  return !b   ? a
         : !a ? LLVMBuildFNeg(g->b, b, "")
              : LLVMBuildFSub(g->b, a, b, "");
}
static LLVMValueRef mul(ZyGen *g, LLVMValueRef t, LLVMValueRef v) {
  return t ? LLVMBuildFMul(g->b, t, v, "") : NULL;
}

/* The tangent of a floating-point arithmetic instruction `i` (copied as
 * `c`), or NULL for zero. */
static LLVMValueRef arith(ZyGen *g, LLVMValueRef i, LLVMValueRef c) {
  LLVMValueRef a = LLVMGetOperand(i, 0);
  LLVMValueRef ta = zy_tangent_or_null(g, a);
  LLVMValueRef b = LLVMGetNumOperands(i) > 1 ? LLVMGetOperand(i, 1) : NULL;
  LLVMValueRef tb = b ? zy_tangent_or_null(g, b) : NULL;
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMFAdd:
    return add(g, ta, tb);
  case LLVMFSub:
    return sub(g, ta, tb);
  case LLVMFMul: { /* in this order: C leaves argument order open */
    LLVMValueRef l = mul(g, ta, map(g, b));
    return add(g, l, mul(g, tb, map(g, a)));
  }
  case LLVMFDiv: /* (ta - y tb) / b */
    if (!ta && !tb)
      return NULL;
    return LLVMBuildFDiv(g->b, sub(g, ta, mul(g, tb, c)), map(g, b), "");
  case LLVMFRem: { /* as fmod */
    LLVMValueRef x[2] = {map(g, a), map(g, b)}, tx[2] = {ta, tb};
    return zy_rule_tangent(g->b, zy_rule_named("fmod"), x, 2, c, tx);
  }
  case LLVMFNeg:
    return ta ? LLVMBuildFNeg(g->b, ta, "") : NULL;
  case LLVMFPExt:
    return ta ? LLVMBuildFPExt(g->b, ta, LLVMTypeOf(i), "") : NULL;
  case LLVMFPTrunc:
    return ta ? LLVMBuildFPTrunc(g->b, ta, LLVMTypeOf(i), "") : NULL;
  default:
    return NULL;
  }
}

/* Operand `o` of `i` is an index or a condition, not a value with a
 * tangent. */
static int index_operand(LLVMValueRef i, unsigned o) {
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMExtractElement:
    return o == 1;
  case LLVMInsertElement:
    return o == 2;
  case LLVMSelect:
    return o == 0;
  default:
    return 0;
  }
}

/* Instructions that only move values (aggregates, vectors, selects,
 * freeze, bitcasts between floating-point types): the same instruction
 * on the tangents. */
static LLVMValueRef moved(ZyGen *g, LLVMValueRef i) {
  int any = 0;
  unsigned n = LLVMGetNumOperands(i);
  for (unsigned o = 0; o < n; o++)
    if (!index_operand(i, o) && zy_tangent_or_null(g, LLVMGetOperand(i, o)))
      any = 1;
  if (!any)
    return NULL;
  LLVMValueRef t = LLVMInstructionClone(i);
  LLVMInsertIntoBuilderWithName(g->b, t, "");
  for (unsigned o = 0; o < n; o++) {
    LLVMValueRef v = LLVMGetOperand(i, o);
    LLVMSetOperand(t, o,
                   index_operand(i, o) ? map(g, v) : zy_tangent_value(g, v));
  }
  return t;
}

/* A shadowed aggregate holding pointers (forward activity): its tangent
 * holds its pointers' shadows (and its floats' tangents). */
static int pointer_aggregate(ZyGen *g, LLVMValueRef i) {
  return zy_type_pointer_aggregate(LLVMTypeOf(i)) &&
         zy_activity_shadowed(g->act, i);
}

/* An insertvalue of a pointer without a shadow (but null) into such an
 * aggregate: extracted again, it would have a null shadow. */
static int mixed_pointers(ZyGen *g, LLVMValueRef i) {
  if (LLVMGetInstructionOpcode(i) != LLVMInsertValue)
    return 0;
  LLVMValueRef v = LLVMGetOperand(i, 1);
  return zy_type_holds_pointer(LLVMTypeOf(v)) &&
         !zy_activity_shadowed(g->act, v) && !LLVMIsAConstantPointerNull(v) &&
         !LLVMIsAUndefValue(v) && !LLVMIsAPoisonValue(v) &&
         !LLVMIsAConstantAggregateZero(v);
}

static int is_moving(LLVMValueRef i) {
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMExtractValue:
  case LLVMInsertValue:
  case LLVMExtractElement:
  case LLVMInsertElement:
  case LLVMShuffleVector:
  case LLVMSelect:
  case LLVMFreeze:
    return 1;
  case LLVMBitCast:
    return zy_type_differentiable(LLVMTypeOf(LLVMGetOperand(i, 0)));
  default:
    return 0;
  }
}

static int refuse(ZyGen *g, const char *what) {
  return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                      "see README.md, \"Coming from Enzyme\", for what "
                      "__enzyme_fwddiff supports",
                      "forward mode: %s", what);
}

/* Stores and loads whose shadow cannot be mirrored (as check.c refuses
 * them for gradients): pointers with and without shadows mixed, and
 * floats moved through integers, whose tangents would be lost. */
static int check_memory(ZyGen *g, LLVMValueRef i) {
  int store = LLVMIsAStoreInst(i) != NULL;
  LLVMValueRef v = store ? LLVMGetOperand(i, 0) : i;
  LLVMValueRef p = LLVMGetOperand(i, store ? 1 : 0);
  int sp = zy_activity_shadowed(g->act, p);
  int sv = store && zy_activity_shadowed(g->act, v);
  if (sv && !sp)
    return refuse(g, "a pointer to memory that has a shadow is stored to "
                     "memory that has none");
  LLVMTypeKind k = LLVMGetTypeKind(LLVMTypeOf(v));
  if (!sp || sv || zy_type_differentiable(LLVMTypeOf(v)) ||
      (store && (LLVMIsAConstant(v) || LLVMIsUndef(v))))
    return 0;
  if (store && k == LLVMPointerTypeKind &&
      !zy_activity_unshadowed_slot(g->act, p))
    return refuse(g, "a pointer without a shadow is stored to memory that "
                     "has one");
  ZyTy held = zy_types_memory(g->types, p, 0);
  if (k == LLVMIntegerTypeKind &&
      (zy_ty_is_float(held) || held == ZY_TY_ANYTHING))
    return refuse(g, store ? "floating-point data is stored as an integer"
                           : "floating-point data is loaded as an integer");
  return 0;
}

/* A load or store through a shadowed pointer: the same on the shadow. */
static int memory(ZyGen *g, LLVMValueRef i, LLVMValueRef c) {
  int store = LLVMIsAStoreInst(i) != NULL;
  LLVMValueRef p = LLVMGetOperand(i, store ? 1 : 0);
  LLVMTypeRef t = LLVMTypeOf(store ? LLVMGetOperand(i, 0) : i);
  if (!zy_type_differentiable(t) || !zy_activity_shadowed(g->act, p))
    return 0;
  LLVMValueRef s = zy_shadow_forward_of(g, p), m;
  if (store)
    m = LLVMBuildStore(g->b, zy_tangent_value(g, LLVMGetOperand(i, 0)), s);
  else if (zy_activity_active(g->act, i))
    zy_map_put(&g->tangent, i, m = LLVMBuildLoad2(g->b, t, s, ""));
  else
    return 0;
  LLVMSetAlignment(m, LLVMGetAlignment(c));
  LLVMSetVolatile(m, LLVMGetVolatile(c));
  LLVMSetOrdering(m, LLVMGetOrdering(c)); /* `omp atomic read`, `write` */
  return 0;
}

/* An atomic add or subtract of a float into memory with a shadow (`omp
 * atomic` updates): the same atomic operation of the tangent on the
 * shadow.  The old value it returns has no tangent that pairs with it (the
 * two atomics may be ordered differently among threads): refused where
 * it is used with a derivative, as are other atomics on such memory. */
static int atomic_rmw(ZyGen *g, LLVMValueRef i, LLVMValueRef c) {
  LLVMValueRef p = LLVMGetOperand(i, 0), v = LLVMGetOperand(i, 1);
  if (!zy_type_differentiable(LLVMTypeOf(v)) ||
      !zy_activity_shadowed(g->act, p))
    return 0;
  LLVMAtomicRMWBinOp op = LLVMIsAAtomicRMWInst(i) ? LLVMGetAtomicRMWBinOp(i)
                                                  : LLVMAtomicRMWBinOpXchg;
  if (!LLVMIsAAtomicRMWInst(i) ||
      (op != LLVMAtomicRMWBinOpFAdd && op != LLVMAtomicRMWBinOpFSub))
    return refuse(g, "an atomic operation on floating-point memory with "
                     "derivatives other than an atomic add or subtract");
  if (LLVMGetFirstUse(i) && zy_activity_active(g->act, i))
    return refuse(g, "the old value of an atomic add to floating-point "
                     "memory (an `omp atomic capture`) used with a "
                     "derivative");
  LLVMValueRef t = zy_tangent_or_null(g, v);
  if (t)
    LLVMBuildAtomicRMW(g->b, op, zy_shadow_forward_of(g, p), t,
                       LLVMGetOrdering(c), LLVMIsAtomicSingleThread(c));
  return 0;
}

/* One primal instruction in the current lane: its copy (made by the
 * first lane), then its tangent or shadow. */
static int visit_lane(ZyGen *g, LLVMValueRef i, ZyVec *phis) {
  LLVMOpcode op = LLVMGetInstructionOpcode(i);
  LLVMTypeRef t = LLVMTypeOf(i);
  int diff = zy_type_differentiable(t);
  g->cur = i;
  if (is_debug_intrinsic(i))
    return 0;
  if (op == LLVMPHI) {
    if (!zy_map_has(&g->vmap, i)) {
      zy_map_put(&g->vmap, i, LLVMBuildPhi(g->b, t, LLVMGetValueName(i)));
      zy_vec_push(phis, i);
    }
    if ((diff && zy_activity_active(g->act, i)) || pointer_aggregate(g, i))
      zy_map_put(&g->tangent, i, LLVMBuildPhi(g->b, t, ""));
    return zy_shadow_forward(g, i);
  }
  if (op == LLVMCall)
    return zy_tangent_call(g, i);
  if (op == LLVMInvoke || op == LLVMCallBr)
    return refuse(g, "an invoke (a call that may throw); compile with "
                     "-fno-exceptions");
  if (op == LLVMIntToPtr && zy_check_int_to_ptr(g, i))
    return -1;
  LLVMValueRef c = zy_tangent_copy(g, i);
  if (op == LLVMAtomicRMW || op == LLVMAtomicCmpXchg)
    return atomic_rmw(g, i, c);
  if (op == LLVMLoad || op == LLVMStore) {
    if (check_memory(g, i) || memory(g, i, c))
      return -1;
    return zy_shadow_forward(g, i);
  }
  /* (a pointer's bits in an integer, ptrtoint and + or - an offset: the
   * same on the shadow's bits, as in reverse mode) */
  if (LLVMGetTypeKind(t) == LLVMPointerTypeKind ||
      (LLVMGetTypeKind(t) == LLVMIntegerTypeKind &&
       zy_activity_shadowed(g->act, i)))
    return zy_shadow_forward(g, i);
  int agg = pointer_aggregate(g, i);
  if (!agg && (!diff || !zy_activity_active(g->act, i)))
    return 0;
  LLVMValueRef d = NULL;
  if (agg && mixed_pointers(g, i))
    return refuse(g, "a pointer without a shadow is put in an aggregate "
                     "with pointers that have one");
  if (is_moving(i))
    d = moved(g, i);
  else if (op == LLVMSIToFP || op == LLVMUIToFP || op == LLVMBitCast)
    d = NULL; /* from integers: no derivative */
  else if (op == LLVMFAdd || op == LLVMFSub || op == LLVMFMul ||
           op == LLVMFDiv || op == LLVMFRem || op == LLVMFNeg ||
           op == LLVMFPExt || op == LLVMFPTrunc)
    d = arith(g, i, c);
  else
    return refuse(g, "no tangent for this instruction");
  if (d)
    zy_map_put(&g->tangent, i, d);
  return 0;
}

/* One primal instruction: visit_lane in every lane. */
static int visit(ZyGen *g, LLVMValueRef i, ZyVec *phis) {
  if (!g->lanes)
    return visit_lane(g, i, phis);
  g->cur = i;
  int err = zy_lanes_check(g, i);
  for (unsigned j = 0; j < g->width && !err; j++) {
    zy_lane_switch(g, j);
    err = visit_lane(g, i, phis);
  }
  zy_lane_switch(g, 0);
  return err;
}

/* `ret v`: returns { v, tangent of v } as the signature says; the
 * return made. */
static LLVMValueRef lower_return(ZyGen *g, LLVMValueRef ret) {
  LLVMTypeRef rt = LLVMGetReturnType(LLVMGlobalGetValueType(g->grad));
  if (LLVMGetTypeKind(rt) == LLVMVoidTypeKind)
    return LLVMBuildRetVoid(g->b);
  LLVMValueRef r = LLVMGetUndef(rt);
  unsigned k = 0;
  if (LLVMGetNumOperands(ret))
    r = LLVMBuildInsertValue(g->b, r, map(g, LLVMGetOperand(ret, 0)), k++, "");
  for (unsigned j = 0;
       (g->sig.active_ret || g->sig.dup_ret) && j < (g->lanes ? g->width : 1);
       j++)
    r = LLVMBuildInsertValue(g->b, r,
                             g->lanes
                                 ? zy_lane_tangent(g, LLVMGetOperand(ret, 0), j)
                                 : zy_tangent_value(g, LLVMGetOperand(ret, 0)),
                             k++, "");
  return LLVMBuildRet(g->b, r);
}

/* The incoming values of the copies of primal phis `phis` (`primal`:
 * in the first lane) and of their tangents in the current lane. */
static void fill_phis(ZyGen *g, ZyVec *phis, int primal) {
  for (size_t k = 0; k < phis->len; k++) {
    LLVMValueRef p = phis->data[k], c = zy_map_get(&g->vmap, p);
    LLVMValueRef tp = zy_map_get(&g->tangent, p);
    for (unsigned j = 0; j < LLVMCountIncoming(p); j++) {
      LLVMBasicBlockRef in = LLVMGetIncomingBlock(p, j);
      if (!zy_map_has(&g->reachable, in))
        continue;
      LLVMBasicBlockRef from = zy_map_get(&g->fend, in);
      LLVMValueRef v = map(g, LLVMGetIncomingValue(p, j));
      if (primal)
        LLVMAddIncoming(c, &v, &from, 1);
      if (tp) {
        LLVMValueRef d = zy_tangent_value(g, LLVMGetIncomingValue(p, j));
        LLVMAddIncoming(tp, &d, &from, 1);
      }
    }
  }
}

/* Blocks in reverse post-order: each block after its dominators. */
static void order_blocks(ZyGen *g) {
  ZyVec stack = {0}, post = {0};
  ZyMap next = {0};
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(g->primal);
  zy_vec_push(&stack, entry);
  zy_map_put(&g->reachable, entry, entry);
  while (stack.len) {
    LLVMBasicBlockRef bb = stack.data[stack.len - 1];
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    unsigned k = (unsigned)(size_t)zy_map_get(&next, bb);
    if (t && k < LLVMGetNumSuccessors(t)) {
      zy_map_put(&next, bb, (void *)(size_t)(k + 1));
      LLVMBasicBlockRef s = LLVMGetSuccessor(t, k);
      if (!zy_map_has(&g->reachable, s)) {
        zy_map_put(&g->reachable, s, s);
        zy_vec_push(&stack, s);
      }
      continue;
    }
    stack.len--;
    zy_vec_push(&post, bb);
  }
  for (size_t i = post.len; i-- > 0;)
    zy_vec_push(&g->order, post.data[i]);
  zy_vec_free(&stack);
  zy_vec_free(&post);
  zy_map_free(&next);
}

static int sweep(ZyGen *g) {
  LLVMContextRef ctx = g->zm->ctx;
  g->allocas = LLVMAppendBasicBlockInContext(ctx, g->grad, "zymase.slots");
  for (size_t k = 0; k < g->order.len; k++) {
    LLVMBasicBlockRef bb = g->order.data[k];
    LLVMBasicBlockRef fb =
        LLVMAppendBasicBlockInContext(ctx, g->grad, LLVMGetBasicBlockName(bb));
    zy_map_put(&g->vmap, bb, fb);
    zy_map_put(&g->vmap, LLVMBasicBlockAsValue(bb), LLVMBasicBlockAsValue(fb));
    zy_map_put(&g->fend, bb, fb);
  }
  unsigned n = LLVMCountParams(g->primal), next = n;
  unsigned w = g->lanes ? g->width : 1;
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef p = LLVMGetParam(g->primal, i);
    zy_map_put(&g->vmap, p, LLVMGetParam(g->grad, i));
    for (unsigned j = 0; j < w; j++) {
      zy_lane_switch(g, j);
      if (g->sig.dup_args >> i & 1)
        zy_map_put(&g->shadow, p, LLVMGetParam(g->grad, next++));
      else if (g->sig.active_args >> i & 1)
        zy_map_put(&g->tangent, p, LLVMGetParam(g->grad, next++));
    }
    zy_lane_switch(g, 0);
  }
  ZyVec phis = {0}, rets = {0};
  int err = 0;
  for (size_t k = 0; k < g->order.len && !err; k++) {
    LLVMBasicBlockRef bb = g->order.data[k];
    LLVMPositionBuilderAtEnd(g->b, zy_map_get(&g->vmap, bb));
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && !err;
         i = LLVMGetNextInstruction(i)) {
      LLVMSetCurrentDebugLocation2(g->b, LLVMInstructionGetDebugLoc(i));
      if (LLVMGetInstructionOpcode(i) == LLVMRet)
        zy_vec_push(&rets, lower_return(g, i));
      else
        err = visit(g, i, &phis);
    }
  }
  for (unsigned j = 0; j < w && !err; j++) {
    zy_lane_switch(g, j);
    fill_phis(g, &phis, j == 0);
    err = zy_shadow_phis(g, &phis);
  }
  zy_lane_switch(g, 0);
  zy_vec_free(&phis);
  LLVMSetCurrentDebugLocation2(g->b, NULL);
  /* (device code: the dynamic shared memory's shadow freed by the block
   * before each return, after a barrier) */
  for (size_t k = 0; k < rets.len && !err; k++) {
    g->retinst = rets.data[k];
    zy_parallel()->gpu_dynamic_release(g);
  }
  zy_vec_free(&rets);
  /* (device code: the block zeroes the __shared__ shadows first) */
  LLVMPositionBuilderAtEnd(g->b, g->allocas);
  zy_parallel()->gpu_zero_shared(
      g, g->b, zy_map_get(&g->vmap, LLVMGetEntryBasicBlock(g->primal)));
  return err;
}

static LLVMValueRef declare(LLVMValueRef fn, ZySig sig, const char *name) {
  LLVMTypeRef fty = LLVMGlobalGetValueType(fn);
  unsigned n = LLVMCountParamTypes(fty), np = n, w = sig.width ? sig.width : 1;
  LLVMTypeRef *params = malloc((n * (w + 1) + 1) * sizeof *params);
  LLVMTypeRef *fields = malloc((w + 1) * sizeof *fields);
  LLVMTypeRef ret = LLVMGetReturnType(fty);
  LLVMGetParamTypes(fty, params);
  for (unsigned i = 0; i < np; i++)
    for (unsigned j = 0; j < w && ((sig.active_args | sig.dup_args) >> i & 1);
         j++)
      params[n++] = params[i];
  unsigned nf = 0;
  if (LLVMGetTypeKind(ret) != LLVMVoidTypeKind)
    fields[nf++] = ret;
  for (unsigned j = 0; j < w && (sig.active_ret || sig.dup_ret); j++)
    fields[nf++] = ret;
  LLVMContextRef c = LLVMGetTypeContext(fty);
  LLVMTypeRef rt =
      nf ? LLVMStructTypeInContext(c, fields, nf, 0) : LLVMVoidTypeInContext(c);
  LLVMValueRef f = LLVMAddFunction(LLVMGetGlobalParent(fn), name,
                                   LLVMFunctionType(rt, params, n, 0));
  LLVMSetLinkage(f, LLVMInternalLinkage);
  free(params);
  free(fields);
  return f;
}

static void free_state(ZyGen *g) {
  zy_lanes_end(g);
  zy_map_free(&g->vmap);
  zy_map_free(&g->shadow);
  zy_map_free(&g->tangent);
  zy_map_free(&g->fend);
  zy_map_free(&g->reachable);
  zy_map_free(&g->sizes);
  zy_map_free(&g->tapes);
  zy_vec_free(&g->gpu_shared);
  zy_map_free(&g->gpu_dynexprs);
  zy_vec_free(&g->order);
  if (g->types)
    zy_types_free(g->types);
  if (g->act)
    zy_activity_free(g->act);
  if (g->b)
    LLVMDisposeBuilder(g->b);
  if (g->primal)
    LLVMDeleteFunction(g->primal);
}

static int build(ZyGen *g) {
  g->primal = zy_preprocess(g->user);
  zy_sizes_analyze(g);
  g->types = zy_types_analyze(g->primal, g->seeds);
  if (zy_punning_retype(g)) { /* floats moved through integers */
    zy_types_free(g->types);
    g->types = zy_types_analyze(g->primal, g->seeds);
  }
  if (zy_runtimes_prepare(g)) { /* MPI: contiguous datatypes */
    zy_types_free(g->types);
    g->types = zy_types_analyze(g->primal, g->seeds);
  }
  g->act = zy_activity_compute(g->primal, g->sig.active_args, g->sig.dup_args,
                               g->sig.active_ret || g->sig.dup_ret);
  zy_punning_warn(g);
  if (zy_parallel()->omp_check(g) ||         /* OpenMP constructs refused */
      zy_parallel()->gpu_shuffle_check(g) || /* device: float bits moved */
      zy_parallel()->gpu_dynamic_shared_check(g))
    return -1;
  order_blocks(g);
  if (g->sig.width > 1)
    zy_lanes_begin(g, g->sig.width);
  g->b = LLVMCreateBuilderInContext(g->zm->ctx);
  if (sweep(g))
    return -1;
  if (zy_opt_verify_steps() && zy_llvm_verify_function(g->grad))
    fprintf(stderr, "zymase: invalid IR in '%s' after the tangent sweep\n",
            LLVMGetValueName(g->grad));
  if (zy_opt_postopt())
    zy_llvm_simplify_function(g->grad, 2);
  if (zy_opt_print_gradient()) {
    char *s = LLVMPrintValueToString(g->grad);
    fprintf(stderr, "%s\n", s);
    LLVMDisposeMessage(s);
  }
  return 0;
}

LLVMValueRef zy_tangent(ZyModule *zm, LLVMValueRef fn, ZySig sig,
                        const ZyTT *seeds) {
  char name[256], width[16] = "";
  if (sig.width > 1)
    snprintf(width, sizeof width, ".w%u", sig.width);
  snprintf(name, sizeof name, "__zymase_fwd.%s.%llx.d%llx%s%s%s",
           LLVMGetValueName(fn), sig.active_args, sig.dup_args,
           sig.active_ret ? "r" : "", sig.dup_ret ? "s" : "", width);
  LLVMValueRef f = LLVMGetNamedFunction(zm->mod, name);
  if (f) /* made before, or being made (recursion); a failed one has no body */
    return LLVMIsDeclaration(f) ? NULL : f;
  f = declare(fn, sig, name);
  if (LLVMHasPersonalityFn(fn))
    LLVMSetPersonalityFn(f, LLVMGetPersonalityFn(fn));
  ZyGen g = {.zm = zm, .user = fn, .grad = f, .sig = sig, .seeds = seeds,
             .tangent_mode = 1};
  int err = build(&g);
  free_state(&g);
  if (!err)
    return f;
  LLVMBasicBlockRef bb;
  while ((bb = LLVMGetFirstBasicBlock(f)))
    LLVMDeleteBasicBlock(bb);
  LLVMSetLinkage(f, LLVMExternalLinkage);
  return NULL;
}
