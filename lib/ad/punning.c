/* punning.c - floating-point values moved through integers (type
 * punning: memcpy into a uint64_t, a union, a bitcast) are given back
 * their floating-point type before activity analysis, so derivatives
 * follow them; bits changed by integer arithmetic and read back as a float
 * (the fast inverse square root) make that float a constant, with a
 * warning.
 *
 * A *root* is an integer load of memory that the type analysis says holds
 * a float of the same width, or a bitcast of a float to an integer.  From
 * the roots, phis, selects and freezes of integers that only combine such
 * values are followed; together they form the *moved* values.  Each moved
 * value gets a floating-point twin (the load made a float load, the
 * bitcast its operand, the phi a float phi, ...); stores and bitcasts back
 * to the float type then use the twin, and any other use (a comparison, a
 * mask, arithmetic) gets the twin's bits through a bitcast, where no
 * derivative flows.
 *
 * Bits passed as an integer argument to a function too large to inline (or
 * recursive) go instead, in step 1 (preprocess.c), to a twin of
 * the function taking the float; bits passed to a declaration or an
 * unknown function get a warning.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad.h"
#include "runtime.h"

#include "analysis/activity.h"
#include "analysis/registry.h"
#include "support/vec.h"
#include "llvm/glue.h"

#include <llvm-c/Target.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Pun {
  ZyGen *g;
  ZyMap twin;  /* moved integer value -> its float twin (or NULL yet) */
  ZyVec moved; /* in discovery order */
  LLVMTypeRef fp;
} Pun;

/* The width of a scalar floating-point type (0 for other types). */
static unsigned fp_bits(LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMHalfTypeKind:
  case LLVMBFloatTypeKind:
    return 16;
  case LLVMFloatTypeKind:
    return 32;
  case LLVMDoubleTypeKind:
    return 64;
  case LLVMFP128TypeKind:
    return 128;
  default:
    return 0;
  }
}

static int is_scalar_fp(LLVMTypeRef t) { return fp_bits(t) != 0; }

/* The floating-point type of `bits` width that `t` names, or NULL. */
static LLVMTypeRef fp_of(LLVMContextRef c, ZyTy t, unsigned bits) {
  LLVMTypeRef r = t == ZY_TY_HALF     ? LLVMHalfTypeInContext(c)
                  : t == ZY_TY_BFLOAT ? LLVMBFloatTypeInContext(c)
                  : t == ZY_TY_FLOAT  ? LLVMFloatTypeInContext(c)
                  : t == ZY_TY_DOUBLE ? LLVMDoubleTypeInContext(c)
                  : t == ZY_TY_FP128  ? LLVMFP128TypeInContext(c)
                                      : NULL;
  return r && fp_bits(r) == bits ? r : NULL;
}

static unsigned int_bits(LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v);
  return LLVMGetTypeKind(t) == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(t)
                                                   : 0;
}

/* The float type a root carries, or NULL when `i` is not a root. */
static LLVMTypeRef root_type(ZyGen *g, LLVMValueRef i) {
  unsigned bits = int_bits(i);
  if (!bits)
    return NULL;
  if (LLVMIsALoadInst(i) && !LLVMGetVolatile(i) && LLVMGetOrdering(i) == LLVMAtomicOrderingNotAtomic)
    return fp_of(LLVMGetTypeContext(LLVMTypeOf(i)),
                 zy_types_memory(g->types, LLVMGetOperand(i, 0), 0), bits);
  if (LLVMIsABitCastInst(i) && is_scalar_fp(LLVMTypeOf(LLVMGetOperand(i, 0))))
    return LLVMTypeOf(LLVMGetOperand(i, 0));
  return NULL;
}

/* Whether `v` joins the moved values as a phi, select or freeze of the
 * width of p->fp: each value it combines is moved or a constant, and one
 * at least is moved. */
static int combines_moved(Pun *p, LLVMValueRef v) {
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  if ((op != LLVMPHI && op != LLVMSelect && op != LLVMFreeze) ||
      int_bits(v) != fp_bits(p->fp))
    return 0;
  int n = op == LLVMPHI ? (int)LLVMCountIncoming(v) : LLVMGetNumOperands(v);
  int any = 0;
  for (int k = op == LLVMSelect; k < n; k++) {
    LLVMValueRef o = op == LLVMPHI ? LLVMGetIncomingValue(v, k)
                                   : LLVMGetOperand(v, k);
    if (zy_map_has(&p->twin, o))
      any = 1;
    else if (!LLVMIsAConstantInt(o) && !LLVMIsUndef(o) && !LLVMIsPoison(o))
      return 0;
  }
  return any;
}

/* Grows the moved values from the roots of type `fp` through phis,
 * selects and freezes, until nothing changes. */
static void collect(Pun *p) {
  for (int changed = 1; changed;) {
    changed = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(p->g->primal); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i)) {
        if (zy_map_has(&p->twin, i) || !int_bits(i))
          continue;
        LLVMTypeRef rt = root_type(p->g, i);
        if (rt ? rt == p->fp : combines_moved(p, i)) {
          zy_map_put(&p->twin, i, NULL);
          zy_vec_push(&p->moved, i);
          changed = 1;
        }
      }
  }
}

static LLVMValueRef twin_of(Pun *p, LLVMValueRef v) {
  if (zy_map_has(&p->twin, v))
    return zy_map_get(&p->twin, v);
  if (LLVMIsUndef(v) || LLVMIsPoison(v))
    return LLVMGetUndef(p->fp);
  return LLVMConstBitCast(v, p->fp); /* an integer constant's bits */
}

/* Builds the twin of each moved value, in discovery order (phis get their
 * incoming values afterwards). */
static void make_twins(Pun *p, LLVMBuilderRef b) {
  for (size_t k = 0; k < p->moved.len; k++) {
    LLVMValueRef v = p->moved.data[k], t;
    LLVMPositionBuilderBefore(b, v);
    switch (LLVMGetInstructionOpcode(v)) {
    case LLVMLoad:
      t = LLVMBuildLoad2(b, p->fp, LLVMGetOperand(v, 0), "");
      LLVMSetAlignment(t, LLVMGetAlignment(v));
      break;
    case LLVMBitCast:
      t = LLVMGetOperand(v, 0);
      break;
    case LLVMPHI:
      t = LLVMBuildPhi(b, p->fp, "");
      break;
    default: /* select, freeze: operands filled in below */
      t = NULL;
      break;
    }
    zy_map_put(&p->twin, v, t);
  }
  for (size_t k = 0; k < p->moved.len; k++) {
    LLVMValueRef v = p->moved.data[k];
    LLVMOpcode op = LLVMGetInstructionOpcode(v);
    LLVMPositionBuilderBefore(b, v);
    if (op == LLVMSelect)
      zy_map_put(&p->twin, v,
                 LLVMBuildSelect(b, LLVMGetOperand(v, 0),
                                 twin_of(p, LLVMGetOperand(v, 1)),
                                 twin_of(p, LLVMGetOperand(v, 2)), ""));
    else if (op == LLVMFreeze)
      zy_map_put(&p->twin, v,
                 LLVMBuildFreeze(b, twin_of(p, LLVMGetOperand(v, 0)), ""));
  }
  for (size_t k = 0; k < p->moved.len; k++) {
    LLVMValueRef v = p->moved.data[k];
    if (LLVMGetInstructionOpcode(v) != LLVMPHI)
      continue;
    for (unsigned j = 0; j < LLVMCountIncoming(v); j++) {
      LLVMValueRef in = twin_of(p, LLVMGetIncomingValue(v, j));
      LLVMBasicBlockRef from = LLVMGetIncomingBlock(v, j);
      LLVMAddIncoming(zy_map_get(&p->twin, v), &in, &from, 1);
    }
  }
}

/* Where the bits of `t` can be computed for the other uses: right after
 * its definition (after the phis and landing pad of its block), or at
 * the entry. */
static void position_after(LLVMBuilderRef b, LLVMValueRef fn, LLVMValueRef t) {
  LLVMValueRef at;
  if (!LLVMIsAInstruction(t)) {
    at = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(fn));
  } else {
    at = LLVMGetNextInstruction(t);
    while (at && (LLVMIsAPHINode(at) || LLVMIsALandingPadInst(at)))
      at = LLVMGetNextInstruction(at);
  }
  LLVMPositionBuilderBefore(b, at);
}

/* Whether `u` uses moved value `v` as a move: the value of a store, a
 * bitcast back to the float type, or one of the moved values itself. */
static int moves(Pun *p, LLVMValueRef u, LLVMValueRef v) {
  if (zy_map_has(&p->twin, u))
    return 1;
  if (LLVMIsAStoreInst(u))
    return LLVMGetOperand(u, 0) == v && !LLVMGetVolatile(u) &&
           LLVMGetOrdering(u) == LLVMAtomicOrderingNotAtomic;
  return LLVMIsABitCastInst(u) && LLVMTypeOf(u) == p->fp;
}

/* Rewrites the uses of the moved values and deletes them. */
static void rewrite_uses(Pun *p, LLVMBuilderRef b) {
  for (size_t k = 0; k < p->moved.len; k++) {
    LLVMValueRef v = p->moved.data[k], t = zy_map_get(&p->twin, v);
    LLVMValueRef bits = NULL;
    ZyVec users = {0};
    for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u))
      if (!zy_vec_contains(&users, LLVMGetUser(u)))
        zy_vec_push(&users, LLVMGetUser(u));
    for (size_t j = 0; j < users.len; j++) {
      LLVMValueRef u = users.data[j];
      if (zy_map_has(&p->twin, u))
        continue; /* deleted below */
      if (moves(p, u, v) && LLVMIsAStoreInst(u)) {
        LLVMPositionBuilderBefore(b, u);
        LLVMValueRef s = LLVMBuildStore(b, t, LLVMGetOperand(u, 1));
        LLVMSetAlignment(s, LLVMGetAlignment(u));
        LLVMInstructionEraseFromParent(u);
      } else if (moves(p, u, v)) {
        LLVMReplaceAllUsesWith(u, t);
        LLVMInstructionEraseFromParent(u);
      } else {
        if (!bits) {
          position_after(b, p->g->primal, t);
          bits = LLVMBuildBitCast(b, t, LLVMTypeOf(v), "zymase.bits");
        }
        for (int o = 0; o < LLVMGetNumOperands(u); o++)
          if (LLVMGetOperand(u, o) == v)
            LLVMSetOperand(u, o, bits);
      }
    }
    zy_vec_free(&users);
  }
  /* The moved values are used by each other only now. */
  for (size_t k = 0; k < p->moved.len; k++)
    LLVMReplaceAllUsesWith(p->moved.data[k],
                           LLVMGetPoison(LLVMTypeOf(p->moved.data[k])));
  for (size_t k = p->moved.len; k-- > 0;)
    LLVMInstructionEraseFromParent(p->moved.data[k]);
}

/* The float types the roots of the function carry. */
static void root_types(ZyGen *g, ZyVec *out) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      LLVMTypeRef t = root_type(g, i);
      if (t && !zy_vec_contains(out, t))
        zy_vec_push(out, t);
    }
}

int zy_punning_retype(ZyGen *g) {
  ZyVec types = {0};
  root_types(g, &types);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(g->zm->ctx);
  for (size_t k = 0; k < types.len; k++) {
    Pun p = {.g = g, .fp = types.data[k]};
    collect(&p);
    make_twins(&p, b);
    rewrite_uses(&p, b);
    zy_map_free(&p.twin);
    zy_vec_free(&p.moved);
  }
  LLVMDisposeBuilder(b);
  int changed = types.len > 0;
  zy_vec_free(&types);
  return changed;
}

/* --- Float bits passed to calls ------------------------------------------- */

/* The float whose bits argument `a` is (`bitcast <float> %x to iN`), or
 * NULL. */
static LLVMValueRef bits_of_float(LLVMValueRef a) {
  if (!LLVMIsABitCastInst(a) || !int_bits(a))
    return NULL;
  LLVMValueRef f = LLVMGetOperand(a, 0);
  return is_scalar_fp(LLVMTypeOf(f)) ? f : NULL;
}

/* Whether the gradient may follow bits into `callee` through a twin: a
 * function with a body that the program registered nothing for. */
static int twinnable(LLVMValueRef callee) {
  return callee && LLVMIsAFunction(callee) && !LLVMIsDeclaration(callee) &&
         !LLVMIsFunctionVarArg(LLVMGlobalGetValueType(callee)) &&
         !zy_registry_any_custom(callee) && !zy_registry_function_like(callee) &&
         !zy_activity_inactive_function(callee) &&
         !zy_registry_allocator(callee) && !zy_registry_deallocator(callee);
}

/* The twin of `callee` whose parameters in `mask` are floats of the types
 * of `args` (made once per mask), or NULL if the body cannot be inlined. */
static LLVMValueRef float_twin(LLVMValueRef callee, LLVMValueRef *args,
                               unsigned np, unsigned long long mask) {
  char name[512];
  snprintf(name, sizeof name, "%s.zymase.float.%llx", LLVMGetValueName(callee),
           mask);
  LLVMModuleRef m = LLVMGetGlobalParent(callee);
  LLVMValueRef t = LLVMGetNamedFunction(m, name);
  if (t)
    return t;
  LLVMTypeRef fty = LLVMGlobalGetValueType(callee);
  LLVMTypeRef *ts = calloc(np, sizeof *ts), *orig = calloc(np, sizeof *ts);
  LLVMValueRef *bits = calloc(np, sizeof *bits);
  LLVMGetParamTypes(fty, orig);
  for (unsigned k = 0; k < np; k++)
    ts[k] = mask >> k & 1 ? LLVMTypeOf(LLVMGetOperand(args[k], 0)) : orig[k];
  LLVMContextRef c = LLVMGetModuleContext(m);
  t = LLVMAddFunction(m, name,
                      LLVMFunctionType(LLVMGetReturnType(fty), ts, np, 0));
  LLVMSetLinkage(t, LLVMInternalLinkage);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, t, "entry"));
  for (unsigned k = 0; k < np; k++)
    bits[k] = ts[k] == orig[k]
                  ? LLVMGetParam(t, k)
                  : LLVMBuildBitCast(b, LLVMGetParam(t, k), orig[k], "");
  LLVMValueRef inner = LLVMBuildCall2(b, fty, callee, bits, np, "");
  if (LLVMGetTypeKind(LLVMGetReturnType(fty)) == LLVMVoidTypeKind)
    LLVMBuildRetVoid(b);
  else
    LLVMBuildRet(b, inner);
  LLVMDisposeBuilder(b);
  if (!zy_llvm_inline_call(inner)) {
    LLVMDeleteFunction(t);
    t = NULL;
  }
  free(ts);
  free(orig);
  free(bits);
  return t;
}

void zy_punning_float_params(LLVMValueRef p) {
  ZyVec calls = {0};
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(p); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMIsACallInst(i) && twinnable(LLVMGetCalledValue(i)) &&
          !zy_parallel()->omp_is_region(i))
        zy_vec_push(&calls, i);
  LLVMBuilderRef b =
      LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(p)));
  for (size_t k = 0; k < calls.len; k++) {
    LLVMValueRef call = calls.data[k], callee = LLVMGetCalledValue(call);
    unsigned np = LLVMCountParams(callee);
    unsigned long long mask = 0;
    LLVMValueRef *args = calloc(np ? np : 1, sizeof *args);
    for (unsigned j = 0; j < np && j < 64; j++) {
      args[j] = LLVMGetOperand(call, j);
      if (bits_of_float(args[j]))
        mask |= 1ULL << j;
    }
    LLVMValueRef t = mask && np == LLVMGetNumArgOperands(call)
                         ? float_twin(callee, args, np, mask)
                         : NULL;
    if (t) {
      for (unsigned j = 0; j < np; j++)
        if (mask >> j & 1)
          args[j] = LLVMGetOperand(args[j], 0);
      LLVMPositionBuilderBefore(b, call);
      LLVMValueRef nc =
          LLVMBuildCall2(b, LLVMGlobalGetValueType(t), t, args, np, "");
      LLVMReplaceAllUsesWith(call, nc);
      LLVMInstructionEraseFromParent(call);
    }
    free(args);
  }
  LLVMDisposeBuilder(b);
  zy_vec_free(&calls);
}

/* Whether integer `v` holds bits of a float with a derivative (through
 * conversions and bit operations). */
static int varied_bits(ZyGen *g, LLVMValueRef v, int depth) {
  if (depth > 8 || !LLVMIsAInstruction(v))
    return 0;
  LLVMValueRef f = bits_of_float(v);
  if (f)
    return zy_activity_varied(g->act, f);
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMZExt:
  case LLVMSExt:
  case LLVMTrunc:
  case LLVMOr:
  case LLVMAnd:
  case LLVMXor:
  case LLVMShl:
  case LLVMLShr:
    for (int k = 0; k < LLVMGetNumOperands(v); k++)
      if (varied_bits(g, LLVMGetOperand(v, k), depth + 1))
        return 1;
    return 0;
  default:
    return 0;
  }
}

/* A call receiving the bits of a float with a derivative as an integer,
 * where no twin follows them: a declaration, an indirect call, or a
 * function the bits reached after step 1.  Functions the program marked
 * inactive or gave a custom gradient, and intrinsics, are left alone. */
static void warn_bits_to_call(ZyGen *g, LLVMValueRef call) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  int direct = callee && LLVMIsAFunction(callee);
  if (direct &&
      (zy_activity_inactive_function(callee) || zy_registry_any_custom(callee) ||
       zy_registry_function_like(callee) ||
       !strncmp(LLVMGetValueName(callee), "llvm.", 5)))
    return;
  if (zy_parallel()->omp_is_region(call))
    return; /* zy_omp_check refuses these */
  for (unsigned k = 0; k < LLVMGetNumArgOperands(call); k++)
    if (varied_bits(g, LLVMGetOperand(call, k), 0)) {
      char to[300];
      snprintf(to, sizeof to, direct ? "'%s'" : "%s",
               direct ? LLVMGetValueName(callee) : "an indirect call");
      zy_warning(ZY_ERR_UNSUPPORTED, g->user, call,
                 "pass the value as a floating-point argument, or call a "
                 "function with a body in this translation unit",
                 "the bits of a floating-point value with a derivative are "
                 "passed as an integer to %s (argument %u): no derivative "
                 "flows through them",
                 to, k + 1);
      return;
    }
}

/* Whether integer `v` is computed from the bits of a floating-point value
 * (a bitcast of one), through integer operations. */
static int from_float_bits(LLVMValueRef v, int depth) {
  if (depth > 16 || !LLVMIsAInstruction(v) || !int_bits(v))
    return 0;
  if (LLVMIsABitCastInst(v))
    return is_scalar_fp(LLVMTypeOf(LLVMGetOperand(v, 0)));
  if (LLVMIsALoadInst(v) || LLVMIsACallInst(v))
    return 0;
  for (int k = 0; k < LLVMGetNumOperands(v); k++)
    if (from_float_bits(LLVMGetOperand(v, k), depth + 1))
      return 1;
  return 0;
}

int zy_punning_warn(ZyGen *g) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMIsABitCastInst(i) && is_scalar_fp(LLVMTypeOf(i)) &&
          from_float_bits(LLVMGetOperand(i, 0), 0) &&
          zy_activity_useful(g->act, i))
        zy_warning(ZY_ERR_UNSUPPORTED, g->user, i,
                   "register a custom gradient for the function "
                   "(__enzyme_register_gradient) to give it one",
                   "the bits of a floating-point value are changed by "
                   "integer operations and read back as a float: no "
                   "derivative flows through them (the result is a "
                   "constant)");
      else if (LLVMIsACallInst(i))
        warn_bits_to_call(g, i);
  return 0;
}
