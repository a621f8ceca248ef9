/* gpu_dynamic_shared.c - dynamic (`extern __shared__`) memory in device
 * gradients.  Its shadow is device heap memory, one buffer per block as
 * big as the launch's dynamic shared memory: thread 0 allocates it and
 * passes it on through a __shared__ slot, the block zeroes it with the
 * static shadows (gpu_sync.c), thread 0 frees it after a last barrier.
 * Before AD the clone reaches that memory through one global and generic
 * pointers only, so that every shadow derived from it is generic.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "parallel.h"

#include "ad/ad.h"
#include "ad/cache.h"
#include "ir/irutil.h"

#include <stdio.h>
#include <string.h>

enum { AS_SHARED = 3, DEPTH = 8 };

int zy_gpu_dynamic_shared(LLVMValueRef v) {
  return v && LLVMIsAGlobalVariable(v) && LLVMIsDeclaration(v) &&
         LLVMGetPointerAddressSpace(LLVMTypeOf(v)) == AS_SHARED;
}

static int is_cast(LLVMOpcode op) {
  return op == LLVMAddrSpaceCast || op == LLVMBitCast || op == LLVMPtrToInt ||
         op == LLVMIntToPtr;
}

/* `c` with every dynamic shared global replaced by `one`, one of them (all
 * of them are the same memory, at the same address); `c` where nothing
 * changes or an expression cannot be rebuilt. */
static LLVMValueRef unify(LLVMValueRef c, LLVMValueRef one, int depth) {
  if (zy_gpu_dynamic_shared(c))
    return one;
  if (!LLVMIsAConstantExpr(c) || depth > DEPTH || !LLVMGetNumOperands(c))
    return c;
  LLVMValueRef base = unify(LLVMGetOperand(c, 0), one, depth + 1), r = NULL;
  if (base == LLVMGetOperand(c, 0))
    return c;
  LLVMTypeRef t = LLVMTypeOf(c);
  switch (LLVMGetConstOpcode(c)) {
  case LLVMGetElementPtr:
    r = zy_const_gep_on(c, base);
    break;
  case LLVMAddrSpaceCast:
    r = LLVMConstAddrSpaceCast(base, t);
    break;
  case LLVMPtrToInt:
    r = LLVMConstPtrToInt(base, t);
    break;
  case LLVMIntToPtr:
    r = LLVMConstIntToPtr(base, t);
    break;
  case LLVMBitCast:
    r = LLVMConstBitCast(base, t);
    break;
  default:
    break;
  }
  return r ? r : c;
}

/* Shared-space constant `c` on `one` (GEPs of it) as a generic pointer,
 * or NULL (an integer round trip would change the address). */
static LLVMValueRef generic_const(LLVMValueRef c, LLVMValueRef one, int depth) {
  LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(c));
  if (c == one)
    return LLVMConstAddrSpaceCast(one, LLVMPointerTypeInContext(ctx, 0));
  if (!LLVMIsAConstantExpr(c) || depth > DEPTH ||
      LLVMGetConstOpcode(c) != LLVMGetElementPtr)
    return NULL;
  LLVMValueRef base = generic_const(LLVMGetOperand(c, 0), one, depth + 1);
  return base ? zy_const_gep_on(c, base) : NULL;
}

/* The dynamic shared global `c` (a constant) is built on, or NULL. */
static LLVMValueRef const_root(LLVMValueRef c) {
  for (int d = 0; d < DEPTH && LLVMIsAConstantExpr(c); d++) {
    LLVMOpcode op = LLVMGetConstOpcode(c);
    if (op != LLVMGetElementPtr && !is_cast(op))
      return NULL;
    c = LLVMGetOperand(c, 0);
  }
  return zy_gpu_dynamic_shared(c) ? c : NULL;
}

static int shared_pointer(LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v);
  return LLVMGetTypeKind(t) == LLVMPointerTypeKind &&
         LLVMGetPointerAddressSpace(t) == AS_SHARED;
}

static void generic_uses(LLVMValueRef v, LLVMValueRef gen, int depth);

/* Operand `k` of `i`, a shared-space pointer into the dynamic memory,
 * taken as generic pointer `gen` where `i` allows it: the address of a
 * load, store or atomic; the base of a GEP (made again on `gen`, its
 * uses in turn); a cast to a generic pointer (replaced).  Returns 1 when
 * `i` is gone. */
static int make_generic(LLVMValueRef i, unsigned k, LLVMValueRef gen,
                        int depth) {
  LLVMOpcode op = LLVMGetInstructionOpcode(i);
  if ((op == LLVMLoad && k == 0) || (op == LLVMStore && k == 1) ||
      ((op == LLVMAtomicRMW || op == LLVMAtomicCmpXchg) && k == 0)) {
    LLVMSetOperand(i, k, gen);
    return 0;
  }
  if (op == LLVMAddrSpaceCast && LLVMTypeOf(i) == LLVMTypeOf(gen)) {
    LLVMReplaceAllUsesWith(i, gen);
    LLVMInstructionEraseFromParent(i);
    return 1;
  }
  if (op != LLVMGetElementPtr || k != 0 || depth > DEPTH)
    return 0;
  LLVMValueRef idx[16];
  unsigned n = (unsigned)LLVMGetNumOperands(i) - 1;
  if (n > 16)
    return 0;
  for (unsigned j = 0; j < n; j++)
    idx[j] = LLVMGetOperand(i, j + 1);
  LLVMBuilderRef b =
      LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(i)));
  LLVMPositionBuilderBefore(b, i);
  size_t len;
  const char *name = LLVMGetValueName2(i, &len);
  LLVMValueRef g =
      LLVMBuildGEP2(b, LLVMGetGEPSourceElementType(i), gen, idx, n, name);
  LLVMSetIsInBounds(g, LLVMIsInBounds(i));
  LLVMDisposeBuilder(b);
  generic_uses(i, g, depth + 1);
  if (LLVMGetFirstUse(i))
    return 0;
  LLVMInstructionEraseFromParent(i);
  return 1;
}

/* Each operand `v` (a shared-space pointer) of instruction `i` taken as
 * generic `gen` where it can be; returns 1 when `i` is gone. */
static int generic_operands(LLVMValueRef i, LLVMValueRef v, LLVMValueRef gen,
                            int depth) {
  for (unsigned k = 0; k < (unsigned)LLVMGetNumOperands(i); k++)
    if (LLVMGetOperand(i, k) == v && make_generic(i, k, gen, depth))
      return 1;
  return 0;
}

/* Every use of shared-space pointer `v` taken as generic `gen` where it
 * can be. */
static void generic_uses(LLVMValueRef v, LLVMValueRef gen, int depth) {
  ZyVec users = {0};
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u))
    if (LLVMIsAInstruction(LLVMGetUser(u)) &&
        !zy_vec_contains(&users, LLVMGetUser(u)))
      zy_vec_push(&users, LLVMGetUser(u));
  for (size_t k = 0; k < users.len; k++)
    generic_operands(users.data[k], v, gen, depth);
  zy_vec_free(&users);
}

void zy_gpu_dynamic_shared_prepare(LLVMValueRef fn) {
  if (!zy_gpu_target(LLVMGetGlobalParent(fn)))
    return;
  LLVMValueRef one = NULL;
  ZyVec at = {0}; /* instructions with a shared-space operand on it */
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      for (int k = 0; k < LLVMGetNumOperands(i); k++) {
        LLVMValueRef o = LLVMGetOperand(i, k), root = const_root(o);
        if (!root)
          continue;
        if (!one)
          one = root;
        LLVMValueRef u = unify(o, one, 0);
        if (u != o)
          LLVMSetOperand(i, (unsigned)k, u);
        if (shared_pointer(u) && !zy_vec_contains(&at, i))
          zy_vec_push(&at, i);
      }
  for (size_t n = 0; n < at.len; n++) {
    LLVMValueRef i = at.data[n];
    for (unsigned k = 0; k < (unsigned)LLVMGetNumOperands(i); k++) {
      LLVMValueRef o = LLVMGetOperand(i, k);
      LLVMValueRef gen = shared_pointer(o) ? generic_const(o, one, 0) : NULL;
      if (gen && make_generic(i, k, gen, 0))
        break; /* `i` is gone */
    }
  }
  zy_vec_free(&at);
}

/* Whether shared-space pointer `v` is built on a dynamic shared global
 * (through GEPs, casts, selects and phis); sets `*root` to it. */
static int on_dynamic(LLVMValueRef v, LLVMValueRef *root, int depth) {
  if (depth > DEPTH)
    return 0;
  if (LLVMIsAConstant(v))
    return (*root = const_root(v)) != NULL;
  if (LLVMIsAGetElementPtrInst(v) || LLVMIsACastInst(v))
    return on_dynamic(LLVMGetOperand(v, 0), root, depth + 1);
  if (LLVMIsASelectInst(v))
    return on_dynamic(LLVMGetOperand(v, 1), root, depth + 1) ||
           on_dynamic(LLVMGetOperand(v, 2), root, depth + 1);
  if (LLVMIsAPHINode(v))
    for (unsigned k = 0; k < LLVMCountIncoming(v); k++)
      if (on_dynamic(LLVMGetIncomingValue(v, k), root, depth + 1))
        return 1;
  return 0;
}

int zy_gpu_dynamic_shared_check(ZyGen *g) {
  if (!zy_gpu_target(g->zm->mod))
    return 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      for (int k = 0; k < LLVMGetNumOperands(i); k++) {
        LLVMValueRef o = LLVMGetOperand(i, k), root = NULL;
        if (!shared_pointer(o) || !on_dynamic(o, &root, 0) ||
            !(zy_activity_shadowed(g->act, root) ||
              zy_activity_shadowed(g->act, o)))
          continue;
        if ((LLVMIsAICmpInst(i) || LLVMIsAPtrToIntInst(i)) &&
            !zy_activity_shadowed(g->act, i))
          continue; /* compares or takes the address: no shadow needed */
        g->cur = i;
        return ZY_GEN_ERROR(
            g, ZY_ERR_UNSUPPORTED,
            "reach the array through ordinary pointers, without "
            "__attribute__((address_space(3))) pointers to it passed to "
            "functions, stored, selected or merged",
            "the dynamic (extern) __shared__ array '%s' holds derivatives, "
            "and this instruction takes it as a pointer to shared memory "
            "(address space 3); its shadow is in device memory, which such "
            "a pointer cannot address",
            LLVMGetValueName(root));
      }
  return 0;
}

/* The module's __shared__ slot through which thread 0 passes the shadow
 * buffer to the block. */
static LLVMValueRef slot(ZyGen *g) {
  const char *name = "zymase.dynshared.shadow";
  LLVMValueRef s = LLVMGetNamedGlobal(g->zm->mod, name);
  if (s)
    return s;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(g->zm->ctx, 0);
  s = LLVMAddGlobalInAddressSpace(g->zm->mod, ptr, name, AS_SHARED);
  LLVMSetInitializer(s, LLVMGetUndef(ptr));
  LLVMSetLinkage(s, LLVMInternalLinkage);
  LLVMSetAlignment(s, 8);
  return s;
}

LLVMValueRef zy_gpu_dynamic_shadow(ZyGen *g, LLVMValueRef gv) {
  if (g->gpu_dyn)
    return g->gpu_dyn;
  zy_loops_report_note(g, gv,
                       "its shadow (all dynamic __shared__ memory) in device "
                       "malloc per block, the launch's dynamic shared bytes, "
                       "zeroed on entry and freed at the return");
  g->gpu_dynblock =
      LLVMAppendBasicBlockInContext(g->zm->ctx, g->grad, "zymase.dynshared");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(g->zm->ctx);
  LLVMPositionBuilderAtEnd(b, g->gpu_dynblock);
  g->gpu_dyn = LLVMBuildLoad2(b, LLVMPointerTypeInContext(g->zm->ctx, 0),
                              slot(g), "zymase.dynshared");
  LLVMDisposeBuilder(b);
  return g->gpu_dyn;
}

LLVMValueRef zy_gpu_dynamic_shadow_expr(ZyGen *g, LLVMValueRef c,
                                        LLVMValueRef base) {
  LLVMValueRef s = zy_map_get(&g->gpu_dynexprs, c);
  if (s)
    return s;
  LLVMOpcode op = LLVMGetConstOpcode(c);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(g->zm->ctx);
  LLVMPositionBuilderAtEnd(b, g->gpu_dynblock);
  if (op == LLVMGetElementPtr && LLVMGetNumOperands(c) <= 17) {
    LLVMValueRef idx[16];
    unsigned n = (unsigned)LLVMGetNumOperands(c) - 1;
    for (unsigned k = 0; k < n; k++)
      idx[k] = LLVMGetOperand(c, k + 1);
    s = LLVMBuildGEP2(b, LLVMGetGEPSourceElementType(c), base, idx, n, "");
    LLVMSetIsInBounds(s, LLVMIsInBounds(c));
  } else if (op == LLVMAddrSpaceCast || op == LLVMBitCast) {
    /* a generic pointer stays one; no shadow in another space */
    s = LLVMTypeOf(base) == LLVMTypeOf(c) ? base : NULL;
  } else if (is_cast(op)) {
    s = LLVMBuildCast(b, op, base, LLVMTypeOf(c), "");
  }
  LLVMDisposeBuilder(b);
  if (s)
    zy_map_put(&g->gpu_dynexprs, c, s);
  return s;
}

/* Linear thread number == 0. */
static LLVMValueRef thread0(LLVMBuilderRef b, LLVMModuleRef m) {
  const ZyGpuTarget *t = zy_gpu_target(m);
  LLVMValueRef any = LLVMBuildOr(
      b, LLVMBuildOr(b, t->thread(b, m, 0, 0), t->thread(b, m, 0, 1), ""),
      t->thread(b, m, 0, 2), "");
  return LLVMBuildICmp(b, LLVMIntEQ, any, LLVMConstNull(LLVMTypeOf(any)),
                       "zymase.thread0");
}

LLVMValueRef zy_gpu_dynamic_alloc(ZyGen *g, LLVMBuilderRef b) {
  LLVMModuleRef m = g->zm->mod;
  LLVMContextRef c = g->zm->ctx;
  const ZyGpuTarget *t = zy_gpu_target(m);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  /* whole 8-byte words, at least one */
  LLVMValueRef bytes = LLVMBuildZExt(b, t->dynamic_shared(b, m), i64, "");
  LLVMValueRef words =
      LLVMBuildLShr(b, LLVMBuildAdd(b, bytes, LLVMConstInt(i64, 7, 0), ""),
                    LLVMConstInt(i64, 3, 0), "zymase.dynshared.words");
  LLVMValueRef alloc_words = LLVMBuildSelect(
      b, LLVMBuildICmp(b, LLVMIntEQ, words, LLVMConstInt(i64, 0, 0), ""),
      LLVMConstInt(i64, 1, 0), words, "");
  LLVMBasicBlockRef get =
      LLVMAppendBasicBlockInContext(c, g->grad, "zymase.dynshared.alloc");
  LLVMBasicBlockRef join =
      LLVMAppendBasicBlockInContext(c, g->grad, "zymase.dynshared.sync");
  LLVMBuildCondBr(b, thread0(b, m), get, join);
  LLVMPositionBuilderAtEnd(b, get);
  char msg[400];
  snprintf(msg, sizeof msg,
           "zymase: device malloc for the shadow of the dynamic __shared__ "
           "memory in the gradient of '%s' failed (raise "
           "cudaLimitMallocHeapSize)",
           LLVMGetValueName(g->user));
  LLVMValueRef p = zy_gpu_alloc(
      g, b, LLVMBuildShl(b, alloc_words, LLVMConstInt(i64, 3, 0), ""), msg,
      "zymase.dynshared.buffer");
  LLVMBuildStore(b, p, slot(g));
  LLVMBuildBr(b, join);
  LLVMPositionBuilderAtEnd(b, join);
  t->barrier(b, m); /* the slot is written */
  LLVMBuildBr(b, g->gpu_dynblock);
  LLVMPositionBuilderAtEnd(b, g->gpu_dynblock);
  return words;
}

void zy_gpu_dynamic_release(ZyGen *g) {
  if (!g->gpu_dyn)
    return;
  LLVMModuleRef m = g->zm->mod;
  LLVMContextRef c = g->zm->ctx;
  LLVMValueRef ret = g->retinst;
  LLVMBasicBlockRef bb = LLVMGetInstructionParent(ret);
  LLVMInstructionRemoveFromParent(ret);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, bb);
  zy_gpu_target(m)->barrier(b, m); /* every thread is done with it */
  LLVMBasicBlockRef del =
      LLVMAppendBasicBlockInContext(c, g->grad, "zymase.dynshared.free");
  LLVMBasicBlockRef done =
      LLVMAppendBasicBlockInContext(c, g->grad, "zymase.dynshared.done");
  LLVMBuildCondBr(b, thread0(b, m), del, done);
  LLVMPositionBuilderAtEnd(b, del);
  zy_gpu_free(g, b, g->gpu_dyn);
  LLVMBuildBr(b, done);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMInsertIntoBuilder(b, ret);
  LLVMDisposeBuilder(b);
}
