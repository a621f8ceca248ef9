/* privatize.c - per-thread shadows of memory every iteration of a
 * worksharing loop reads (the parameters of a model: `means[k*d+j]` read
 * for every data point `i`).  Atomic adds into one shared shadow would
 * cost one atomic per read per iteration; instead the reverse of the loop
 * adds into a buffer of the thread's own, covering the addresses the
 * forward read (tracked while it ran), and adds the buffer to the shared
 * shadow once, atomically, when the reverse leaves the loop.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "parallel.h"

#include "ad/ad.h"
#include "ad/cache.h"
#include "ir/irutil.h"

#include <stdlib.h>
#include <string.h>

/* One privatized object of one worksharing loop. */
typedef struct ZyPriv {
  LLVMValueRef obj;        /* the object the reads point into        */
  ZyLoop *loop;            /* the worksharing loop                   */
  LLVMBasicBlockRef exit;  /* its only exit block (primal)           */
  LLVMTypeRef t;           /* the floating-point type read           */
  LLVMValueRef lo, hi;     /* forward: i64 slots, the lowest and the
                              highest shadow address read            */
  LLVMValueRef flo, fhi;   /* forward values of lo and hi at the exit */
  ZyVec writes;            /* stores in the loop that may write the
                              object: their addresses are compared at
                              run time with those read               */
  LLVMValueRef rlo, rhi, wlo, whi;     /* forward: i64 slots, the primal
                              addresses read and written              */
  LLVMValueRef frlo, frhi, fwlo, fwhi; /* ... their values at the exit */
  LLVMValueRef buf, base, top; /* reverse: slots of the buffer, of the
                              shadow addresses of its first and last
                              elements                               */
} ZyPriv;

static LLVMTypeRef i64t(ZyGen *g) { return LLVMInt64TypeInContext(g->zm->ctx); }

static int in_loop(ZyGen *g, LLVMBasicBlockRef bb, ZyLoop *l) {
  for (ZyLoop *m = zy_loop_of(g, bb); m; m = m->parent)
    if (m == l)
      return 1;
  return 0;
}

/* The only block outside `l` entered from inside it, or NULL. */
static LLVMBasicBlockRef only_exit(ZyGen *g, ZyLoop *l) {
  LLVMBasicBlockRef exit = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    if (!in_loop(g, bb, l))
      continue;
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    for (unsigned k = 0; t && k < LLVMGetNumSuccessors(t); k++) {
      LLVMBasicBlockRef s = LLVMGetSuccessor(t, k);
      if (in_loop(g, s, l))
        continue;
      if (exit && exit != s)
        return NULL;
      exit = s;
    }
  }
  return exit;
}

/* Whether something in loop `l` may write memory overlapping `p`: the
 * reverse of a write would read the shadow before the buffer is added to
 * it, when the write follows a read of the same location.  Stores are
 * collected in `stores` (NULL: refused too) and checked at run time
 * (their addresses against the ones read); a memory intrinsic, an atomic
 * or a call given such memory makes it 1. */
static int written_in(ZyGen *g, ZyLoop *l, LLVMValueRef p, ZyVec *stores) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    if (!in_loop(g, bb, l))
      continue;
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      LLVMOpcode op = LLVMGetInstructionOpcode(i);
      if (op == LLVMStore) {
        if (zy_llvm_alias_may_overlap(g->alias, p, i)) {
          if (!stores)
            return 1;
          if (!zy_vec_contains(stores, i))
            zy_vec_push(stores, i);
        }
      } else if (op == LLVMAtomicRMW || op == LLVMAtomicCmpXchg) {
        if (!zy_omp_order_slot(LLVMGetOperand(i, 0)) &&
            zy_llvm_alias_may_overlap(g->alias, p, LLVMGetOperand(i, 0)))
          return 1;
      } else if (op == LLVMCall && !zy_llvm_call_reads_only(i)) {
        LLVMValueRef f = LLVMGetCalledValue(i);
        if (f && LLVMIsAFunction(f) &&
            (zy_omp_call(f) ||
             !strncmp(LLVMGetValueName(f), "llvm.lifetime", 13)))
          continue;
        for (unsigned k = 0; k < LLVMGetNumArgOperands(i); k++) {
          LLVMValueRef a = LLVMGetOperand(i, k);
          if (LLVMGetTypeKind(LLVMTypeOf(a)) == LLVMPointerTypeKind &&
              zy_llvm_alias_may_overlap(g->alias, p, a))
            return 1;
        }
      }
    }
  }
  return 0;
}

/* The worksharing loop (outermost) around primal block `bb`, if any. */
static ZyLoop *worksharing_around(ZyGen *g, LLVMBasicBlockRef bb) {
  ZyLoop *found = NULL;
  for (ZyLoop *m = zy_loop_of(g, bb); m; m = m->parent)
    if (zy_parallel_worksharing(g, m))
      found = m;
  return found;
}

static ZyPriv *priv_of(ZyGen *g, LLVMValueRef obj, ZyLoop *l) {
  for (size_t k = 0; k < g->privs.len; k++) {
    ZyPriv *v = g->privs.data[k];
    if (v->obj == obj && v->loop == l)
      return v;
  }
  return NULL;
}

/* Whether value `v` changes with the iterations of loop `l` itself (it
 * depends on a phi of l's header): each iteration then reads its own part
 * of the memory, and a per-thread buffer would be as large as the part of
 * the array the thread's iterations read, for one add each (`x[i]` read
 * in two loops: atomic adds cost less than such a buffer). */
static int varies_with(ZyGen *g, LLVMValueRef v, ZyLoop *l, ZyMap *seen) {
  if (!LLVMIsAInstruction(v) || zy_map_has(seen, v) ||
      !in_loop(g, LLVMGetInstructionParent(v), l))
    return 0;
  zy_map_put(seen, v, v);
  if (LLVMIsAPHINode(v) && LLVMGetInstructionParent(v) == l->header)
    return 1;
  for (int k = 0; k < LLVMGetNumOperands(v); k++)
    if (varies_with(g, LLVMGetOperand(v, k), l, seen))
      return 1;
  return 0;
}

/* Whether the shadow of load `q` may be privatized in loop `l`; the stores
 * that may write its memory are added to `stores`. */
static int privatizable(ZyGen *g, LLVMValueRef q, ZyLoop *l, ZyVec *stores) {
  LLVMValueRef p = LLVMGetOperand(q, 0);
  LLVMValueRef o = zy_llvm_underlying_object(p);
  if (!o || LLVMIsAAllocaInst(o) || zy_parallel_acc_kind(g, p) == ZY_ACC_PLAIN)
    return 0;
  if (LLVMIsAInstruction(o) && in_loop(g, LLVMGetInstructionParent(o), l))
    return 0; /* another object in each iteration */
  if (!LLVMIsAArgument(o) && !LLVMIsALoadInst(o) && !LLVMIsAGlobalVariable(o))
    return 0;
  ZyMap seen = {0};
  int varies = varies_with(g, p, l, &seen);
  zy_map_free(&seen);
  if (varies)
    return 0; /* what every iteration reads is what gains */
  LLVMTypeKind k = LLVMGetTypeKind(LLVMTypeOf(q));
  return (k == LLVMDoubleTypeKind || k == LLVMFloatTypeKind) &&
         !written_in(g, l, p, stores);
}

void zy_priv_plan(ZyGen *g) {
  if (!zy_parallel_context(g))
    return;
  if (!g->alias)
    g->alias = zy_llvm_alias_new(g->primal);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    ZyLoop *l = worksharing_around(g, bb);
    if (!l)
      continue;
    for (LLVMValueRef q = LLVMGetFirstInstruction(bb); q;
         q = LLVMGetNextInstruction(q)) {
      ZyVec stores = {0};
      if (!LLVMIsALoadInst(q) || !zy_activity_active(g->act, q) ||
          !zy_activity_shadowed(g->act, LLVMGetOperand(q, 0)) ||
          !privatizable(g, q, l, &stores)) {
        zy_vec_free(&stores);
        continue;
      }
      LLVMValueRef o = zy_llvm_underlying_object(LLVMGetOperand(q, 0));
      ZyPriv *v = priv_of(g, o, l);
      if (!v) {
        LLVMBasicBlockRef exit = only_exit(g, l);
        if (!exit)
          continue;
        v = calloc(1, sizeof *v);
        v->obj = o;
        v->loop = l;
        v->exit = exit;
        v->t = LLVMTypeOf(q);
        zy_vec_push(&g->privs, v);
      } else if (v->t != LLVMTypeOf(q)) {
        v->t = NULL; /* mixed types: left atomic */
      }
      for (size_t j = 0; j < stores.len; j++)
        if (!zy_vec_contains(&v->writes, stores.data[j]))
          zy_vec_push(&v->writes, stores.data[j]);
      zy_vec_free(&stores);
      zy_map_put(&g->priv, LLVMGetOperand(q, 0), v);
    }
  }
}

void zy_priv_free(ZyGen *g) {
  for (size_t k = 0; k < g->privs.len; k++) {
    ZyPriv *v = g->privs.data[k];
    zy_vec_free(&v->writes);
    free(v);
  }
  zy_vec_free(&g->privs);
  zy_map_free(&g->priv);
}

static ZyPriv *usable(ZyGen *g, LLVMValueRef p) {
  ZyPriv *v = zy_map_get(&g->priv, p);
  return v && v->t ? v : NULL;
}

/* --- Forward: the range of shadow addresses read ---------------------- */

void zy_priv_forward_block_end(ZyGen *g, LLVMBasicBlockRef bb) {
  for (size_t k = 0; k < g->privs.len; k++) {
    ZyPriv *v = g->privs.data[k];
    if (!v->t || v->loop->preheader != bb)
      continue;
    if (!v->lo) {
      v->lo = zy_new_slot(g, i64t(g), "zymase.priv.lo", 0);
      v->hi = zy_new_slot(g, i64t(g), "zymase.priv.hi", 0);
      if (v->writes.len) {
        v->rlo = zy_new_slot(g, i64t(g), "zymase.priv.rlo", 0);
        v->rhi = zy_new_slot(g, i64t(g), "zymase.priv.rhi", 0);
        v->wlo = zy_new_slot(g, i64t(g), "zymase.priv.wlo", 0);
        v->whi = zy_new_slot(g, i64t(g), "zymase.priv.whi", 0);
      }
    }
    LLVMValueRef lows[3] = {v->lo, v->rlo, v->wlo};
    LLVMValueRef highs[3] = {v->hi, v->rhi, v->whi};
    for (int j = 0; j < 3; j++)
      if (lows[j]) {
        LLVMBuildStore(g->b, LLVMConstAllOnes(i64t(g)), lows[j]);
        LLVMBuildStore(g->b, LLVMConstNull(i64t(g)), highs[j]);
      }
  }
}

/* Widens the range held in slots lo/hi to address `p` (forward). */
static void widen(ZyGen *g, LLVMValueRef lo, LLVMValueRef hi, LLVMValueRef p) {
  LLVMValueRef a = LLVMBuildPtrToInt(g->b, p, i64t(g), "");
  LLVMValueRef l = LLVMBuildLoad2(g->b, i64t(g), lo, "");
  LLVMValueRef h = LLVMBuildLoad2(g->b, i64t(g), hi, "");
  LLVMBuildStore(g->b,
                 LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntULT, a, l, ""),
                                 a, l, ""),
                 lo);
  LLVMBuildStore(g->b,
                 LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntUGT, a, h, ""),
                                 a, h, ""),
                 hi);
}

static LLVMValueRef forward_of(ZyGen *g, LLVMValueRef v) {
  LLVMValueRef m = zy_map_get(&g->vmap, v);
  return m ? m : v;
}

void zy_priv_forward_access(ZyGen *g, LLVMValueRef q) {
  if (LLVMIsAStoreInst(q)) { /* a store that may write a privatized object */
    for (size_t k = 0; k < g->privs.len; k++) {
      ZyPriv *v = g->privs.data[k];
      if (v->t && v->wlo && zy_vec_contains(&v->writes, q))
        widen(g, v->wlo, v->whi, forward_of(g, LLVMGetOperand(q, 1)));
    }
    return;
  }
  ZyPriv *v = LLVMIsALoadInst(q) ? usable(g, LLVMGetOperand(q, 0)) : NULL;
  if (!v || !v->lo)
    return;
  widen(g, v->lo, v->hi, zy_shadow_forward_of(g, LLVMGetOperand(q, 0)));
  if (v->rlo)
    widen(g, v->rlo, v->rhi, forward_of(g, LLVMGetOperand(q, 0)));
}

void zy_priv_forward_block_begin(ZyGen *g, LLVMBasicBlockRef bb) {
  for (size_t k = 0; k < g->privs.len; k++) {
    ZyPriv *v = g->privs.data[k];
    if (v->t && v->lo && v->exit == bb) {
      v->flo = LLVMBuildLoad2(g->b, i64t(g), v->lo, "zymase.priv.lo");
      v->fhi = LLVMBuildLoad2(g->b, i64t(g), v->hi, "zymase.priv.hi");
      if (v->rlo) {
        v->frlo = LLVMBuildLoad2(g->b, i64t(g), v->rlo, "zymase.priv.rlo");
        v->frhi = LLVMBuildLoad2(g->b, i64t(g), v->rhi, "zymase.priv.rhi");
        v->fwlo = LLVMBuildLoad2(g->b, i64t(g), v->wlo, "zymase.priv.wlo");
        v->fwhi = LLVMBuildLoad2(g->b, i64t(g), v->whi, "zymase.priv.whi");
      }
    }
  }
}

/* --- Reverse ------------------------------------------------------------ */

/* The reverse's slots of `v`, made on first use: the reverse blocks are
 * not emitted in the order they run.  NULL when the forward kept nothing
 * for `v`. */
static ZyPriv *reverse_slots(ZyGen *g, ZyPriv *v) {
  if (!v || !v->flo)
    return NULL;
  if (!v->buf) {
    v->buf = zy_new_slot(g, LLVMPointerTypeInContext(g->zm->ctx, 0),
                         "zymase.priv.buf", 1);
    v->base = zy_new_slot(g, i64t(g), "zymase.priv.base", 1);
    v->top = zy_new_slot(g, i64t(g), "zymase.priv.top", 1);
  }
  return v;
}

static LLVMValueRef elem_bytes(ZyGen *g, ZyPriv *v) {
  return LLVMConstInt(i64t(g),
                      LLVMGetTypeKind(v->t) == LLVMDoubleTypeKind ? 8 : 4, 0);
}

void zy_priv_reverse_enter(ZyGen *g, LLVMBasicBlockRef bb,
                           LLVMBasicBlockRef pred) {
  for (size_t k = 0; k < g->privs.len; k++) {
    ZyPriv *v = g->privs.data[k];
    if (!reverse_slots(g, v) || v->exit != bb || !in_loop(g, pred, v->loop))
      continue;
    LLVMValueRef lo = zy_reload(g, v->flo, bb), hi = zy_reload(g, v->fhi, bb);
    /* Nothing read: hi < lo, and the buffer is never used. */
    LLVMValueRef none = LLVMBuildICmp(g->b, LLVMIntUGT, lo, hi, "");
    LLVMValueRef n = LLVMBuildAdd(g->b, LLVMBuildSub(g->b, hi, lo, ""),
                                  elem_bytes(g, v), "");
    n = LLVMBuildSelect(g->b, none, LLVMConstNull(i64t(g)), n, "");
    if (v->frlo) { /* writes that may hit what was read: then no buffer */
      LLVMValueRef rlo = zy_reload(g, v->frlo, bb);
      LLVMValueRef rhi = zy_reload(g, v->frhi, bb);
      LLVMValueRef wlo = zy_reload(g, v->fwlo, bb);
      LLVMValueRef whi = zy_reload(g, v->fwhi, bb);
      /* at most the widest scalar or vector element read or written */
      LLVMValueRef pad = LLVMConstInt(i64t(g), 64, 0);
      LLVMValueRef apart = LLVMBuildOr(
          g->b, LLVMBuildICmp(g->b, LLVMIntULT, LLVMBuildAdd(g->b, whi, pad, ""),
                              rlo, ""),
          LLVMBuildICmp(g->b, LLVMIntUGT, wlo,
                        LLVMBuildAdd(g->b, rhi, pad, ""), ""),
          "");
      apart = LLVMBuildOr(g->b, apart,
                          LLVMBuildICmp(g->b, LLVMIntUGT, wlo, whi, ""), "");
      n = LLVMBuildSelect(g->b, apart, n, LLVMConstNull(i64t(g)), "");
    }
    LLVMTypeRef ps[2] = {i64t(g), i64t(g)};
    LLVMTypeRef fty = LLVMFunctionType(LLVMPointerTypeInContext(g->zm->ctx, 0),
                                       ps, 2, 0);
    LLVMValueRef args[2] = {LLVMConstInt(i64t(g), 1, 0), n};
    LLVMValueRef buf = LLVMBuildCall2(
        g->b, fty, zy_runtime_fn(g->zm->mod, "calloc", fty), args, 2,
        "zymase.priv");
    if (v->frlo) { /* no buffer when the ranges met (or nothing was read) */
      LLVMValueRef empty =
          LLVMBuildICmp(g->b, LLVMIntEQ, n, LLVMConstNull(i64t(g)), "");
      LLVMValueRef null = LLVMConstNull(LLVMTypeOf(buf));
      zy_call_free(g->b, "free", LLVMBuildSelect(g->b, empty, buf, null, ""));
      buf = LLVMBuildSelect(g->b, empty, null, buf, "");
    }
    LLVMBuildStore(g->b, buf, v->buf);
    LLVMBuildStore(g->b, lo, v->base);
    LLVMBuildStore(g->b, hi, v->top);
  }
}

int zy_priv_applies(ZyGen *g, LLVMValueRef p, LLVMValueRef delta) {
  ZyPriv *v = reverse_slots(g, usable(g, p)); /* the slots, on first use */
  return v && LLVMTypeOf(delta) == v->t;
}

void zy_priv_accumulate(ZyGen *g, LLVMValueRef p, LLVMValueRef shadow,
                        LLVMValueRef delta) {
  ZyPriv *v = reverse_slots(g, usable(g, p));
  ZY_ASSERT(v && LLVMTypeOf(delta) == v->t);
  LLVMValueRef buf =
      LLVMBuildLoad2(g->b, LLVMPointerTypeInContext(g->zm->ctx, 0), v->buf, "");
  LLVMBasicBlockRef join = NULL;
  if (v->frlo) { /* the buffer, or (ranges met) the shadow, atomically */
    LLVMContextRef c = g->zm->ctx;
    LLVMBasicBlockRef priv = LLVMAppendBasicBlockInContext(c, g->grad, "zymase.priv.add");
    LLVMBasicBlockRef direct = LLVMAppendBasicBlockInContext(c, g->grad, "zymase.priv.atomic");
    join = LLVMAppendBasicBlockInContext(c, g->grad, "zymase.priv.join");
    LLVMBuildCondBr(g->b, LLVMBuildIsNull(g->b, buf, ""), direct, priv);
    LLVMPositionBuilderAtEnd(g->b, direct);
    zy_accumulate(g, shadow, delta, ZY_ACC_ATOMIC);
    LLVMBuildBr(g->b, join);
    LLVMPositionBuilderAtEnd(g->b, priv);
  }
  LLVMValueRef off = LLVMBuildSub(
      g->b, LLVMBuildPtrToInt(g->b, shadow, i64t(g), ""),
      LLVMBuildLoad2(g->b, i64t(g), v->base, ""), "");
  LLVMValueRef at =
      LLVMBuildGEP2(g->b, LLVMInt8TypeInContext(g->zm->ctx), buf, &off, 1, "");
  zy_accumulate(g, at, delta, ZY_ACC_PLAIN);
  if (join) {
    LLVMBuildBr(g->b, join);
    LLVMPositionBuilderAtEnd(g->b, join);
  }
}

/* zymase.priv.flush.<t>(ptr shadow, ptr buf, i64 bytes): atomic adds of
 * the buffer's elements into the shadow; frees the buffer. */
static LLVMValueRef flush_fn(ZyGen *g, LLVMTypeRef t) {
  int dbl = LLVMGetTypeKind(t) == LLVMDoubleTypeKind;
  const char *name = dbl ? "zymase.priv.flush.f64" : "zymase.priv.flush.f32";
  LLVMValueRef f = LLVMGetNamedFunction(g->zm->mod, name);
  if (f)
    return f;
  LLVMContextRef c = g->zm->ctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0), i64 = i64t(g);
  LLVMTypeRef ps[3] = {ptr, ptr, i64};
  f = LLVMAddFunction(g->zm->mod, name,
                      LLVMFunctionType(LLVMVoidTypeInContext(c), ps, 3, 0));
  LLVMSetLinkage(f, LLVMInternalLinkage);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c, f, "entry");
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(c, f, "loop");
  LLVMBasicBlockRef add = LLVMAppendBasicBlockInContext(c, f, "add");
  LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(c, f, "next");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, f, "done");
  LLVMValueRef sz = LLVMConstInt(i64, dbl ? 8 : 4, 0);
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMBuildBr(b, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef off = LLVMBuildPhi(b, i64, "off");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, off, LLVMGetParam(f, 2), ""),
                  add, done);
  LLVMPositionBuilderAtEnd(b, add);
  LLVMTypeRef i8 = LLVMInt8TypeInContext(c);
  LLVMValueRef d = LLVMBuildLoad2(
      b, t, LLVMBuildGEP2(b, i8, LLVMGetParam(f, 1), &off, 1, ""), "");
  LLVMBasicBlockRef work = LLVMAppendBasicBlockInContext(c, f, "work");
  LLVMBuildCondBr(b, LLVMBuildFCmp(b, LLVMRealUNE, d, LLVMConstNull(t), ""),
                  work, next); /* elements no thread touched stay zero */
  LLVMPositionBuilderAtEnd(b, work);
  LLVMBuildAtomicRMW(b, LLVMAtomicRMWBinOpFAdd,
                     LLVMBuildGEP2(b, i8, LLVMGetParam(f, 0), &off, 1, ""), d,
                     LLVMAtomicOrderingMonotonic, 0);
  LLVMBuildBr(b, next);
  LLVMPositionBuilderAtEnd(b, next);
  LLVMValueRef off2 = LLVMBuildAdd(b, off, sz, "");
  LLVMBuildBr(b, loop);
  LLVMValueRef zero = LLVMConstNull(i64);
  LLVMAddIncoming(off, &zero, &entry, 1);
  LLVMAddIncoming(off, &off2, &next, 1);
  LLVMPositionBuilderAtEnd(b, done);
  zy_call_free(b, "free", LLVMGetParam(f, 1));
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return f;
}

void zy_priv_reverse_leave(ZyGen *g, ZyLoop *l) {
  for (size_t k = 0; k < g->privs.len; k++) {
    ZyPriv *v = g->privs.data[k];
    if (v->loop != l || !reverse_slots(g, v))
      continue;
    LLVMValueRef buf = LLVMBuildLoad2(
        g->b, LLVMPointerTypeInContext(g->zm->ctx, 0), v->buf, "");
    LLVMValueRef base = LLVMBuildLoad2(g->b, i64t(g), v->base, "");
    LLVMValueRef hi = LLVMBuildLoad2(g->b, i64t(g), v->top, "");
    LLVMValueRef n = LLVMBuildAdd(g->b, LLVMBuildSub(g->b, hi, base, ""),
                                  elem_bytes(g, v), "");
    n = LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntUGT, base, hi, ""),
                        LLVMConstNull(i64t(g)), n, "");
    n = LLVMBuildSelect(g->b, LLVMBuildIsNull(g->b, buf, ""),
                        LLVMConstNull(i64t(g)), n, ""); /* no buffer */
    LLVMValueRef f = flush_fn(g, v->t);
    LLVMValueRef args[3] = {
        LLVMBuildIntToPtr(g->b, base, LLVMPointerTypeInContext(g->zm->ctx, 0),
                          ""),
        buf, n};
    LLVMBuildCall2(g->b, LLVMGlobalGetValueType(f), f, args, 3, "");
    LLVMBuildStore(g->b, LLVMConstNull(LLVMTypeOf(buf)), v->buf);
  }
}
