/* ownership.c - who may add to the shadow of a memory location at the
 * same time as this thread, which decides how zy_accumulate_shadow adds an
 * adjoint to it: a plain load-add-store where only this thread can reach
 * the location, an atomic add otherwise.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "parallel.h"

#include "ad/ad.h"
#include "ad/cache.h"
#include "ir/irutil.h"

#include <string.h>

static void *const YES = (void *)1, *const NO = (void *)2;

static LLVMValueRef strip_ext(LLVMValueRef v) {
  while (LLVMIsASExtInst(v) || LLVMIsAZExtInst(v))
    v = LLVMGetOperand(v, 0);
  return v;
}

/* Whether `ptr` is where a worksharing call writes the lower bound of the
 * iterations it hands to this thread (`__kmpc_for_static_init_*`'s
 * plower, `__kmpc_dispatch_next_*`'s plb). */
static int lower_bound_slot(ZyGen *g, LLVMValueRef ptr) {
  for (LLVMUseRef u = LLVMGetFirstUse(ptr); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef call = LLVMGetUser(u);
    LLVMValueRef f = LLVMIsACallInst(call) ? LLVMGetCalledValue(call) : NULL;
    if (!f || !LLVMIsAFunction(f) ||
        LLVMGetBasicBlockParent(LLVMGetInstructionParent(call)) != g->primal)
      continue;
    const char *name = LLVMGetValueName(f);
    unsigned k = !strncmp(name, "__kmpc_for_static_init_", 23) ? 4
                 : !strncmp(name, "__kmpc_dispatch_next_", 21) ? 3
                                                               : 0;
    if (k && LLVMGetNumArgOperands(call) > k && LLVMGetOperand(call, k) == ptr)
      return 1;
  }
  return 0;
}

/* The loop whose header holds phi `v`, when `v` starts at the lower bound
 * a worksharing call wrote (the loop runs over this thread's iterations)
 * and, if `by_one`, goes up by one. */
static ZyLoop *worksharing_phi(ZyGen *g, LLVMValueRef v, int by_one) {
  if (!LLVMIsAPHINode(v))
    return NULL;
  ZyLoop *l = zy_loop_of(g, LLVMGetInstructionParent(v));
  if (!l || l->header != LLVMGetInstructionParent(v))
    return NULL;
  LLVMValueRef start = NULL, next = NULL;
  for (unsigned k = 0; k < LLVMCountIncoming(v); k++) {
    LLVMBasicBlockRef from = LLVMGetIncomingBlock(v, k);
    if (from == l->preheader)
      start = LLVMGetIncomingValue(v, k);
    else if (from == l->latch)
      next = LLVMGetIncomingValue(v, k);
  }
  if (!start || !next)
    return NULL;
  if (by_one) {
    if (LLVMGetInstructionOpcode(next) != LLVMAdd)
      return NULL;
    LLVMValueRef a = LLVMGetOperand(next, 0), b = LLVMGetOperand(next, 1);
    LLVMValueRef one = a == v ? b : b == v ? a : NULL;
    if (!one || !LLVMIsAConstantInt(one) || LLVMConstIntGetSExtValue(one) != 1)
      return NULL;
  }
  start = strip_ext(start);
  if (!LLVMIsALoadInst(start) || !lower_bound_slot(g, LLVMGetOperand(start, 0)))
    return NULL;
  return l;
}

int zy_parallel_worksharing(ZyGen *g, ZyLoop *l) {
  for (LLVMValueRef i = LLVMGetFirstInstruction(l->header);
       i && LLVMIsAPHINode(i); i = LLVMGetNextInstruction(i))
    if (worksharing_phi(g, i, 0) == l)
      return 1;
  return 0;
}

static int inside(ZyGen *g, LLVMValueRef v, ZyLoop *l) {
  if (!LLVMIsAInstruction(v))
    return 0;
  for (ZyLoop *m = zy_loop_of(g, LLVMGetInstructionParent(v)); m;
       m = m->parent)
    if (m == l)
      return 1;
  return 0;
}

/* p = &base[iv], base the same in every iteration of worksharing loop l
 * and iv its induction variable: iteration iv, hence one thread, reads
 * that element. */
static ZyLoop *indexed_by_iteration(ZyGen *g, LLVMValueRef p) {
  if (!LLVMIsAGetElementPtrInst(p) || LLVMGetNumOperands(p) != 2)
    return NULL;
  ZyLoop *l = worksharing_phi(g, strip_ext(LLVMGetOperand(p, 1)), 1);
  return l && !inside(g, LLVMGetOperand(p, 0), l) && inside(g, p, l) ? l
                                                                     : NULL;
}

/* Whether pointer argument `a` of the body is used only to read and
 * write through (not stored, not passed on): nothing in the body makes
 * another pointer to its memory. */
static int only_dereferenced(LLVMValueRef a, int depth) {
  for (LLVMUseRef u = LLVMGetFirstUse(a); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef i = LLVMGetUser(u);
    if (LLVMIsALoadInst(i) || (LLVMIsAStoreInst(i) && LLVMGetOperand(i, 0) != a))
      continue;
    if (LLVMIsAAtomicRMWInst(i) && LLVMGetOperand(i, 0) == a)
      continue;
    if (LLVMIsACallInst(i) && LLVMIsAFunction(LLVMGetCalledValue(i)) &&
        !strncmp(LLVMGetValueName(LLVMGetCalledValue(i)), "llvm.lifetime", 13))
      continue;
    if (LLVMIsAGetElementPtrInst(i) && depth < 4 &&
        only_dereferenced(i, depth + 1))
      continue;
    return 0;
  }
  return 1;
}

/* A shared variable of the caller that only this region receives (see
 * zy_omp_unreachable_param), used in the body only through loads and
 * stores. */
static int unreachable(ZyGen *g, LLVMValueRef o) {
  if (!LLVMIsAArgument(o))
    return 0;
  unsigned n = LLVMCountParams(g->primal);
  for (unsigned k = 2; k < n; k++)
    if (LLVMGetParam(g->primal, k) == o)
      return zy_omp_unreachable_param(g->user, k) && only_dereferenced(o, 0);
  return 0;
}

/* An object pointer analysis identifies: another pointer is not based on
 * it unless it is derived from it. */
static int identified(LLVMValueRef o) {
  return LLVMIsAArgument(o) || LLVMIsALoadInst(o) || LLVMIsAAllocaInst(o) ||
         LLVMIsAGlobalVariable(o);
}

/* Whether memory at `p` and `q` cannot overlap because one of them is a
 * shared variable nothing else reaches. */
static int separate(ZyGen *g, LLVMValueRef p, LLVMValueRef q) {
  LLVMValueRef a = zy_llvm_underlying_object(p);
  LLVMValueRef b = zy_llvm_underlying_object(q);
  return a && b && a != b && identified(a) && identified(b) &&
         (unreachable(g, a) || unreachable(g, b));
}

/* Whether instruction `i` (other than a load of `p` itself) may add
 * adjoints to the shadow of memory `p` points into: it reads active
 * floats there (integers, pointers and values the activity analysis
 * finds inactive carry no adjoint), or hands memory that may
 * overlap to a call. */
static int also_reads(ZyGen *g, LLVMValueRef i, LLVMValueRef p) {
  LLVMOpcode op = LLVMGetInstructionOpcode(i);
  if (op == LLVMLoad || op == LLVMAtomicRMW || op == LLVMAtomicCmpXchg) {
    LLVMValueRef v = op == LLVMLoad ? i : LLVMGetOperand(i, 1);
    if (!zy_type_differentiable(LLVMTypeOf(v)))
      return 0;
    if (LLVMGetOperand(i, 0) == p && op == LLVMLoad)
      return 0;
    /* A load whose value carries no derivative adds no adjoint. */
    if (op == LLVMLoad && g->act && !zy_activity_active(g->act, i))
      return 0;
    return !separate(g, p, LLVMGetOperand(i, 0)) &&
           zy_llvm_alias_may_overlap(g->alias, p, i);
  }
  if (op != LLVMCall)
    return 0;
  LLVMValueRef f = LLVMGetCalledValue(i);
  if (f && LLVMIsAFunction(f) &&
      (zy_omp_call(f) || !strncmp(LLVMGetValueName(f), "llvm.lifetime", 13)))
    return 0;
  for (unsigned k = 0; k < LLVMGetNumArgOperands(i); k++) {
    LLVMValueRef a = LLVMGetOperand(i, k);
    if (LLVMGetTypeKind(LLVMTypeOf(a)) == LLVMPointerTypeKind &&
        !separate(g, p, a) && zy_llvm_alias_may_overlap(g->alias, p, a))
      return 1;
  }
  return 0;
}

/* Whether pointer `v` (derived from an allocation of this function) is
 * only dereferenced, compared, freed or derived from, never stored to
 * memory or handed to another call: no other thread can reach it. */
static int uncaptured(LLVMValueRef v, int depth) {
  if (depth > 8)
    return 0;
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef i = LLVMGetUser(u);
    switch (LLVMGetInstructionOpcode(i)) {
    case LLVMLoad:
    case LLVMICmp:
      continue;
    case LLVMStore:
      if (LLVMGetOperand(i, 0) == v)
        return 0;
      continue;
    case LLVMGetElementPtr:
    case LLVMBitCast:
    case LLVMPHI:
    case LLVMSelect:
      if (LLVMIsAPHINode(i) && depth > 2)
        return 0; /* a cycle of phis: give up */
      if (!uncaptured(i, depth + 1))
        return 0;
      continue;
    case LLVMCall: {
      LLVMValueRef f = LLVMGetCalledValue(i);
      const char *name = f && LLVMIsAFunction(f) ? LLVMGetValueName(f) : "";
      if (zy_activity_deallocation(i) || !strncmp(name, "llvm.lifetime.", 14))
        continue;
      return 0;
    }
    default:
      return 0;
    }
  }
  return 1;
}

/* Whether only this thread reaches the memory at `p` in the body of a
 * parallel region: its own stack frame; or the element of a worksharing
 * loop's iteration (`x[i]`), when nothing else in the function reads
 * memory that may overlap the array (another load at another index would
 * make a neighbour thread add to the same shadow). */
static int owned(ZyGen *g, LLVMValueRef p) {
  LLVMValueRef o = zy_llvm_underlying_object(p);
  if (o && LLVMIsAAllocaInst(o) &&
      LLVMGetBasicBlockParent(LLVMGetInstructionParent(o)) == g->primal)
    return 1;
  if (o && LLVMIsACallInst(o) &&
      zy_activity_allocation(o) != ZY_ALLOC_NONE &&
      LLVMGetBasicBlockParent(LLVMGetInstructionParent(o)) == g->primal &&
      uncaptured(o, 0))
    return 1; /* heap memory of this call of the function */
  return indexed_by_iteration(g, p) && zy_parallel_sole_reader(g, p);
}

int zy_parallel_sole_reader(ZyGen *g, LLVMValueRef p) {
  if (!g->alias)
    g->alias = zy_llvm_alias_new(g->primal);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (also_reads(g, i, p))
        return 0;
  return 1;
}

int zy_parallel_acc_kind(ZyGen *g, LLVMValueRef p) {
  if (!zy_parallel_context(g))
    return ZY_ACC_PLAIN;
  void *known = zy_map_get(&g->owned, p);
  if (!known) {
    known = owned(g, p) ? YES : NO;
    zy_map_put(&g->owned, p, known);
  }
  return known == YES ? ZY_ACC_PLAIN : ZY_ACC_ATOMIC;
}

/* An i1, true when no active OpenMP parallel region encloses the running
 * code (`omp_get_active_level() == 0`): a team of one thread, with no
 * other team around it, so no other OpenMP thread can add to any shadow
 * at the same time.  Asked once per call of the reverse, at the start of
 * split mode's reverse (which dominates every reverse block); NULL
 * otherwise. */
static LLVMValueRef alone(ZyGen *g) {
  if (g->omp_alone || !g->split || !g->rstart || !g->sig.parallel)
    return g->omp_alone;
  LLVMContextRef c = g->zm->ctx;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
  LLVMTypeRef fty = LLVMFunctionType(i32, NULL, 0, 0);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMValueRef first = LLVMGetFirstInstruction(g->rstart);
  if (first)
    LLVMPositionBuilderBefore(b, first);
  else
    LLVMPositionBuilderAtEnd(b, g->rstart);
  LLVMValueRef level = LLVMBuildCall2(
      b, fty, zy_runtime_fn(g->zm->mod, "omp_get_active_level", fty), NULL, 0,
      "zymase.omp.level");
  g->omp_alone = LLVMBuildICmp(b, LLVMIntEQ, level, LLVMConstNull(i32),
                               "zymase.omp.alone");
  LLVMDisposeBuilder(b);
  return g->omp_alone;
}

void zy_parallel_owned_add(ZyGen *g, LLVMValueRef p, LLVMValueRef shadow,
                           LLVMValueRef delta) {
  int kind = zy_parallel_acc_kind(g, p);
  LLVMValueRef single = kind == ZY_ACC_ATOMIC ? alone(g) : NULL;
  if (!single) {
    zy_accumulate(g, shadow, delta, kind);
    return;
  }
  /* The atomic add only while other threads run: alone, a plain one. */
  LLVMContextRef c = g->zm->ctx;
  LLVMBasicBlockRef plain =
      LLVMAppendBasicBlockInContext(c, g->grad, "zymase.omp.alone.add");
  LLVMBasicBlockRef shared =
      LLVMAppendBasicBlockInContext(c, g->grad, "zymase.omp.atomic.add");
  LLVMBasicBlockRef join =
      LLVMAppendBasicBlockInContext(c, g->grad, "zymase.omp.add.join");
  LLVMBuildCondBr(g->b, single, plain, shared);
  LLVMPositionBuilderAtEnd(g->b, plain);
  zy_accumulate(g, shadow, delta, ZY_ACC_PLAIN);
  LLVMBuildBr(g->b, join);
  LLVMPositionBuilderAtEnd(g->b, shared);
  zy_accumulate(g, shadow, delta, ZY_ACC_ATOMIC);
  LLVMBuildBr(g->b, join);
  LLVMPositionBuilderAtEnd(g->b, join);
}
