/* reverse_memory.c - adjoints through memory: a load adds its adjoint into
 * the shadow of its address, a store moves the shadow's adjoint to the
 * stored value and clears it (the overwritten value gets nothing from
 * later on), memcpy moves adjoints from the destination's shadow back to
 * the source's, memset clears them, and shadow heap memory is freed.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad.h"

#include "cache.h"

#include "analysis/effects.h"
#include "analysis/registry.h"
#include "ir/irutil.h"

#include <llvm-c/Target.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *callee_name(LLVMValueRef i) {
  LLVMValueRef f = LLVMIsACallInst(i) ? LLVMGetCalledValue(i) : NULL;
  return f && LLVMIsAFunction(f) ? LLVMGetValueName(f) : "";
}

static int is_memcpy(LLVMValueRef i) {
  const char *n = callee_name(i);
  return !strncmp(n, "llvm.memcpy", 11) || !strncmp(n, "llvm.memmove", 12);
}

static int is_memset(LLVMValueRef i) {
  return !strncmp(callee_name(i), "llvm.memset", 11);
}

/* Whether the allocation `call` is freed in this function.  Otherwise it
 * escapes (returned, or stored for the caller), and so does its shadow:
 * the gradient leaves both to the caller. */
int zy_is_memalign(LLVMValueRef call) {
  return !strcmp(callee_name(call), "posix_memalign");
}

/* Whether the memory posix_memalign stored in *memptr is freed here: a
 * free of a pointer loaded from memptr. */
static int memalign_freed_here(LLVMValueRef call) {
  LLVMValueRef slot = LLVMGetOperand(call, 0);
  for (LLVMUseRef u = LLVMGetFirstUse(slot); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef l = LLVMGetUser(u);
    if (!LLVMIsALoadInst(l))
      continue;
    for (LLVMUseRef v = LLVMGetFirstUse(l); v; v = LLVMGetNextUse(v)) {
      LLVMValueRef f = LLVMGetUser(v);
      if (LLVMIsACallInst(f) && zy_activity_deallocation(f) &&
          LLVMGetOperand(f, zy_activity_freed_arg(f)) == l)
        return 1;
    }
  }
  return 0;
}

/* The values that hold pointer `p` in its function: itself, phis and
 * selects that may pick it, and loads of local variables it is stored in
 * (unoptimized code keeps parameters in stack slots). */
static void copies_of(LLVMValueRef p, ZyVec *out) {
  zy_vec_push(out, p);
  for (size_t k = 0; k < out->len && k < 32; k++)
    for (LLVMUseRef u = LLVMGetFirstUse(out->data[k]); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef st = LLVMGetUser(u);
      if ((LLVMIsAPHINode(st) || LLVMIsASelectInst(st)) &&
          !zy_vec_contains(out, st)) {
        zy_vec_push(out, st);
        continue;
      }
      LLVMValueRef slot = LLVMIsAStoreInst(st) ? LLVMGetOperand(st, 1) : NULL;
      if (!slot || LLVMGetOperand(st, 0) != out->data[k] ||
          !LLVMIsAAllocaInst(slot))
        continue;
      for (LLVMUseRef v = LLVMGetFirstUse(slot); v; v = LLVMGetNextUse(v))
        if (LLVMIsALoadInst(LLVMGetUser(v)) &&
            !zy_vec_contains(out, LLVMGetUser(v)))
          zy_vec_push(out, LLVMGetUser(v));
    }
}

/* Whether pointer `v` (or a local variable holding it) reaches free,
 * realloc, or a function with a body that frees the parameter it is
 * passed as; `*by` is the call that frees it. */
static int value_freed(LLVMValueRef v, int depth, LLVMValueRef *by) {
  if (depth > 4)
    return 0;
  ZyVec copies = {0};
  copies_of(v, &copies);
  int freed = 0;
  for (size_t c = 0; c < copies.len && !freed; c++) {
    LLVMValueRef p = copies.data[c];
    for (LLVMUseRef u = LLVMGetFirstUse(p); u && !freed; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (!LLVMIsACallInst(user))
        continue;
      LLVMValueRef callee = LLVMGetCalledValue(user);
      if ((zy_activity_deallocation(user) &&
           LLVMGetOperand(user, zy_activity_freed_arg(user)) == p) ||
          (zy_activity_allocation(user) == ZY_ALLOC_REALLOC &&
           LLVMGetOperand(user, 0) == p)) {
        freed = 1;
        *by = user;
        break;
      }
      for (unsigned a = 0; a < LLVMGetNumArgOperands(user) && !freed; a++)
        freed = LLVMGetOperand(user, a) == p && callee &&
                LLVMIsAFunction(callee) && !LLVMIsDeclaration(callee) &&
                !zy_registry_nofree(callee) && a < LLVMCountParams(callee) &&
                value_freed(LLVMGetParam(callee, a), depth + 1, by);
    }
  }
  zy_vec_free(&copies);
  return freed;
}

int zy_freed_here(LLVMValueRef call) {
  if (zy_is_memalign(call))
    return memalign_freed_here(call);
  /* Memory nothing outside reaches is the function's to free: its
   * shadow too (a gradient's caches of shadows, kept in a buffer). */
  LLVMValueRef by;
  return value_freed(call, 0, &by) || zy_effects_private(call);
}

int zy_reverse_memory_needed(ZyGen *g, LLVMValueRef i) {
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMAlloca:
    return zy_activity_shadowed(g->act, i) && zy_shadow_on_heap(g, i);
  case LLVMStore: {
    /* Floats, and integer constants (memset of a few bytes becomes
     * `store i64 0`): the overwritten adjoint is cleared. */
    LLVMValueRef v = LLVMGetOperand(i, 0);
    return zy_activity_shadowed(g->act, LLVMGetOperand(i, 1)) &&
           (zy_type_differentiable(LLVMTypeOf(v)) ||
            (LLVMIsAConstantInt(v) &&
             zy_ty_is_float(zy_types_memory(g->types, LLVMGetOperand(i, 1),
                                            0))));
  }
  case LLVMAtomicRMW: /* s += v, atomically */
    return zy_activity_shadowed(g->act, LLVMGetOperand(i, 0)) &&
           zy_type_differentiable(LLVMTypeOf(LLVMGetOperand(i, 1)));
  case LLVMCall:
    if (is_memcpy(i) || is_memset(i))
      return zy_activity_shadowed(g->act, LLVMGetOperand(i, 0));
    if (zy_is_memalign(i))
      return zy_activity_shadowed(g->act, LLVMGetOperand(i, 0)) &&
             zy_freed_here(i);
    return zy_activity_shadowed(g->act, i) &&
           (zy_activity_allocation(i) == ZY_ALLOC_REALLOC ||
            (zy_activity_allocation(i) != ZY_ALLOC_NONE && zy_freed_here(i)));
  default:
    return 0;
  }
}

LLVMTypeRef zy_ty_llvm(ZyGen *g, ZyTy t) {
  LLVMContextRef c = g->zm->ctx;
  switch (t) {
  case ZY_TY_HALF:
    return LLVMHalfTypeInContext(c);
  case ZY_TY_BFLOAT:
    return LLVMBFloatTypeInContext(c);
  case ZY_TY_FLOAT:
    return LLVMFloatTypeInContext(c);
  case ZY_TY_DOUBLE:
    return LLVMDoubleTypeInContext(c);
  case ZY_TY_FP80:
    return LLVMX86FP80TypeInContext(c);
  default:
    return LLVMFP128TypeInContext(c);
  }
}

static LLVMValueRef i64(ZyGen *g, long long v) {
  return LLVMConstInt(LLVMInt64TypeInContext(g->zm->ctx), v, 1);
}

static LLVMValueRef byte_gep(ZyGen *g, LLVMValueRef p, LLVMValueRef off) {
  return LLVMBuildGEP2(g->b, LLVMInt8TypeInContext(g->zm->ctx), p, &off, 1,
                       "");
}

/* The helper that moves `n` bytes of adjoints of type t from `from` to
 * `to` through a temporary, so overlapping ranges (memmove) are right:
 *   tmp = from[0..n); from[0..n) = 0; to[k] += tmp[k]
 * Emitted once per type into the module. */
static LLVMValueRef move_helper(ZyGen *g, LLVMTypeRef t) {
  char *tn = LLVMPrintTypeToString(t), name[96];
  snprintf(name, sizeof name, "__zymase_move_adjoints.%s", tn);
  LLVMDisposeMessage(tn);
  LLVMModuleRef m = g->zm->mod;
  LLVMValueRef fn = LLVMGetNamedFunction(m, name);
  if (fn)
    return fn;
  LLVMContextRef c = g->zm->ctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef i64t = LLVMInt64TypeInContext(c);
  LLVMTypeRef params[3] = {ptr, ptr, i64t};
  fn = LLVMAddFunction(m, name,
                       LLVMFunctionType(LLVMVoidTypeInContext(c), params, 3, 0));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c, fn, "entry");
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(c, fn, "loop");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, fn, "done");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
  LLVMValueRef size = LLVMConstInt(i64t, LLVMABISizeOfType(td, t), 0);
  LLVMValueRef from = LLVMGetParam(fn, 0), to = LLVMGetParam(fn, 1);
  LLVMValueRef bytes = LLVMGetParam(fn, 2);
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef tmp = zy_call_malloc(b, bytes, "tmp");
  LLVMBuildMemCpy(b, tmp, 1, from, 1, bytes);
  LLVMBuildMemSet(b, from, LLVMConstInt(LLVMInt8TypeInContext(c), 0, 0),
                  bytes, 1);
  LLVMValueRef count = LLVMBuildUDiv(b, bytes, size, "count");
  LLVMValueRef zero = LLVMConstInt(i64t, 0, 0);
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, count, zero, ""), done, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef k = LLVMBuildPhi(b, i64t, "k");
  LLVMValueRef src = LLVMBuildGEP2(b, t, tmp, &k, 1, "");
  LLVMValueRef dst = LLVMBuildGEP2(b, t, to, &k, 1, "");
  LLVMValueRef sum = LLVMBuildFAdd(b, LLVMBuildLoad2(b, t, dst, ""),
                                   LLVMBuildLoad2(b, t, src, ""), "");
  LLVMBuildStore(b, sum, dst);
  LLVMValueRef k1 = LLVMBuildAdd(b, k, LLVMConstInt(i64t, 1, 0), "");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, k1, count, ""), done, loop);
  LLVMValueRef kin[2] = {zero, k1};
  LLVMBasicBlockRef kfrom[2] = {entry, loop};
  LLVMAddIncoming(k, kin, kfrom, 2);
  LLVMPositionBuilderAtEnd(b, done);
  zy_call_free(b, "free", tmp);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}

/* The element type of the memory copied at dst/src byte `off`; with
 * -zymase-loose-types, unknown memory is taken to hold doubles. */
static ZyTy type_at(ZyGen *g, LLVMValueRef d, LLVMValueRef s, long long off) {
  ZyTy t = zy_types_memory(g->types, d, off);
  if (t == ZY_TY_UNKNOWN)
    t = zy_types_memory(g->types, s, off);
  if (t == ZY_TY_UNKNOWN && zy_opt_loose_types() && off % 8 == 0)
    t = ZY_TY_DOUBLE;
  return t;
}

/* Lays out `bytes` copied bytes: kinds[off] is the float type starting at
 * `off` (ZY_TY_UNKNOWN elsewhere).  Every byte must be accounted for: a
 * float, a pointer, part of an integer (up to the next known byte, 8 at
 * most), or padding: a gap shorter than the naturally aligned element
 * after it, or at the end shorter than the largest element.  Returns 0,
 * or -1 when some bytes are of unknown type. */
static int copy_layout(ZyGen *g, LLVMValueRef d, LLVMValueRef s,
                       long long bytes, ZyTy *kinds) {
  long long covered = 0, gap = -1, widest = 0;
  for (long long off = 0; off < bytes;) {
    ZyTy t = type_at(g, d, s, off);
    kinds[off] = ZY_TY_UNKNOWN;
    long long size = zy_ty_is_float(t) || t == ZY_TY_PTR ? zy_ty_size(t) : 0;
    if (t == ZY_TY_INT) {
      size = 1;
      while (off + size < bytes && size < 8 &&
             type_at(g, d, s, off + size) == ZY_TY_UNKNOWN)
        size++;
    }
    if (!size) { /* unknown: padding if what follows says so */
      if (off >= covered && gap < 0)
        gap = off;
      off++;
      continue;
    }
    if (gap >= 0 && (gap == 0 || off - gap >= size || off % size))
      return -1;
    gap = -1;
    if (zy_ty_is_float(t))
      kinds[off] = t;
    widest = size > widest ? size : widest;
    covered = off + size;
    off = covered;
  }
  return gap >= 0 && (gap == 0 || bytes - gap >= widest) ? -1 : 0;
}

ZyTy zy_uniform_type(ZyGen *g, LLVMValueRef ptr, long long n) {
  const ZyTT *t = zy_types_of(g->types, ptr);
  ZyTy r = ZY_TY_UNKNOWN;
  for (size_t k = 0; t && k < t->n; k++) {
    const ZyTTEntry *e = &t->e[k];
    if (e->len != 2 || (e->path[0] != -1 && e->path[0] != 0) ||
        (e->path[1] >= n && e->path[1] != -1))
      continue;
    r = r == ZY_TY_UNKNOWN || r == e->ty ? e->ty : ZY_TY_ANYTHING;
  }
  return r;
}

static int reverse_memcpy(ZyGen *g, LLVMValueRef call) {
  LLVMValueRef d = LLVMGetOperand(call, 0), s = LLVMGetOperand(call, 1);
  LLVMValueRef n = LLVMGetOperand(call, 2);
  LLVMValueRef sd = zy_shadow_lookup(g, d);
  if (!zy_activity_shadowed(g->act, s)) {
    /* Copied from memory without derivatives: the old values are gone. */
    LLVMBuildMemSet(g->b, sd, LLVMConstInt(LLVMInt8TypeInContext(g->zm->ctx),
                                           0, 0),
                    zy_lookup(g, n), 1);
    return 0;
  }
  LLVMValueRef ss = zy_shadow_lookup(g, s);
  long long bytes = LLVMIsAConstantInt(n) ? LLVMConstIntGetSExtValue(n) : -1;
  /* (the bytes copy_layout failed on: floats only then, whole elements) */
  long long laid_out = bytes >= 0 && bytes <= 4096 ? bytes : -1;
  if (laid_out >= 0) {
    ZyTy *kinds = calloc(bytes + 1, sizeof *kinds);
    int err = copy_layout(g, d, s, bytes, kinds);
    if (!err) {
      /* Take every adjoint first, then add: the ranges may overlap. */
      LLVMValueRef *vals = calloc(bytes + 1, sizeof *vals);
      for (long long off = 0; off < bytes; off++)
        if (kinds[off] != ZY_TY_UNKNOWN) {
          LLVMTypeRef lt = zy_ty_llvm(g, kinds[off]);
          LLVMValueRef from = byte_gep(g, sd, i64(g, off));
          vals[off] = LLVMBuildLoad2(g->b, lt, from, "");
          LLVMBuildStore(g->b, LLVMConstNull(lt), from);
        }
      for (long long off = 0; off < bytes; off++)
        if (vals[off])
          zy_accumulate_shadow(g, s, byte_gep(g, ss, i64(g, off)),
                               vals[off]);
      free(vals);
    }
    free(kinds);
    if (!err)
      return 0;
  }
  { /* unknown bytes (an array indexed by a variable, whose types are known
     * at offset 0 only), or a copy too large to lay out: one type for all */
    long long lim = bytes >= 0 ? bytes : (1LL << 62);
    ZyTy t = zy_uniform_type(g, d, lim);
    ZyTy ts = zy_uniform_type(g, s, lim);
    if (t == ZY_TY_UNKNOWN || t == ts)
      t = ts != ZY_TY_UNKNOWN ? ts : t;
    else if (ts != ZY_TY_UNKNOWN)
      t = ZY_TY_ANYTHING;
    if (t == ZY_TY_UNKNOWN && zy_opt_loose_types())
      t = ZY_TY_DOUBLE;
    if (zy_ty_is_float(t) &&
        (laid_out < 0 || laid_out % zy_ty_size(t) == 0)) {
      LLVMValueRef fn = move_helper(g, zy_ty_llvm(g, t));
      LLVMValueRef args[3] = {sd, ss, zy_lookup(g, n)};
      LLVMBuildCall2(g->b, LLVMGlobalGetValueType(fn), fn, args, 3, "");
      return 0;
    }
    if ((t == ZY_TY_PTR || t == ZY_TY_INT) && laid_out < 0)
      return 0;
  }
  return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                      "access the data with its type before or after the "
                      "copy (e.g. through a double*), so that it can be "
                      "deduced, or pass -zymase-loose-types to assume "
                      "doubles",
                      "cannot deduce the type of the memory this copy "
                      "moves");
}

static int reverse_store(ZyGen *g, LLVMValueRef st) {
  LLVMValueRef v = LLVMGetOperand(st, 0), p = LLVMGetOperand(st, 1);
  LLVMTypeRef t = LLVMTypeOf(v);
  LLVMValueRef sp = zy_shadow_lookup(g, p);
  if (!zy_type_differentiable(t)) { /* a constant over floats */
    LLVMBuildStore(g->b, LLVMConstNull(t), sp);
    return 0;
  }
  LLVMValueRef d;
  if (LLVMGetOrdering(st) != LLVMAtomicOrderingNotAtomic &&
      LLVMGetTypeKind(t) != LLVMVectorTypeKind) {
    /* An atomic write (`#pragma omp atomic write`): other threads may
     * read the location atomically at the same time, and add to its
     * shadow in the reverse sweep. */
    d = LLVMBuildAtomicRMW(g->b, LLVMAtomicRMWBinOpXchg, sp, LLVMConstNull(t),
                           LLVMAtomicOrderingMonotonic, 0);
  } else {
    d = LLVMBuildLoad2(g->b, t, sp, "");
    LLVMBuildStore(g->b, LLVMConstNull(t), sp);
  }
  zy_add_adjoint(g, v, d);
  return 0;
}

/* The element type realloc `call` keeps, or ZY_TY_UNKNOWN after an
 * error. */
static ZyTy realloc_type(ZyGen *g, LLVMValueRef call) {
  LLVMValueRef p = LLVMGetOperand(call, 0);
  ZyTy t = zy_uniform_type(g, call, 1LL << 62);
  if (t == ZY_TY_UNKNOWN)
    t = zy_uniform_type(g, p, 1LL << 62);
  if (t == ZY_TY_UNKNOWN && zy_opt_loose_types())
    t = ZY_TY_DOUBLE;
  if (t == ZY_TY_PTR || t == ZY_TY_INT || zy_ty_is_float(t))
    return t;
  ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
               "access the data with its type, or pass "
               "-zymase-loose-types to assume doubles",
               "cannot deduce the type of the memory realloc keeps");
  return ZY_TY_UNKNOWN;
}

/* The bytes realloc `call` kept, at the builder: the smaller of the old
 * size (as shadow_realloc took it: for the caller's memory, kept as the
 * call's tape) and the new one. */
static LLVMValueRef realloc_kept(ZyGen *g, LLVMValueRef call) {
  LLVMValueRef p = LLVMGetOperand(call, 0), n, m;
  LLVMTypeRef i64t = LLVMInt64TypeInContext(g->zm->ctx);
  LLVMValueRef old;
  if (!zy_allocation_size(g, p, &n, &m)) {
    old = zy_reload(g, zy_map_get(&g->tapes, call),
                    LLVMGetInstructionParent(call));
  } else {
    old = n ? LLVMBuildZExtOrBitCast(g->b, zy_lookup(g, n), i64t, "")
            : LLVMConstInt(i64t, 0, 0);
    if (m)
      old = LLVMBuildMul(
          g->b, old, LLVMBuildZExtOrBitCast(g->b, zy_lookup(g, m), i64t, ""),
          "");
  }
  LLVMValueRef now = LLVMBuildZExtOrBitCast(
      g->b, zy_lookup(g, LLVMGetOperand(call, 1)), i64t, "");
  return LLVMBuildSelect(
      g->b, LLVMBuildICmp(g->b, LLVMIntULT, old, now, ""), old, now, "");
}

/* The reverse of realloc(p, n): the adjoints of the bytes it kept go back
 * to p's shadow.  For memory from the caller (whose old shadow the
 * caller can no longer reach) they come back at the end of the reverse
 * sweep: zy_reverse_memory_finish. */
static int reverse_realloc(ZyGen *g, LLVMValueRef call) {
  LLVMValueRef p = LLVMGetOperand(call, 0), n, m;
  if (LLVMIsAConstantPointerNull(p))
    return 0;
  ZyTy t = realloc_type(g, call);
  if (t == ZY_TY_UNKNOWN)
    return -1;
  if (!zy_allocation_size(g, p, &n, &m)) {
    LLVMTypeRef i1 = LLVMInt1TypeInContext(g->zm->ctx);
    LLVMValueRef ran = zy_new_slot(g, i1, "zymase.realloc.ran", 1);
    LLVMBuildStore(g->b, LLVMConstInt(i1, 1, 0), ran);
    zy_vec_push(&g->ext_reallocs, call);
    zy_vec_push(&g->ext_realloc_ran, ran);
  }
  if (t == ZY_TY_PTR || t == ZY_TY_INT)
    return 0;
  LLVMValueRef fn = move_helper(g, zy_ty_llvm(g, t));
  LLVMValueRef args[3] = {zy_shadow_lookup(g, call), zy_shadow_lookup(g, p),
                          realloc_kept(g, call)};
  LLVMBuildCall2(g->b, LLVMGlobalGetValueType(fn), fn, args, 3, "");
  return 0;
}

/* `v` where the realloc whose flag `ran` is at the builder ran, else `no`
 * (a realloc under a branch: its shadows and sizes are not there). */
static LLVMValueRef if_ran(ZyGen *g, LLVMValueRef ran, LLVMValueRef v,
                           LLVMValueRef no) {
  return LLVMBuildSelect(g->b, ran, v, no, "");
}

void zy_reverse_memory_finish(ZyGen *g) {
  for (size_t k = 0; k < g->ext_reallocs.len; k++) {
    LLVMValueRef call = g->ext_reallocs.data[k];
    LLVMPositionBuilderBefore(g->b, g->retinst);
    LLVMValueRef slot = g->ext_realloc_ran.data[k];
    LLVMValueRef ran = LLVMBuildLoad2(g->b, LLVMGetAllocatedType(slot), slot,
                                      "zymase.realloc.ran");
    LLVMValueRef null = LLVMConstNull(LLVMTypeOf(call));
    LLVMValueRef old =
        if_ran(g, ran, zy_shadow_lookup(g, LLVMGetOperand(call, 0)), null);
    ZyTy t = realloc_type(g, call);
    if (zy_ty_is_float(t) && !zy_freed_here(call)) {
      /* The caller reaches the gradient through the new shadow. */
      LLVMValueRef fn = move_helper(g, zy_ty_llvm(g, t));
      LLVMValueRef kept = realloc_kept(g, call);
      LLVMValueRef args[3] = {
          old, if_ran(g, ran, zy_shadow_lookup(g, call), null),
          if_ran(g, ran, kept, LLVMConstNull(LLVMTypeOf(kept)))};
      LLVMBuildCall2(g->b, LLVMGlobalGetValueType(fn), fn, args, 3, "");
    }
    /* realloc freed the primal's old block: its shadow goes too. */
    zy_call_free(g->b, "free", old);
  }
}

/* Frees a shadow allocation once the reverse sweep is past its uses. */
static int reverse_allocation(ZyGen *g, LLVMValueRef call) {
  if (zy_activity_allocation(call) == ZY_ALLOC_REALLOC) {
    if (reverse_realloc(g, call))
      return -1;
    if (!zy_freed_here(call))
      return 0; /* escapes: the caller owns it */
  }
  return zy_free_shadow(g, call, zy_shadow_lookup(g, call));
}

/* Shadow `s` of the block of registered allocator call `call` goes back
 * through the registered deallocator, given the allocator call's
 * arguments as the registration says. */
static void free_like(ZyGen *g, const ZyAllocLike *a, LLVMValueRef call,
                      LLVMValueRef s) {
  LLVMValueRef args[ZY_ALLOC_LIKE_MAX_ARGS];
  for (unsigned k = 0; k < a->nargs; k++)
    args[k] = a->args[k] < 0 ? s
                             : zy_lookup(g, LLVMGetOperand(call, a->args[k]));
  LLVMBuildCall2(g->b, LLVMGlobalGetValueType(a->dealloc), a->dealloc, args,
                 a->nargs, "");
}

/* Shadow `s` of the block a call of a function with a body returned goes
 * back the way the primal block goes: through registered deallocator
 * call `by` of this function, the shadow in place of the block. */
static int free_returned_like(ZyGen *g, LLVMValueRef call, LLVMValueRef by,
                              LLVMValueRef s) {
  const ZyAllocLike *a = zy_registry_deallocator(LLVMGetCalledValue(by));
  if (LLVMGetBasicBlockParent(LLVMGetInstructionParent(by)) != g->primal ||
      zy_loop_of(g, LLVMGetInstructionParent(by)) !=
          zy_loop_of(g, LLVMGetInstructionParent(call)))
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                        "release the block in the function that receives "
                        "it, in the same loop",
                        "a block returned by this call is released by the "
                        "registered deallocator '%s' in another function or "
                        "loop: its shadow cannot be released the same way",
                        LLVMGetValueName(a->dealloc));
  LLVMValueRef args[ZY_ALLOC_LIKE_MAX_ARGS];
  for (unsigned k = 0; k < a->nargs; k++)
    args[k] = k == a->block ? s : zy_lookup(g, LLVMGetOperand(by, k));
  LLVMBuildCall2(g->b, LLVMGlobalGetValueType(a->dealloc), a->dealloc, args,
                 a->nargs, "");
  return 0;
}

int zy_free_shadow(ZyGen *g, LLVMValueRef call, LLVMValueRef s) {
  LLVMValueRef by = NULL;
  if (zy_activity_allocation(call) == ZY_ALLOC_LIKE) {
    free_like(g, zy_registry_allocator(LLVMGetCalledValue(call)), call, s);
    return 0;
  }
  if (zy_activity_allocation(call) == ZY_ALLOC_NONE &&
      value_freed(call, 0, &by) && LLVMIsACallInst(by) &&
      zy_registry_deallocator(LLVMGetCalledValue(by)))
    return free_returned_like(g, call, by, s);
  const char *alloc = callee_name(call);
  const char *name = !strcmp(alloc, "_Znwm")   ? "_ZdlPv"
                     : !strcmp(alloc, "_Znam") ? "_ZdaPv"
                                               : "free";
  zy_call_free(g->b, name, s);
  return 0;
}

int zy_free_deferred(ZyGen *g, LLVMValueRef call) {
  LLVMValueRef f = LLVMIsACallInst(call) ? LLVMGetCalledValue(call) : NULL;
  if (g->split || !f || !LLVMIsAFunction(f) ||
      LLVMGetBasicBlockParent(LLVMGetInstructionParent(call)) != g->primal ||
      LLVMGetNumArgOperands(call) != 1 ||
      zy_loop_of(g, LLVMGetInstructionParent(call)))
    return 0;
  const char *name = LLVMGetValueName(f);
  return !strcmp(name, "free") || !strcmp(name, "_ZdlPv") ||
         !strcmp(name, "_ZdaPv");
}

void zy_free_defer(ZyGen *g, LLVMValueRef call) {
  LLVMValueRef p = LLVMGetOperand(call, 0);
  LLVMValueRef slot = zy_new_slot(g, LLVMTypeOf(p), "zymase.freed", 1);
  LLVMBuildStore(g->b, zy_map_get(&g->vmap, p) ? zy_map_get(&g->vmap, p) : p,
                 slot);
  zy_vec_push(&g->dfrees, slot);
  zy_vec_push(&g->dfrees, call);
}

void zy_free_deferred_finish(ZyGen *g) {
  if (!g->dfrees.len)
    return;
  LLVMPositionBuilderBefore(g->b, g->retinst);
  for (size_t k = 0; k < g->dfrees.len; k += 2) {
    LLVMValueRef slot = g->dfrees.data[k], call = g->dfrees.data[k + 1];
    LLVMTypeRef t = LLVMTypeOf(LLVMGetOperand(call, 0));
    zy_call_free(g->b, LLVMGetValueName(LLVMGetCalledValue(call)),
                 LLVMBuildLoad2(g->b, t, slot, ""));
  }
  zy_vec_free(&g->dfrees);
}

int zy_reverse_memory(ZyGen *g, LLVMValueRef i, LLVMValueRef d) {
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMLoad: /* the loaded value's adjoint goes to memory */
    zy_accumulate_shadow(g, LLVMGetOperand(i, 0),
                         zy_shadow_lookup(g, LLVMGetOperand(i, 0)), d);
    return 0;
  case LLVMStore:
    return reverse_store(g, i);
  case LLVMAtomicRMW: { /* v gets the adjoint of s, which s keeps */
    LLVMValueRef v = LLVMGetOperand(i, 1);
    LLVMTypeRef t = LLVMTypeOf(v);
    LLVMValueRef ds = LLVMBuildLoad2(
        g->b, t, zy_shadow_lookup(g, LLVMGetOperand(i, 0)), "");
    LLVMSetOrdering(ds, LLVMAtomicOrderingMonotonic);
    LLVMSetAlignment(ds, LLVMGetAlignment(i));
    if (LLVMGetAtomicRMWBinOp(i) == LLVMAtomicRMWBinOpFSub)
      ds = LLVMBuildFNeg(g->b, ds, "");
    zy_add_adjoint(g, v, ds);
    return 0;
  }
  case LLVMAlloca: /* a shadow on the heap (zy_shadow_on_heap) */
    zy_call_free(g->b, "free", zy_shadow_lookup(g, i));
    return 0;
  case LLVMCall:
    if (is_memcpy(i))
      return reverse_memcpy(g, i);
    if (is_memset(i)) {
      LLVMValueRef z = LLVMConstInt(LLVMInt8TypeInContext(g->zm->ctx), 0, 0);
      LLVMBuildMemSet(g->b, zy_shadow_lookup(g, LLVMGetOperand(i, 0)), z,
                      zy_lookup(g, LLVMGetOperand(i, 2)), 1);
      return 0;
    }
    return reverse_allocation(g, i);
  default:
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                        "no derivative rule for this instruction");
  }
}
