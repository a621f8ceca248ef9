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
#include "ad/irutil.h"
#include "cache/cache.h"

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

/* Whether something in loop `l` may write memory overlapping `p` (a store,
 * a memory intrinsic, an atomic, a call given such memory): the reverse
 * of the write would read the shadow before the buffer is added to it. */
static int written_in(ZyGen *g, ZyLoop *l, LLVMValueRef p) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    if (!in_loop(g, bb, l))
      continue;
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      LLVMOpcode op = LLVMGetInstructionOpcode(i);
      if (op == LLVMStore) {
        if (zy_llvm_alias_may_overlap(g->alias, p, i))
          return 1;
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

/* Whether the shadow of load `q` may be privatized in loop `l`. */
static int privatizable(ZyGen *g, LLVMValueRef q, ZyLoop *l) {
  LLVMValueRef p = LLVMGetOperand(q, 0);
  LLVMValueRef o = zy_llvm_underlying_object(p);
  if (!o || LLVMIsAAllocaInst(o) || zy_parallel_acc_kind(g, p) == ZY_ACC_PLAIN)
    return 0;
  if (LLVMIsAInstruction(o) && in_loop(g, LLVMGetInstructionParent(o), l))
    return 0; /* another object in each iteration */
  if (!LLVMIsAArgument(o) && !LLVMIsALoadInst(o) && !LLVMIsAGlobalVariable(o))
    return 0;
  LLVMTypeKind k = LLVMGetTypeKind(LLVMTypeOf(q));
  return (k == LLVMDoubleTypeKind || k == LLVMFloatTypeKind) &&
         !written_in(g, l, p);
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
      if (!LLVMIsALoadInst(q) || !zy_activity_active(g->act, q) ||
          !zy_activity_shadowed(g->act, LLVMGetOperand(q, 0)) ||
          !privatizable(g, q, l))
        continue;
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
      zy_map_put(&g->priv, LLVMGetOperand(q, 0), v);
    }
  }
}

void zy_priv_free(ZyGen *g) {
  for (size_t k = 0; k < g->privs.len; k++)
    free(g->privs.data[k]);
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
    }
    LLVMBuildStore(g->b, LLVMConstAllOnes(i64t(g)), v->lo);
    LLVMBuildStore(g->b, LLVMConstNull(i64t(g)), v->hi);
  }
}

void zy_priv_forward_load(ZyGen *g, LLVMValueRef q) {
  ZyPriv *v = LLVMIsALoadInst(q) ? usable(g, LLVMGetOperand(q, 0)) : NULL;
  if (!v || !v->lo)
    return;
  LLVMValueRef a = LLVMBuildPtrToInt(
      g->b, zy_shadow_forward_of(g, LLVMGetOperand(q, 0)), i64t(g), "");
  LLVMValueRef lo = LLVMBuildLoad2(g->b, i64t(g), v->lo, "");
  LLVMValueRef hi = LLVMBuildLoad2(g->b, i64t(g), v->hi, "");
  LLVMBuildStore(g->b,
                 LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntULT, a, lo, ""),
                                 a, lo, ""),
                 v->lo);
  LLVMBuildStore(g->b,
                 LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntUGT, a, hi, ""),
                                 a, hi, ""),
                 v->hi);
}

void zy_priv_forward_block_begin(ZyGen *g, LLVMBasicBlockRef bb) {
  for (size_t k = 0; k < g->privs.len; k++) {
    ZyPriv *v = g->privs.data[k];
    if (v->t && v->lo && v->exit == bb) {
      v->flo = LLVMBuildLoad2(g->b, i64t(g), v->lo, "zymase.priv.lo");
      v->fhi = LLVMBuildLoad2(g->b, i64t(g), v->hi, "zymase.priv.hi");
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
    LLVMTypeRef ps[2] = {i64t(g), i64t(g)};
    LLVMTypeRef fty = LLVMFunctionType(LLVMPointerTypeInContext(g->zm->ctx, 0),
                                       ps, 2, 0);
    LLVMValueRef args[2] = {LLVMConstInt(i64t(g), 1, 0), n};
    LLVMValueRef buf = LLVMBuildCall2(
        g->b, fty, zy_runtime_fn(g->zm->mod, "calloc", fty), args, 2,
        "zymase.priv");
    LLVMBuildStore(g->b, buf, v->buf);
    LLVMBuildStore(g->b, lo, v->base);
    LLVMBuildStore(g->b, hi, v->top);
  }
}

int zy_priv_accumulate(ZyGen *g, LLVMValueRef p, LLVMValueRef shadow,
                       LLVMValueRef delta) {
  ZyPriv *v = reverse_slots(g, usable(g, p));
  if (!v || LLVMTypeOf(delta) != v->t)
    return 0;
  LLVMValueRef off = LLVMBuildSub(
      g->b, LLVMBuildPtrToInt(g->b, shadow, i64t(g), ""),
      LLVMBuildLoad2(g->b, i64t(g), v->base, ""), "");
  LLVMValueRef buf =
      LLVMBuildLoad2(g->b, LLVMPointerTypeInContext(g->zm->ctx, 0), v->buf, "");
  LLVMValueRef at =
      LLVMBuildGEP2(g->b, LLVMInt8TypeInContext(g->zm->ctx), buf, &off, 1, "");
  zy_accumulate(g, at, delta, ZY_ACC_PLAIN);
  return 1;
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
    LLVMValueRef f = flush_fn(g, v->t);
    LLVMValueRef args[3] = {
        LLVMBuildIntToPtr(g->b, base, LLVMPointerTypeInContext(g->zm->ctx, 0),
                          ""),
        buf, n};
    LLVMBuildCall2(g->b, LLVMGlobalGetValueType(f), f, args, 3, "");
    LLVMBuildStore(g->b, LLVMConstNull(LLVMTypeOf(buf)), v->buf);
  }
}
