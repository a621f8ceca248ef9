/* replay.c - recurrences run again in the reverse sweep instead of being
 * cached.
 *
 * A phi of a loop header whose next value is computed, by cheap pure
 * operations, from the phi itself and from values of outside the loop is
 * a recurrence: LLSQ's  tj *= t  over j.  The reverse sweep needs its
 * value in every iteration; caching it costs one value per iteration of
 * every entry of the loop (m*n doubles for LLSQ, a gigabyte at the large
 * size).  Instead, where the reverse sweep enters the loop (from one of
 * its exits, once its iteration number `rc` is known), a small loop runs
 * the recurrence again from its start value for the iterations of this
 * entry, into a scratch buffer the reverse of iteration rc reads at rc.
 * The scratch holds one entry's values and serves every entry in turn;
 * it grows geometrically and is freed at the end of the reverse sweep.
 * Only recurrences of inner loops are replayed: an outermost loop is
 * entered once, and its scratch would be as large as the cache.
 *
 * The replay is a chain of dependent operations (16 multiplications one
 * after the other per entry of LLSQ's inner loop at the medium size); a
 * load does not wait.  So the forward sweep also logs the values, at the
 * index of their iteration in the call (`idx`), in a buffer grown up to
 * -zymase-replay-log-mb per loop where the loop's buffers grow; once the
 * iterations of the call need more, the log is turned off (a flag the
 * header tests).  The reverse sweep reads the entries from the log when
 * the call's iterations fitted, else replays them: small runs are read
 * back like a cache, large ones cost a test per iteration, not a
 * gigabyte.
 * The cache plan (cacheplan.c) treats such a phi as recomputable from its
 * start value and the outside values; the replay is emitted once the plan
 * is known, in the blocks zy_replay_mark left at each entry.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "cache.h"

#include "ir/irutil.h"

#include <llvm-c/Target.h>
#include <stdio.h>
#include <string.h>

#define YES ((void *)1)
#define NO ((void *)2)
#define MAX_CHAIN 16

static int in_loop(ZyGen *g, ZyLoop *l, LLVMValueRef v) {
  return LLVMIsAInstruction(v) &&
         zy_loop_contains(g, l, LLVMGetInstructionParent(v));
}

/* llvm.fmuladd and llvm.fma: what clang makes of  h = h * t + c. */
static int fused_multiply_add(LLVMValueRef v) {
  LLVMValueRef f = LLVMIsACallInst(v) ? LLVMGetCalledValue(v) : NULL;
  if (!f || !LLVMIsAFunction(f))
    return 0;
  const char *name = LLVMGetValueName(f);
  return !strncmp(name, "llvm.fmuladd.", 13) || !strncmp(name, "llvm.fma.", 9);
}

/* Collects, operands first, the instructions of loop `l` that `v` is
 * computed from, back to `phi`; and the instructions and arguments from
 * outside the loop they use.  0 when one of them is not cheap and pure. */
static int chain(ZyGen *g, ZyLoop *l, LLVMValueRef phi, LLVMValueRef v,
                 ZyVec *members, ZyVec *outside) {
  if (v == phi || zy_vec_contains(members, v))
    return 1;
  if (!LLVMIsAInstruction(v) && !LLVMIsAArgument(v))
    return 1; /* a constant */
  if (!in_loop(g, l, v)) {
    if (!zy_vec_contains(outside, v))
      zy_vec_push(outside, v);
    return 1;
  }
  if (LLVMIsAPHINode(v) || members->len >= MAX_CHAIN ||
      !(zy_cheap_opcode(LLVMGetInstructionOpcode(v)) || fused_multiply_add(v)))
    return 0;
  int n = LLVMIsACallInst(v) ? (int)LLVMGetNumArgOperands(v)
                             : LLVMGetNumOperands(v);
  for (int k = 0; k < n; k++)
    if (!chain(g, l, phi, LLVMGetOperand(v, k), members, outside))
      return 0;
  zy_vec_push(members, v);
  return 1;
}

static ZyLoop *header_loop(ZyGen *g, LLVMValueRef phi) {
  LLVMBasicBlockRef bb = LLVMGetInstructionParent(phi);
  ZyLoop *l = zy_loop_of(g, bb);
  return l && l->header == bb && l->preheader && l->latch &&
                 LLVMCountIncoming(phi) == 2
             ? l
             : NULL;
}

static LLVMValueRef incoming(LLVMValueRef phi, LLVMBasicBlockRef from) {
  for (unsigned k = 0; k < LLVMCountIncoming(phi); k++)
    if (LLVMGetIncomingBlock(phi, k) == from)
      return LLVMGetIncomingValue(phi, k);
  return NULL;
}

int zy_replayable(ZyGen *g, LLVMValueRef phi) {
  void *known = zy_map_get(&g->replayable, phi);
  if (known)
    return known == YES;
  int ok = 0;
  /* Only inner loops: the scratch of one entry replaces a cache of all
   * of them.  An outermost loop is entered once; there the replay would
   * save nothing and repeat the work. */
  ZyLoop *l = LLVMIsAPHINode(phi) && !g->split ? header_loop(g, phi) : NULL;
  if (l && !l->parent)
    l = NULL;
  LLVMTypeKind k = LLVMGetTypeKind(LLVMTypeOf(phi));
  if (l && (k == LLVMIntegerTypeKind || k == LLVMFloatTypeKind ||
            k == LLVMDoubleTypeKind) && !zy_affine_start(g, phi)) {
    ZyVec members = {0}, outside = {0};
    LLVMValueRef next = incoming(phi, l->latch);
    ok = next && incoming(phi, l->preheader) &&
         chain(g, l, phi, next, &members, &outside);
    zy_vec_free(&members);
    zy_vec_free(&outside);
  }
  zy_map_put(&g->replayable, phi, ok ? YES : NO);
  return ok;
}

void zy_replay_sources(ZyGen *g, LLVMValueRef phi, ZyVec *out) {
  ZyLoop *l = header_loop(g, phi);
  ZyVec members = {0};
  zy_vec_push(out, incoming(phi, l->preheader));
  chain(g, l, phi, incoming(phi, l->latch), &members, out);
  zy_vec_free(&members);
}

void zy_replay_mark(ZyGen *g, ZyLoop *l) {
  if (!l->replay_known) {
    l->replay_known = 1;
    for (LLVMValueRef p = LLVMGetFirstInstruction(l->header);
         p && LLVMIsAPHINode(p); p = LLVMGetNextInstruction(p))
      l->replay_any |= zy_replayable(g, p);
  }
  if (!l->replay_any)
    return;
  LLVMBasicBlockRef at =
      LLVMAppendBasicBlockInContext(g->zm->ctx, g->grad, "reverse.replay");
  LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(
      g->zm->ctx, g->grad, "reverse.replay.done");
  LLVMBuildBr(g->b, at);
  LLVMPositionBuilderAtEnd(g->b, at);
  LLVMBuildBr(g->b, cont);
  LLVMPositionBuilderAtEnd(g->b, cont);
  zy_vec_push(&l->replays, at);
}

/* In the forward sweep: a log of the phis (log.c), stored at the header,
 * after the growth, at idx while it is on.  0 when the loop gets no log. */
static int log_forward(ZyGen *g, ZyLoop *l, ZyVec *phis, ZyLog *lg) {
  LLVMContextRef c = g->zm->ctx;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c),
              ptr = LLVMPointerTypeInContext(c, 0);
  LLVMBasicBlockRef put;
  if (!zy_log_new(g, l, phis, zy_opt_replay_log_mb(), "zymase.replay.log", lg,
                  &put))
    return 0;
  if (!put)
    return 0; /* (a header always has its growth site) */
  /* if (on) log[idx] = phi: no store once the log is off */
  LLVMBasicBlockRef body,
      store = zy_log_branch_off(g, put, "zymase.log", &body);
  LLVMValueRef on =
      LLVMBuildICmp(g->b, LLVMIntNE, LLVMBuildLoad2(g->b, i64, lg->on, ""),
                    LLVMConstInt(i64, 0, 0), "zymase.log.on");
  LLVMBuildCondBr(g->b, on, store, body);
  LLVMPositionBuilderAtEnd(g->b, store);
  for (size_t k = 0; k < phis->len; k++) {
    LLVMValueRef buf = LLVMBuildLoad2(g->b, ptr, lg->slots.data[k], "");
    zy_cache_access(
        g, LLVMBuildStore(g->b, zy_map_get(&g->vmap, phis->data[k]),
                          LLVMBuildInBoundsGEP2(g->b, lg->types.data[k], buf,
                                                &l->idx, 1, "")));
  }
  LLVMBuildBr(g->b, body);
  return 1;
}

/* Entry block `at` of the reverse of `l`: when the log holds every
 * iteration of the call (its last need fits), the phis' pointers `reads`
 * are set into it, at this entry's first iteration, and the replay is
 * skipped.  Returns the block to go on with for the replay. */
static LLVMBasicBlockRef log_reverse(ZyGen *g, ZyLoop *l, LLVMBasicBlockRef at,
                                     LLVMBasicBlockRef cont, ZyVec *reads,
                                     ZyLog *lg) {
  LLVMContextRef c = g->zm->ctx;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c),
              ptr = LLVMPointerTypeInContext(c, 0);
  LLVMBasicBlockRef from =
      LLVMAppendBasicBlockInContext(c, g->grad, "reverse.replay.log");
  LLVMBasicBlockRef replay =
      LLVMAppendBasicBlockInContext(c, g->grad, "reverse.replay.run");
  LLVMPositionBuilderAtEnd(g->b, at);
  LLVMBuildCondBr(g->b, zy_log_held(g, lg), from, replay);
  LLVMPositionBuilderAtEnd(g->b, from);
  LLVMValueRef n = LLVMBuildLoad2(g->b, i64, l->count, "");
  LLVMValueRef last = LLVMBuildLoad2(g->b, i64, l->rc, "zymase.iv");
  LLVMValueRef first = LLVMBuildSub(
      g->b, n, LLVMBuildAdd(g->b, last, LLVMConstInt(i64, 1, 0), ""), "");
  for (size_t k = 0; k < reads->len; k++) {
    LLVMValueRef buf = LLVMBuildLoad2(g->b, ptr, lg->slots.data[k], "");
    LLVMBuildStore(
        g->b,
        LLVMBuildInBoundsGEP2(g->b, lg->types.data[k], buf, &first, 1, ""),
        reads->data[k]);
  }
  LLVMBuildBr(g->b, cont);
  return replay;
}

/* Fills entry block `at` (which branches to its continuation) with the
 * replay of the phis `phis` of loop `l`, into the scratch buffers
 * `slots`, and points the slots `reads` the reverse reads at them (or at
 * the log `lg`, when not NULL and it holds the entry). */
static void emit_at(ZyGen *g, ZyLoop *l, LLVMBasicBlockRef at, ZyVec *phis,
                    ZyVec *slots, ZyVec *reads, ZyLog *lg) {
  LLVMContextRef c = g->zm->ctx;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c),
              ptr = LLVMPointerTypeInContext(c, 0);
  LLVMValueRef br = LLVMGetBasicBlockTerminator(at);
  LLVMBasicBlockRef cont = LLVMGetSuccessor(br, 0);
  LLVMInstructionEraseFromParent(br);
  if (lg)
    at = log_reverse(g, l, at, cont, reads, lg);
  LLVMBasicBlockRef grow =
      LLVMAppendBasicBlockInContext(c, g->grad, "reverse.replay.grow");
  LLVMBasicBlockRef pre =
      LLVMAppendBasicBlockInContext(c, g->grad, "reverse.replay.pre");
  LLVMBasicBlockRef body =
      LLVMAppendBasicBlockInContext(c, g->grad, "reverse.replay.loop");
  LLVMValueRef one = LLVMConstInt(i64, 1, 0);

  /* Room for last+1 values: the iterations of this entry. */
  LLVMPositionBuilderAtEnd(g->b, at);
  LLVMValueRef last = LLVMBuildLoad2(g->b, i64, l->rc, "zymase.iv");
  LLVMValueRef need = LLVMBuildAdd(g->b, last, one, "");
  LLVMValueRef cap = LLVMBuildLoad2(g->b, i64, l->replay_cap, "");
  LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntUGT, need, cap, ""), grow,
                  pre);
  LLVMPositionBuilderAtEnd(g->b, grow);
  LLVMValueRef ncap = LLVMBuildAdd(g->b, LLVMBuildShl(g->b, need, one, ""),
                                   LLVMConstInt(i64, 8, 0), "");
  ZyVec types = {0};
  for (size_t k = 0; k < phis->len; k++)
    zy_vec_push(&types, LLVMTypeOf(phis->data[k]));
  zy_loops_realloc(g, slots, &types, ncap, NULL, &l->replay_locals);
  zy_vec_free(&types);
  LLVMBuildStore(g->b, ncap, l->replay_cap);
  LLVMBuildBr(g->b, pre);

  /* Start values and what the recurrences use from outside the loop. */
  LLVMPositionBuilderAtEnd(g->b, pre);
  for (size_t k = 0; reads != slots && k < reads->len; k++)
    LLVMBuildStore(g->b, LLVMBuildLoad2(g->b, ptr, slots->data[k], ""),
                   reads->data[k]);
  ZyMap val = {0};
  ZyVec members[phis->len ? phis->len : 1];
  LLVMValueRef starts[phis->len ? phis->len : 1];
  for (size_t k = 0; k < phis->len; k++) {
    LLVMValueRef phi = phis->data[k];
    ZyVec outside = {0};
    members[k] = (ZyVec){0};
    chain(g, l, phi, incoming(phi, l->latch), &members[k], &outside);
    starts[k] = zy_plan_value(g, incoming(phi, l->preheader));
    for (size_t j = 0; j < outside.len; j++)
      if (!zy_map_has(&val, outside.data[j]))
        zy_map_put(&val, outside.data[j], zy_plan_value(g, outside.data[j]));
    zy_vec_free(&outside);
  }
  LLVMBuildBr(g->b, body);

  /* for k in 0..last: scratch[k] = phi; phi = next(phi) */
  LLVMPositionBuilderAtEnd(g->b, body);
  LLVMValueRef iv = LLVMBuildPhi(g->b, i64, "zymase.replay.iv");
  LLVMValueRef cur[phis->len ? phis->len : 1];
  for (size_t k = 0; k < phis->len; k++) {
    cur[k] = LLVMBuildPhi(g->b, LLVMTypeOf(phis->data[k]), "zymase.replay");
    zy_map_put(&val, phis->data[k], cur[k]);
  }
  for (size_t k = 0; k < phis->len; k++) {
    LLVMTypeRef t = LLVMTypeOf(phis->data[k]);
    LLVMValueRef buf = LLVMBuildLoad2(g->b, ptr, slots->data[k], "");
    zy_cache_access(
        g, LLVMBuildStore(g->b, cur[k],
                          LLVMBuildInBoundsGEP2(g->b, t, buf, &iv, 1, "")));
  }
  LLVMValueRef next[phis->len ? phis->len : 1];
  for (size_t k = 0; k < phis->len; k++) {
    ZyVec *m = &members[k];
    for (size_t j = 0; j < m->len; j++) {
      LLVMValueRef v = m->data[j];
      if (zy_map_has(&val, v))
        continue;
      LLVMValueRef cl = LLVMInstructionClone(zy_map_get(&g->vmap, v));
      int nops = LLVMIsACallInst(v) ? (int)LLVMGetNumArgOperands(v)
                                    : LLVMGetNumOperands(v);
      for (int o = 0; o < nops; o++) {
        LLVMValueRef op = LLVMGetOperand(v, o);
        if (LLVMIsAInstruction(op) || LLVMIsAArgument(op))
          LLVMSetOperand(cl, o, zy_map_get(&val, op));
      }
      LLVMInsertIntoBuilderWithName(g->b, cl, "");
      zy_map_put(&val, v, cl);
    }
    LLVMValueRef n = incoming(phis->data[k], l->latch);
    next[k] =
        LLVMIsAInstruction(n) || LLVMIsAArgument(n) ? zy_map_get(&val, n) : n;
    zy_vec_free(m);
  }
  LLVMValueRef iv1 = LLVMBuildAdd(g->b, iv, one, "");
  LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, iv, last, ""), cont,
                  body);
  LLVMValueRef zero = LLVMConstInt(i64, 0, 0);
  LLVMAddIncoming(iv, (LLVMValueRef[]){zero, iv1},
                  (LLVMBasicBlockRef[]){pre, body}, 2);
  for (size_t k = 0; k < phis->len; k++)
    LLVMAddIncoming(cur[k], (LLVMValueRef[]){starts[k], next[k]},
                    (LLVMBasicBlockRef[]){pre, body}, 2);
  zy_map_free(&val);
}

/* Device code: the scratch of loop `l`'s replayed `phis` in `slots` is
 * a fixed-size buffer in local memory when the loop's trip count has a
 * compile-time bound and the buffers fit the budget (its capacity set to
 * that bound, so that it never grows), else from the device heap, where
 * it starts in local buffers of half the budget left (4 values at least;
 * l->replay_locals, never freed) and the heap is called only for longer
 * loops.  Says which in the cache report.  Returns whether it is local
 * and fixed. */
static int gpu_local_scratch(ZyGen *g, ZyLoop *l, ZyVec *phis, ZyVec *slots) {
  if (!zy_gpu_device_kind(g->zm->mod))
    return 0;
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(g->zm->mod);
  unsigned long long n = zy_loop_bound(l, 0), per = 0;
  for (size_t k = 0; k < phis->len; k++)
    per += LLVMABISizeOfType(td, LLVMTypeOf(phis->data[k]));
  int local = n && zy_gpu_local_buffer(g, n * per);
  unsigned long long budget = zy_opt_gpu_local_cache_bytes();
  if (!local && !g->split && per && budget > g->gpu_local_bytes) {
    n = (budget - g->gpu_local_bytes) / 2 / per;
    if (n < 4 || !zy_gpu_local_buffer(g, n * per))
      n = 0;
  } else if (!local)
    n = 0;
  char note[160];
  if (local)
    snprintf(note, sizeof note,
             "replay scratch: fixed-size buffer in local memory (%llu "
             "values per thread)",
             n);
  else if (n)
    snprintf(note, sizeof note,
             "replay scratch: starts in local memory (%llu values, %llu "
             "bytes per thread); device malloc only for more",
             n, n * per);
  else
    snprintf(note, sizeof note, "replay scratch: device malloc per thread");
  for (size_t k = 0; k < phis->len; k++) {
    zy_loops_report_note(g, phis->data[k], note);
    if (n) {
      zy_loops_stack_buffer(g, slots->data[k], LLVMTypeOf(phis->data[k]), n);
      if (!local) /* the buffer just stored into the slot */
        zy_vec_push(&l->replay_locals,
                    LLVMGetOperand(LLVMGetLastInstruction(g->allocas), 0));
    }
  }
  if (!local)
    zy_gpu_heap_check(g, l);
  if (!n)
    return 0;
  LLVMBuilderRef b = LLVMCreateBuilderInContext(g->zm->ctx);
  LLVMPositionBuilderAtEnd(b, g->allocas);
  LLVMBuildStore(b, LLVMConstInt(LLVMInt64TypeInContext(g->zm->ctx), n, 0),
                 l->replay_cap);
  LLVMDisposeBuilder(b);
  return local;
}

void zy_replay_emit(ZyGen *g, int (*planned)(ZyGen *, LLVMValueRef)) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(g->zm->ctx);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(g->zm->ctx, 0);
  for (unsigned k = 0; k < g->nloops; k++) {
    ZyLoop *l = &g->loops[k];
    ZyVec phis = {0}, slots = {0}, cur = {0};
    for (LLVMValueRef p = LLVMGetFirstInstruction(l->header);
         l->replays.len && p && LLVMIsAPHINode(p);
         p = LLVMGetNextInstruction(p))
      if (zy_replayable(g, p) && planned(g, p)) {
        zy_vec_push(&phis, p);
        zy_vec_push(&slots, zy_new_slot(g, ptr, "zymase.replay.buffer", 1));
      }
    ZyLog lg = {0};
    int logged = phis.len && log_forward(g, l, &phis, &lg);
    for (size_t p = 0; p < phis.len; p++) { /* what the reverse reads */
      LLVMValueRef at =
          logged ? zy_new_slot(g, ptr, "zymase.replay.at", 0) : slots.data[p];
      zy_vec_push(&cur, at);
      zy_map_put(&g->replay, phis.data[p], at);
    }
    if (phis.len) {
      l->replay_cap = zy_new_slot(g, i64, "zymase.replay.cap", 1);
      int local = gpu_local_scratch(g, l, &phis, &slots);
      for (size_t e = 0; e < l->replays.len; e++)
        emit_at(g, l, l->replays.data[e], &phis, &slots, logged ? &cur : &slots,
                logged ? &lg : NULL);
      LLVMPositionBuilderBefore(g->b, g->retinst);
      for (size_t s = 0; s < slots.len && !local; s++)
        zy_gpu_free_unless(
            g, g->b, LLVMBuildLoad2(g->b, ptr, slots.data[s], ""),
            l->replay_locals.len ? l->replay_locals.data[s] : NULL);
    }
    zy_log_free(g, &lg);
    zy_vec_free(&phis);
    zy_vec_free(&slots);
    zy_vec_free(&cur);
  }
}

LLVMValueRef zy_replay_value(ZyGen *g, LLVMValueRef phi) {
  LLVMValueRef slot = zy_map_get(&g->replay, phi);
  if (!slot)
    return NULL;
  ZyLoop *l = header_loop(g, phi);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(g->zm->ctx);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(g->zm->ctx, 0);
  LLVMTypeRef t = LLVMTypeOf(phi);
  LLVMValueRef idx = LLVMBuildLoad2(g->b, i64, l->rc, "zymase.iv");
  LLVMValueRef buf = LLVMBuildLoad2(g->b, ptr, slot, "");
  LLVMValueRef v = LLVMBuildLoad2(
      g->b, t, LLVMBuildInBoundsGEP2(g->b, t, buf, &idx, 1, ""), "");
  zy_cache_access(g, v);
  return v;
}
