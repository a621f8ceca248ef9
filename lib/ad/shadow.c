/* shadow.c - shadow pointers in the forward sweep: every pointer that may
 * reach memory carrying derivatives gets a shadow pointer to memory of the
 * same layout holding those derivatives.  Shadows of arguments are
 * parameters; shadows of derived pointers are derived the same way; local
 * and heap memory gets zeroed shadow memory; pointers stored to shadowed
 * memory have their shadows stored to the shadow memory.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad.h"
#include "runtime.h"

#include "cache.h"

#include "analysis/registry.h"
#include "ir/irutil.h"

#include <llvm-c/Target.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_null(LLVMValueRef v) {
  return LLVMIsAConstantPointerNull(v) || LLVMIsUndef(v) || LLVMIsPoison(v);
}

/* The shadow of a global: the one the user supplied in a
 * __enzyme_shadow_global* array of { &global, &shadow } pairs, else an
 * internal global made once per module, zero for mutable data, and for a
 * constant table of pointers the table of their shadows. */
static LLVMValueRef mirror(ZyGen *g, LLVMValueRef c);
static LLVMValueRef constant_shadow(ZyGen *g, LLVMValueRef c);

/* Forward mode's shadow of constant global `gv`: a constant of zeros (of
 * pointers' shadows for a table of pointers).  Not the gradients' shadow,
 * which their reverse sweeps add adjoints of loads through the table to
 * (unread there, but a tangent here). */
static LLVMValueRef constant_zero_shadow(ZyGen *g, LLVMValueRef gv) {
  char name[256];
  snprintf(name, sizeof name, "%s.zymase_zero", LLVMGetValueName(gv));
  LLVMValueRef s = LLVMGetNamedGlobal(g->zm->mod, name);
  if (s)
    return s;
  LLVMTypeRef t = LLVMGlobalGetValueType(gv);
  s = LLVMAddGlobal(g->zm->mod, t, name);
  LLVMSetLinkage(s, LLVMInternalLinkage);
  LLVMSetAlignment(s, LLVMGetAlignment(gv));
  LLVMSetInitializer(s, mirror(g, LLVMGetInitializer(gv)));
  LLVMSetGlobalConstant(s, 1);
  return s;
}

static LLVMValueRef global_shadow(ZyGen *g, LLVMValueRef gv) {
  if (g->tangent_mode && LLVMIsGlobalConstant(gv) && LLVMGetInitializer(gv) &&
      !zy_registry_shadow_global(gv))
    return constant_zero_shadow(g, gv);
  LLVMValueRef s = zy_map_get(&g->zm->global_shadows, gv);
  if (s)
    return s;
  s = zy_registry_shadow_global(gv);
  if (!s && !zy_parallel()->gpu_shared_shadow(g, gv, &s) && s)
    return s; /* __shared__: per block, zeroed on entry (gpu_sync.c) */
  if (!s) {
    char name[256];
    snprintf(name, sizeof name, "%s.zymase_shadow", LLVMGetValueName(gv));
    LLVMTypeRef t = LLVMGlobalGetValueType(gv);
    s = LLVMAddGlobal(g->zm->mod, t, name);
    LLVMSetInitializer(s, LLVMConstNull(t));
    LLVMSetLinkage(s, LLVMInternalLinkage);
    LLVMSetAlignment(s, LLVMGetAlignment(gv));
    zy_map_put(&g->zm->global_shadows, gv, s);
    if (LLVMIsGlobalConstant(gv)) /* a table of pointers (see activity) */
      LLVMSetInitializer(s, mirror(g, LLVMGetInitializer(gv)));
  }
  zy_map_put(&g->zm->global_shadows, gv, s);
  return s;
}

/* The shadow of constant data `c`: its pointers replaced by their
 * shadows, everything else zero. */
static LLVMValueRef mirror(ZyGen *g, LLVMValueRef c) {
  LLVMTypeRef t = LLVMTypeOf(c);
  LLVMTypeKind k = LLVMGetTypeKind(t);
  if (k == LLVMPointerTypeKind) {
    if (LLVMIsAFunction(c))
      return c;
    /* Globals without derivatives (constant, inactive) get zero shadows
     * too: loads through the table are active, and their adjoints must
     * go somewhere. */
    LLVMValueRef s = is_null(c) ? NULL : constant_shadow(g, c);
    if (s && !LLVMIsAConstant(s)) {
      ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                   "a constant table holds a pointer into dynamic (extern) "
                   "__shared__ memory with derivatives");
      s = NULL;
    }
    return s ? s : LLVMConstNull(t);
  }
  if ((k != LLVMArrayTypeKind && k != LLVMStructTypeKind) ||
      LLVMIsAConstantAggregateZero(c) || LLVMIsAConstantDataSequential(c) ||
      LLVMIsUndef(c))
    return LLVMConstNull(t);
  unsigned n = k == LLVMArrayTypeKind ? LLVMGetArrayLength(t)
                                      : LLVMCountStructElementTypes(t);
  LLVMValueRef *e = malloc(n * sizeof *e);
  for (unsigned i = 0; i < n; i++)
    e[i] = mirror(g, LLVMGetAggregateElement(c, i));
  LLVMValueRef r =
      k == LLVMArrayTypeKind ? LLVMConstArray2(LLVMGetElementType(t), e, n)
      : LLVMGetStructName(t) ? LLVMConstNamedStruct(t, e, n)
                             : LLVMConstStructInContext(LLVMGetTypeContext(t), e,
                                                        n, LLVMIsPackedStruct(t));
  free(e);
  return r;
}

/* The shadow of a constant pointer: a global, or a GEP or cast of one. */
static LLVMValueRef constant_shadow(ZyGen *g, LLVMValueRef c) {
  if (LLVMIsAFunction(c)) /* as in a table of pointers (mirror) */
    return c;
  if (LLVMIsAGlobalVariable(c))
    return global_shadow(g, c);
  if (!LLVMIsAConstantExpr(c))
    return NULL;
  LLVMValueRef base = constant_shadow(g, LLVMGetOperand(c, 0));
  if (!base)
    return NULL;
  if (!LLVMIsAConstant(base)) /* dynamic shared memory: a run-time value */
    return zy_parallel()->gpu_dynamic_shadow_expr(g, c, base);
  if (LLVMGetConstOpcode(c) == LLVMAddrSpaceCast &&
      LLVMTypeOf(base) != LLVMTypeOf(c))
    return LLVMConstAddrSpaceCast(base, LLVMTypeOf(c));
  if (LLVMGetConstOpcode(c) != LLVMGetElementPtr)
    return base; /* casts: pointers are opaque */
  return zy_const_gep_on(c, base);
}

static int is_aggregate(LLVMValueRef v) {
  LLVMTypeKind k = LLVMGetTypeKind(LLVMTypeOf(v));
  return k == LLVMStructTypeKind || k == LLVMArrayTypeKind;
}

/* The forward shadow of primal pointer `p` (null for null), or of an
 * aggregate holding pointers: the aggregate of their shadows (in forward
 * mode its tangent, which holds them). */
static LLVMValueRef shadow_of(ZyGen *g, LLVMValueRef p) {
  if (is_aggregate(p)) {
    if (LLVMIsAConstant(p))
      return mirror(g, p);
    LLVMValueRef s = zy_map_get(&g->shadow, p);
    return s ? s : zy_map_get(&g->tangent, p);
  }
  if (is_null(p))
    return LLVMConstPointerNull(LLVMTypeOf(p));
  if (LLVMIsAConstant(p))
    return constant_shadow(g, p);
  return zy_map_get(&g->shadow, p);
}

static LLVMValueRef map(ZyGen *g, LLVMValueRef v) {
  LLVMValueRef m = zy_map_get(&g->vmap, v);
  return m ? m : v;
}

static LLVMValueRef i64(ZyGen *g, unsigned long long v) {
  return LLVMConstInt(LLVMInt64TypeInContext(g->zm->ctx), v, 0);
}

static void zero(ZyGen *g, LLVMValueRef ptr, LLVMValueRef bytes) {
  LLVMValueRef z = LLVMConstInt(LLVMInt8TypeInContext(g->zm->ctx), 0, 0);
  LLVMBuildMemSet(g->b, ptr, z, bytes, 1);
}

static char *shadow_name(char *buf, size_t n, LLVMValueRef i) {
  snprintf(buf, n, "%s.shadow", LLVMGetValueName(i));
  return buf;
}

/* The pointer fields of aggregate type `t` in shadow aggregate `sv`,
 * stored each to its place under shadow pointer `sp` (idx: the path so
 * far, n long): the shadow's other fields (float adjoints, in reverse
 * mode) are left as they are. */
static void store_fields(ZyGen *g, LLVMTypeRef t, LLVMValueRef sv,
                         LLVMValueRef sp, LLVMTypeRef top, unsigned *idx,
                         unsigned n) {
  LLVMTypeKind k = LLVMGetTypeKind(t);
  if (k == LLVMPointerTypeKind) {
    LLVMTypeRef i32 = LLVMInt32TypeInContext(g->zm->ctx);
    LLVMValueRef ix[9] = {LLVMConstInt(i32, 0, 0)};
    for (unsigned j = 0; j < n; j++)
      ix[j + 1] = LLVMConstInt(i32, idx[j], 0);
    LLVMValueRef at = LLVMBuildInBoundsGEP2(g->b, top, sp, ix, n + 1, "");
    for (unsigned j = 0; j < n; j++)
      sv = LLVMBuildExtractValue(g->b, sv, idx[j], "");
    LLVMBuildStore(g->b, sv, at);
    return;
  }
  if ((k != LLVMStructTypeKind && k != LLVMArrayTypeKind) || n >= 8 ||
      !zy_type_holds_pointer(t))
    return;
  unsigned m = k == LLVMArrayTypeKind ? LLVMGetArrayLength(t)
                                      : LLVMCountStructElementTypes(t);
  for (unsigned j = 0; j < m; j++) {
    idx[n] = j;
    store_fields(g,
                 k == LLVMArrayTypeKind ? LLVMGetElementType(t)
                                        : LLVMStructGetTypeAtIndex(t, j),
                 sv, sp, top, idx, n + 1);
  }
}

/* A pointer stored to shadowed memory: its shadow goes to the shadow;
 * an aggregate's pointers likewise. */
static int store_pointer(ZyGen *g, LLVMValueRef st) {
  LLVMValueRef v = LLVMGetOperand(st, 0), p = LLVMGetOperand(st, 1);
  int agg = is_aggregate(v) && zy_activity_shadowed(g->act, v);
  if ((LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMPointerTypeKind && !agg) ||
      !zy_activity_shadowed(g->act, p) ||
      zy_activity_unshadowed_slot(g->act, p))
    return 0;
  LLVMValueRef sv = shadow_of(g, v), sp = shadow_of(g, p);
  if (!sv || !sp) /* (check.c refuses these for gradients) */
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                        "a pointer without a shadow is stored to memory "
                        "that has one");
  if (!agg) {
    LLVMBuildStore(g->b, sv, sp);
    return 0;
  }
  unsigned idx[8];
  store_fields(g, LLVMTypeOf(v), sv, sp, LLVMTypeOf(v), idx, 0);
  return 0;
}

/* memcpy/memmove of pointers between shadowed memories copies the shadow
 * pointers (float shadows are not copied: they are adjoints). */
static void copy_pointers(ZyGen *g, LLVMValueRef call) {
  LLVMValueRef d = LLVMGetOperand(call, 0), s = LLVMGetOperand(call, 1);
  LLVMValueRef n = LLVMGetOperand(call, 2);
  if (!zy_activity_shadowed(g->act, d) || !zy_activity_shadowed(g->act, s))
    return;
  LLVMValueRef sd = shadow_of(g, d), ss = shadow_of(g, s);
  LLVMTypeRef ptr = LLVMTypeOf(d);
  if (!LLVMIsAConstantInt(n)) {
    if (zy_types_memory(g->types, d, 0) == ZY_TY_PTR)
      LLVMBuildMemCpy(g->b, sd, 1, ss, 1, map(g, n));
    return;
  }
  long long bytes = LLVMConstIntGetSExtValue(n);
  LLVMTypeRef i8 = LLVMInt8TypeInContext(g->zm->ctx);
  for (long long off = 0; off + 8 <= bytes; off++)
    if (zy_types_memory(g->types, d, off) == ZY_TY_PTR ||
        zy_types_memory(g->types, s, off) == ZY_TY_PTR) {
      LLVMValueRef o = i64(g, off);
      LLVMValueRef from = LLVMBuildGEP2(g->b, i8, ss, &o, 1, "");
      LLVMValueRef to = LLVMBuildGEP2(g->b, i8, sd, &o, 1, "");
      LLVMBuildStore(g->b, LLVMBuildLoad2(g->b, ptr, from, ""), to);
      off += 7;
    }
}

/* The byte size of the allocation primal `p` comes from, in the forward
 * sweep (0 for null). */
static LLVMValueRef allocation_size(ZyGen *g, LLVMValueRef p) {
  LLVMValueRef n, m;
  LLVMTypeRef i64t = LLVMInt64TypeInContext(g->zm->ctx);
  zy_allocation_size(g, p, &n, &m);
  if (!n)
    return LLVMConstInt(i64t, 0, 0);
  LLVMValueRef size = LLVMBuildZExtOrBitCast(g->b, map(g, n), i64t, "");
  if (m)
    size = LLVMBuildMul(
        g->b, size, LLVMBuildZExtOrBitCast(g->b, map(g, m), i64t, ""), "");
  return size;
}

/* The old size of the caller's block that realloc `i` (copied as `c`)
 * resizes, which the function does not know: the usable size of the
 * primal block, taken before the call frees it, and no more than the
 * shadow's (the caller's shadow past the primal's block holds nothing of
 * it, whatever it holds).  Kept as the call's tape for the reverse
 * sweep (realloc_kept, reverse_memory.c). */
static LLVMValueRef caller_block_size(ZyGen *g, LLVMValueRef i, LLVMValueRef c,
                                      LLVMValueRef from) {
  LLVMBasicBlockRef at = LLVMGetInsertBlock(g->b);
  LLVMPositionBuilderBefore(g->b, c);
  LLVMValueRef primal = zy_call_usable_size(g->b, map(g, LLVMGetOperand(i, 0)));
  LLVMPositionBuilderAtEnd(g->b, at);
  LLVMValueRef shadow = zy_call_usable_size(g->b, from);
  LLVMValueRef old =
      LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntULT, primal, shadow, ""),
                      primal, shadow, "zymase.realloc.old");
  zy_map_put(&g->tapes, i, old);
  return old;
}

/* realloc(p, n): a new shadow holding the old shadow's contents, zero
 * beyond; the old shadow stays alive for the reverse sweep, which moves
 * the adjoints of the kept bytes back to it.  The old size is the
 * allocation's in this function, else (memory from the caller) the
 * usable size of the primal's old block (caller_block_size). */
static LLVMValueRef shadow_realloc(ZyGen *g, LLVMValueRef i, LLVMValueRef c,
                                   const char *name) {
  LLVMContextRef ctx = g->zm->ctx;
  LLVMValueRef n = LLVMBuildZExtOrBitCast(g->b, map(g, LLVMGetOperand(i, 1)),
                                          LLVMInt64TypeInContext(ctx), "");
  LLVMValueRef s = zy_call_malloc(g->b, n, name);
  LLVMValueRef from = shadow_of(g, LLVMGetOperand(i, 0)), sn, sm;
  int mine = zy_allocation_size(g, LLVMGetOperand(i, 0), &sn, &sm);
  LLVMValueRef old = mine ? allocation_size(g, LLVMGetOperand(i, 0))
                          : caller_block_size(g, i, c, from);
  LLVMValueRef keep = LLVMBuildSelect(
      g->b, LLVMBuildICmp(g->b, LLVMIntULT, old, n, ""), old, n, "");
  ZyTy t = zy_uniform_type(g, i, 1LL << 62);
  if (t == ZY_TY_UNKNOWN)
    t = zy_uniform_type(g, LLVMGetOperand(i, 0), 1LL << 62);
  if (zy_ty_is_float(t)) /* typed: a gradient of this code knows it */
    zy_typed_copy(g->b, zy_ty_llvm(g, t), s, from, keep);
  else
    LLVMBuildMemCpy(g->b, s, 1, from, 1, keep);
  /* The caller's shadow may hold seeds: they move, not copy (the reverse
   * sweep moves the adjoints back into the old shadow). */
  if (!mine)
    zero(g, from, keep);
  LLVMValueRef tail =
      LLVMBuildGEP2(g->b, LLVMInt8TypeInContext(ctx), s, &keep, 1, "");
  zero(g, tail, LLVMBuildSub(g->b, n, keep, ""));
  return s;
}

/* Whether the shadow of alloca `a` lives on the heap (freed by the
 * reverse sweep): in split mode it must outlive the augmented forward's
 * frame, and the shadow of an alloca outside the entry block (a VLA in a
 * loop, released by stackrestore every iteration) must outlive the
 * forward sweep. */
int zy_shadow_on_heap(ZyGen *g, LLVMValueRef a) {
  return g->split || LLVMGetInstructionParent(a) !=
                         LLVMGetEntryBasicBlock(g->primal);
}

/* Shadow memory for an allocation, zeroed. */
static LLVMValueRef shadow_allocation(ZyGen *g, LLVMValueRef i,
                                      LLVMValueRef c, const char *name) {
  if (LLVMIsAAllocaInst(i)) {
    LLVMTypeRef t = LLVMGetAllocatedType(i);
    LLVMValueRef count = map(g, LLVMGetOperand(i, 0));
    LLVMTargetDataRef td = LLVMGetModuleDataLayout(g->zm->mod);
    LLVMValueRef size = i64(g, LLVMABISizeOfType(td, t));
    count = LLVMBuildZExtOrBitCast(g->b, count, LLVMTypeOf(size), "");
    size = LLVMBuildMul(g->b, size, count, "");
    LLVMValueRef s;
    if (zy_shadow_on_heap(g, i)) {
      s = zy_call_malloc(g->b, size, name);
    } else {
      s = LLVMBuildArrayAlloca(g->b, t, count, name);
      LLVMSetAlignment(s, LLVMGetAlignment(c));
    }
    zero(g, s, size);
    return s;
  }
  if (zy_activity_allocation(i) == ZY_ALLOC_REALLOC)
    return shadow_realloc(g, i, c, name);
  /* malloc, new, calloc, aligned_alloc, a registered allocator: the same
   * call again. */
  unsigned n = LLVMGetNumArgOperands(c);
  LLVMValueRef args[64];
  ZY_ASSERT(n <= 64);
  for (unsigned k = 0; k < n; k++)
    args[k] = LLVMGetOperand(c, k);
  LLVMValueRef s =
      LLVMBuildCall2(g->b, LLVMGetCalledFunctionType(c),
                     LLVMGetCalledValue(c), args, n, name);
  ZyAlloc kind = zy_activity_allocation(i);
  if (kind == ZY_ALLOC_MALLOC)
    zero(g, s, args[0]);
  else if (kind == ZY_ALLOC_ALIGNED)
    zero(g, s, args[1]);
  else if (kind == ZY_ALLOC_LIKE)
    zero(g, s,
         args[zy_registry_allocator(LLVMGetCalledValue(i))->size]);
  return s;
}

/* posix_memalign(&p, align, n) into memory with a shadow: a second,
 * zeroed allocation for the shadow, stored where the shadow of p is.  The
 * shadow is recorded under the call, for the reverse sweep to free. */
static void shadow_memalign(ZyGen *g, LLVMValueRef i, LLVMValueRef c) {
  LLVMTypeRef ptr = LLVMPointerTypeInContext(g->zm->ctx, 0);
  LLVMValueRef slot = zy_new_slot(g, ptr, "memalign.shadow", 0);
  LLVMValueRef args[3] = {slot, LLVMGetOperand(c, 1), LLVMGetOperand(c, 2)};
  LLVMBuildCall2(g->b, LLVMGetCalledFunctionType(c), LLVMGetCalledValue(c),
                 args, 3, "");
  LLVMValueRef s = LLVMBuildLoad2(g->b, ptr, slot, "memalign.shadow");
  zero(g, s, LLVMGetOperand(c, 2));
  LLVMBuildStore(g->b, s, shadow_of(g, LLVMGetOperand(i, 0)));
  zy_map_put(&g->shadow, i, s);
}

/* Whether the optimizer replaced an argument the shadow of registered
 * allocator call `i` needs by poison (an argument the allocator's body
 * does not use). */
static int dropped_argument(LLVMValueRef i) {
  const ZyAllocLike *a = zy_registry_allocator(LLVMGetCalledValue(i));
  if (LLVMIsAUndefValue(LLVMGetOperand(i, a->size)))
    return 1;
  for (unsigned k = 0; k < a->nargs; k++)
    if (a->args[k] >= 0 && LLVMIsAUndefValue(LLVMGetOperand(i, a->args[k])))
      return 1;
  return 0;
}

int zy_shadow_forward(ZyGen *g, LLVMValueRef i) {
  LLVMValueRef c = zy_map_get(&g->vmap, i);
  LLVMOpcode op = LLVMGetInstructionOpcode(i);
  if (op == LLVMStore)
    return store_pointer(g, i);
  if (op == LLVMCall && zy_is_memalign(i) &&
      zy_activity_shadowed(g->act, LLVMGetOperand(i, 0))) {
    shadow_memalign(g, i, c);
    return 0;
  }
  if (op == LLVMCall) {
    LLVMValueRef callee = LLVMGetCalledValue(i);
    const char *name = callee && LLVMIsAFunction(callee)
                           ? LLVMGetValueName(callee)
                           : "";
    if (!strncmp(name, "llvm.memcpy", 11) ||
        !strncmp(name, "llvm.memmove", 12))
      copy_pointers(g, i);
  }
  if (!zy_activity_shadowed(g->act, i))
    return 0;
  char name[128];
  shadow_name(name, sizeof name, i);
  LLVMValueRef s = NULL;
  switch (op) {
  case LLVMAlloca:
    s = shadow_allocation(g, i, c, name);
    break;
  case LLVMCall:
    if (zy_activity_allocation(i) == ZY_ALLOC_LIKE && dropped_argument(i))
      return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                          "use the argument in the allocator, or compile "
                          "at -O0",
                          "an argument of the registered allocator that its "
                          "shadow needs (the size, or one the deallocator "
                          "takes) is unused in its body, and the optimizer "
                          "dropped it from this call");
    if (zy_activity_allocation(i) == ZY_ALLOC_NONE)
      return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                          "return the data through a pointer argument "
                          "instead",
                          "calls returning pointers that may reach memory "
                          "with derivatives are not supported yet");
    s = shadow_allocation(g, i, c, name);
    break;
  case LLVMGetElementPtr:
  case LLVMBitCast:
  case LLVMAddrSpaceCast:
  case LLVMFreeze:
  case LLVMPtrToInt:
  case LLVMIntToPtr:
  case LLVMAdd:
  case LLVMSub: {
    /* The same operation on the shadow of the shadowed operand. */
    unsigned k = zy_activity_shadowed(g->act, LLVMGetOperand(i, 0)) ? 0 : 1;
    LLVMValueRef base = shadow_of(g, LLVMGetOperand(i, k));
    s = LLVMInstructionClone(c);
    LLVMInsertIntoBuilderWithName(g->b, s, name);
    LLVMSetOperand(s, k, base);
    break;
  }
  case LLVMLoad:
    s = LLVMBuildLoad2(g->b, LLVMTypeOf(i), shadow_of(g, LLVMGetOperand(i, 0)),
                       name);
    break;
  case LLVMSelect: {
    LLVMValueRef a = shadow_of(g, LLVMGetOperand(i, 1));
    LLVMValueRef b = shadow_of(g, LLVMGetOperand(i, 2));
    if (!a || !b)
      return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                          "a select between a pointer with a shadow and one "
                          "without");
    s = LLVMBuildSelect(g->b, map(g, LLVMGetOperand(i, 0)), a, b, name);
    break;
  }
  case LLVMPHI:
    s = LLVMBuildPhi(g->b, LLVMTypeOf(i), name); /* incoming: later */
    break;
  case LLVMExtractValue: { /* from the aggregate's shadow */
    LLVMValueRef agg = shadow_of(g, LLVMGetOperand(i, 0));
    if (!agg)
      return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                          "cannot build the shadow of this pointer");
    s = LLVMInstructionClone(c);
    LLVMInsertIntoBuilderWithName(g->b, s, name);
    LLVMSetOperand(s, 0, agg);
    break;
  }
  case LLVMInsertValue: { /* reverse mode: the aggregate of shadows */
    LLVMValueRef a = LLVMGetOperand(i, 0), v = LLVMGetOperand(i, 1);
    LLVMValueRef sa = zy_activity_shadowed(g->act, a) || LLVMIsAConstant(a)
                          ? shadow_of(g, a)
                          : LLVMConstNull(LLVMTypeOf(a));
    LLVMValueRef sv = zy_activity_shadowed(g->act, v) || LLVMIsAConstant(v)
                          ? shadow_of(g, v)
                          : NULL;
    if (!sv && zy_type_holds_pointer(LLVMTypeOf(v)))
      return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                          "a pointer without a shadow is put in an "
                          "aggregate with pointers that have one");
    if (!sa) /* (a field without pointers: null in the shadow) */
      return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                          "cannot build the shadow of this aggregate");
    s = LLVMInstructionClone(c);
    LLVMInsertIntoBuilderWithName(g->b, s, name);
    LLVMSetOperand(s, 0, sa);
    LLVMSetOperand(s, 1, sv ? sv : LLVMConstNull(LLVMTypeOf(v)));
    break;
  }
  default:
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                        "cannot build the shadow of this pointer");
  }
  zy_map_put(&g->shadow, i, s);
  return 0;
}

/* Fills the incoming values of the shadow phis, once every shadow
 * exists. */
int zy_shadow_phis(ZyGen *g, ZyVec *phis) {
  for (size_t k = 0; k < phis->len; k++) {
    LLVMValueRef p = phis->data[k], s = zy_map_get(&g->shadow, p);
    if (!s)
      continue;
    for (unsigned j = 0; j < LLVMCountIncoming(p); j++) {
      if (!zy_map_has(&g->reachable, LLVMGetIncomingBlock(p, j)))
        continue;
      LLVMValueRef v = shadow_of(g, LLVMGetIncomingValue(p, j));
      LLVMBasicBlockRef from = zy_map_get(&g->fend, LLVMGetIncomingBlock(p, j));
      if (!v) {
        g->cur = p;
        return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                            "a phi of a pointer with a shadow and one "
                            "without");
      }
      LLVMAddIncoming(s, &v, &from, 1);
    }
  }
  return 0;
}

LLVMValueRef zy_shadow_lookup(ZyGen *g, LLVMValueRef p) {
  if (is_null(p) || LLVMIsAConstant(p))
    return shadow_of(g, p);
  LLVMValueRef s = zy_map_get(&g->shadow, p);
  ZY_ASSERT(s);
  if (LLVMIsAArgument(p))
    return s;
  if (zy_shadow_recomputable(g, p) || zy_split_shadow_recomputable(g, p)) {
    if (!zy_map_has(&g->reported, s)) {
      zy_map_put(&g->reported, s, s);
      zy_loops_report(g, p, "its shadow recomputed");
    }
    return zy_shadow_recompute(g, p);
  }
  return zy_reload(g, s, LLVMGetInstructionParent(p));
}

LLVMValueRef zy_shadow_forward_of(ZyGen *g, LLVMValueRef p) {
  return shadow_of(g, p);
}
