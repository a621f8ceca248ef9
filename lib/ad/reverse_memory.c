/* reverse_memory.c - adjoints through memory: a load adds its adjoint into
 * the shadow of its address, a store moves the shadow's adjoint to the
 * stored value and clears it (the overwritten value gets nothing from
 * later on), memcpy moves adjoints from the destination's shadow back to
 * the source's, memset clears them, and shadow heap memory is freed.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad.h"

#include <llvm-c/Target.h>

#include <stdio.h>
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

int zy_reverse_memory_needed(ZyGen *g, LLVMValueRef i) {
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMStore:
    return zy_activity_shadowed(g->act, LLVMGetOperand(i, 1)) &&
           zy_type_differentiable(LLVMTypeOf(LLVMGetOperand(i, 0)));
  case LLVMCall:
    if (is_memcpy(i) || is_memset(i))
      return zy_activity_shadowed(g->act, LLVMGetOperand(i, 0));
    return zy_activity_shadowed(g->act, i) &&
           zy_activity_allocation(i) != ZY_ALLOC_NONE;
  default:
    return 0;
  }
}

static LLVMTypeRef llvm_type(ZyGen *g, ZyTy t) {
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

/* *to += *from; *from = 0, for one element of type t. */
static void move_adjoint(ZyGen *g, LLVMTypeRef t, LLVMValueRef from,
                         LLVMValueRef to) {
  LLVMValueRef d = LLVMBuildLoad2(g->b, t, from, "");
  LLVMBuildStore(g->b, LLVMConstNull(t), from);
  zy_accumulate(g, to, d, ZY_ACC_PLAIN);
}

/* The helper that moves `n` bytes of adjoints of type t from `from` to
 * `to` (a loop; emitted once per type into the module). */
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
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef count = LLVMBuildUDiv(b, LLVMGetParam(fn, 2), size, "count");
  LLVMValueRef zero = LLVMConstInt(i64t, 0, 0);
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, count, zero, ""), done, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef k = LLVMBuildPhi(b, i64t, "k");
  LLVMValueRef from = LLVMBuildGEP2(b, t, LLVMGetParam(fn, 0), &k, 1, "");
  LLVMValueRef to = LLVMBuildGEP2(b, t, LLVMGetParam(fn, 1), &k, 1, "");
  LLVMValueRef d = LLVMBuildLoad2(b, t, from, "");
  LLVMBuildStore(b, LLVMConstNull(t), from);
  LLVMValueRef sum = LLVMBuildFAdd(b, LLVMBuildLoad2(b, t, to, ""), d, "");
  LLVMBuildStore(b, sum, to);
  LLVMValueRef k1 = LLVMBuildAdd(b, k, LLVMConstInt(i64t, 1, 0), "");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, k1, count, ""), done, loop);
  LLVMValueRef kin[2] = {zero, k1};
  LLVMBasicBlockRef kfrom[2] = {entry, loop};
  LLVMAddIncoming(k, kin, kfrom, 2);
  LLVMPositionBuilderAtEnd(b, done);
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
  if (LLVMIsAConstantInt(n) && LLVMConstIntGetSExtValue(n) <= 256) {
    long long bytes = LLVMConstIntGetSExtValue(n), known = 0;
    for (long long off = 0; off < bytes;) {
      ZyTy t = type_at(g, d, s, off);
      known |= t != ZY_TY_UNKNOWN;
      if (!zy_ty_is_float(t)) {
        off += t == ZY_TY_PTR ? 8 : 1;
        continue;
      }
      LLVMTypeRef lt = llvm_type(g, t);
      move_adjoint(g, lt, byte_gep(g, sd, i64(g, off)),
                   byte_gep(g, ss, i64(g, off)));
      off += zy_ty_size(t);
    }
    if (known)
      return 0;
  } else {
    ZyTy t = type_at(g, d, s, 0);
    if (zy_ty_is_float(t)) {
      LLVMValueRef fn = move_helper(g, llvm_type(g, t));
      LLVMValueRef args[3] = {sd, ss, zy_lookup(g, n)};
      LLVMBuildCall2(g->b, LLVMGlobalGetValueType(fn), fn, args, 3, "");
      return 0;
    }
    if (t == ZY_TY_PTR || t == ZY_TY_INT)
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
  LLVMValueRef d = LLVMBuildLoad2(g->b, t, sp, "");
  LLVMBuildStore(g->b, LLVMConstNull(t), sp);
  zy_add_adjoint(g, v, d);
  return 0;
}

/* Frees a shadow allocation once the reverse sweep is past its uses. */
static int reverse_allocation(ZyGen *g, LLVMValueRef call) {
  LLVMValueRef s = zy_shadow_lookup(g, call);
  const char *alloc = callee_name(call);
  const char *name = !strcmp(alloc, "_Znwm")   ? "_ZdlPv"
                     : !strcmp(alloc, "_Znam") ? "_ZdaPv"
                                               : "free";
  LLVMContextRef c = g->zm->ctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(c), &ptr, 1, 0);
  LLVMValueRef fn = LLVMGetNamedFunction(g->zm->mod, name);
  if (!fn)
    fn = LLVMAddFunction(g->zm->mod, name, fty);
  LLVMBuildCall2(g->b, fty, fn, &s, 1, "");
  return 0;
}

int zy_reverse_memory(ZyGen *g, LLVMValueRef i, LLVMValueRef d) {
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMLoad: /* the loaded value's adjoint goes to memory */
    zy_accumulate(g, zy_shadow_lookup(g, LLVMGetOperand(i, 0)), d,
                  ZY_ACC_PLAIN);
    return 0;
  case LLVMStore:
    return reverse_store(g, i);
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
