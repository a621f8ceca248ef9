/* gpu_shuffle.c - warp shuffles (`__shfl_sync`, `_up`, `_down`, `_xor`:
 * llvm.nvvm.shfl.sync.{idx,up,down,bfly}) in differentiated device code.
 * Each lane l reads x from lane j(l); the adjoint is the transposed
 * exchange: lane l adds dy(l) to dx(j(l)).  A double is shuffled as two
 * i32 halves; that pattern is fused into one call before activity runs.
 * HIP (amdgcn): the __shfl* float/double overloads, and ds.bpermute of a
 * float's or double's bits: the adjoint from candidate readers, else all 64.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "parallel.h"

#include "ad/ad.h"

#include <stdio.h>
#include <string.h>

/* M_AMD: a HIP float or double __shfl* wrapper (amd_wrapper); M_PERM:
 * zymase.bpermute.f32/.f64, ds.bpermute of a float's bits, fused. */
enum { M_IDX, M_UP, M_DOWN, M_BFLY, M_AMD, M_PERM };
#define BPERM "llvm.amdgcn.ds.bpermute"
static const char *const modes[] = {"idx", "up", "down", "bfly"};

/* The mode + 1 of `prefix<mode><suffix>`, 0 if `n` is not of that form. */
static int mode_of(const char *n, const char *prefix, const char *suffix) {
  size_t p = strlen(prefix);
  if (strncmp(n, prefix, p))
    return 0;
  for (int m = 0; m < 4; m++) {
    size_t l = strlen(modes[m]);
    if (!strncmp(n + p, modes[m], l) && !strcmp(n + p + l, suffix))
      return m + 1;
  }
  return 0;
}

/* Whether `f` is one of HIP's float or double __shfl* wrappers (amdgcn,
 * with a body: a float's bits through llvm.amdgcn.ds.bpermute), kept as
 * a call and differentiated as a whole. */
static int amd_wrapper(LLVMValueRef f) {
  static const char *const names[] = {"_Z6__shfl", "_Z9__shfl_up",
                                      "_Z11__shfl_down", "_Z10__shfl_xor"};
  if (!f || !LLVMIsAFunction(f) || LLVMIsDeclaration(f) ||
      strncmp(LLVMGetTarget(LLVMGetGlobalParent(f)), "amdgcn", 6) ||
      LLVMCountParams(f) < 2)
    return 0;
  const char *n = LLVMGetValueName(f);
  int named = 0; /* the header's overloads: _Z11__shfl_downfji, ... */
  for (int k = 0; k < 4; k++)
    named |= !strncmp(n, names[k], strlen(names[k])) &&
             (n[strlen(names[k])] == 'f' || n[strlen(names[k])] == 'd');
  if (!named)
    return 0;
  LLVMTypeRef r = LLVMGetReturnType(LLVMGlobalGetValueType(f));
  LLVMTypeKind k = LLVMGetTypeKind(r);
  if (k != LLVMFloatTypeKind && k != LLVMDoubleTypeKind)
    return 0;
  if (LLVMTypeOf(LLVMGetParam(f, 0)) != r)
    return 0;
  for (unsigned a = 1; a < LLVMCountParams(f); a++)
    if (LLVMGetTypeKind(LLVMTypeOf(LLVMGetParam(f, a))) != LLVMIntegerTypeKind)
      return 0;
  return 1;
}

int zy_gpu_shuffle_mode(LLVMValueRef f) {
  if (!f || !LLVMIsAFunction(f))
    return 0;
  if (amd_wrapper(f))
    return M_AMD + 1;
  const char *n = LLVMGetValueName(f);
  if (!strcmp(n, "zymase.bpermute.f32") || !strcmp(n, "zymase.bpermute.f64"))
    return M_PERM + 1;
  int m = mode_of(n, "llvm.nvvm.shfl.sync.", ".f32");
  return m ? m : mode_of(n, "zymase.shfl.sync.", ".f64");
}

int zy_gpu_shuffle_wrapper(LLVMValueRef call) {
  LLVMValueRef f = LLVMGetCalledValue(call);
  return f && LLVMIsAFunction(f) && !LLVMIsDeclaration(f) &&
         strstr(LLVMGetValueName(f), "__shfl") && !amd_wrapper(f);
}

/* --- Doubles: two i32 shuffles of the halves fused into one call --------- */

static LLVMValueRef operand_of(LLVMValueRef v, LLVMOpcode op) {
  return v && LLVMIsAInstruction(v) && LLVMGetInstructionOpcode(v) == op
             ? LLVMGetOperand(v, 0)
             : NULL;
}

static int const_is(LLVMValueRef v, unsigned long long k) {
  return v && LLVMIsAConstantInt(v) && LLVMConstIntGetZExtValue(v) == k;
}

/* `v` = shl(w, 32): w. */
static LLVMValueRef shl32(LLVMValueRef v) {
  LLVMValueRef w = operand_of(v, LLVMShl);
  return w && const_is(LLVMGetOperand(v, 1), 32) ? w : NULL;
}

/* `v` = zext(llvm.nvvm.shfl.sync.<m>.i32(...)): the call and its mode. */
static LLVMValueRef half_shuffle(LLVMValueRef v, int *mode) {
  LLVMValueRef c = operand_of(v, LLVMZExt);
  if (!c) /* HIP's headers sign-extend the high half */
    c = operand_of(v, LLVMSExt);
  if (!c || !LLVMIsACallInst(c))
    return NULL;
  LLVMValueRef f = LLVMGetCalledValue(c);
  if (!f || !LLVMIsAFunction(f))
    return NULL;
  if (!strcmp(LLVMGetValueName(f), BPERM))
    return *mode = M_PERM + 1, c;
  *mode = mode_of(LLVMGetValueName(f), "llvm.nvvm.shfl.sync.", ".i32");
  return *mode ? c : NULL;
}

/* The double shuffle of `mode` (i32 halves), made once per module. */
static LLVMValueRef f64_shuffle(LLVMModuleRef m, int mode, LLVMValueRef i32f) {
  char name[64];
  int perm = mode == M_PERM + 1; /* (addr, v) instead of (mask, v, b, c) */
  if (perm)
    snprintf(name, sizeof name, "zymase.bpermute.f64");
  else
    snprintf(name, sizeof name, "zymase.shfl.sync.%s.f64", modes[mode - 1]);
  LLVMValueRef f = LLVMGetNamedFunction(m, name);
  if (f)
    return f;
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c), i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef dbl = LLVMDoubleTypeInContext(c);
  LLVMTypeRef ft = LLVMFunctionType(dbl, (LLVMTypeRef[]){i32, dbl, i32, i32},
                                    perm ? 2 : 4, 0);
  f = LLVMAddFunction(m, name, ft);
  LLVMSetLinkage(f, LLVMInternalLinkage);
  const char *attrs[] = {"convergent", "nounwind"};
  for (int k = 0; k < 2; k++)
    LLVMAddAttributeAtIndex(
        f, LLVMAttributeFunctionIndex,
        LLVMCreateEnumAttribute(
            c, LLVMGetEnumAttributeKindForName(attrs[k], strlen(attrs[k])), 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, f, "entry"));
  LLVMValueRef bits = LLVMBuildBitCast(b, LLVMGetParam(f, 1), i64, "");
  LLVMValueRef half[2] = {
      LLVMBuildTrunc(b, bits, i32, ""),
      LLVMBuildTrunc(b, LLVMBuildLShr(b, bits, LLVMConstInt(i64, 32, 0), ""),
                     i32, "")};
  for (int k = 0; k < 2; k++) {
    LLVMValueRef args[4] = {LLVMGetParam(f, 0), half[k], LLVMGetParam(f, 2),
                            LLVMGetParam(f, 3)};
    half[k] = LLVMBuildZExt(b,
                            LLVMBuildCall2(b, LLVMGlobalGetValueType(i32f),
                                           i32f, args, perm ? 2 : 4, ""),
                            i64, "");
  }
  LLVMValueRef hi = LLVMBuildShl(b, half[1], LLVMConstInt(i64, 32, 0), "");
  LLVMBuildRet(b,
               LLVMBuildBitCast(b, LLVMBuildOr(b, half[0], hi, ""), dbl, ""));
  LLVMDisposeBuilder(b);
  return f;
}

static void erase_if_dead(LLVMValueRef v) {
  if (v && LLVMIsAInstruction(v) && !LLVMGetFirstUse(v))
    LLVMInstructionEraseFromParent(v);
}

/* When `x` is a load of i64 used only by `a` and `b` (the halves: the
 * optimizer made a double's load one of its bits), the same memory loaded
 * as a double; else NULL. */
static LLVMValueRef loaded_double(LLVMValueRef x, LLVMValueRef a,
                                  LLVMValueRef b) {
  if (!LLVMIsALoadInst(x) || LLVMGetVolatile(x))
    return NULL;
  for (LLVMUseRef u = LLVMGetFirstUse(x); u; u = LLVMGetNextUse(u))
    if (LLVMGetUser(u) != a && LLVMGetUser(u) != b)
      return NULL;
  LLVMBuilderRef bd =
      LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(x)));
  LLVMPositionBuilderBefore(bd, x);
  LLVMValueRef d = LLVMBuildLoad2(
      bd, LLVMDoubleTypeInContext(LLVMGetTypeContext(LLVMTypeOf(x))),
      LLVMGetOperand(x, 0), "");
  LLVMSetAlignment(d, LLVMGetAlignment(x));
  LLVMDisposeBuilder(bd);
  return d;
}

/* The first of instructions `a` and `b` of one block; NULL when their
 * blocks differ. */
static LLVMValueRef first_of(LLVMValueRef a, LLVMValueRef b) {
  if (LLVMGetInstructionParent(a) != LLVMGetInstructionParent(b))
    return NULL;
  for (LLVMValueRef i = a; i; i = LLVMGetNextInstruction(i))
    if (i == b)
      return a;
  return b;
}

/* `or_` = or(zext(S(m, trunc X, b, c)), shl(zext(S(m, trunc(X >> 32), b,
 * c)), 32)) with S one shuffle of i32: made a call of the double shuffle
 * on X's bits, where the first half shuffle was (the optimizer may have
 * sunk the `or` into a branch that only some lanes take; the shuffle must
 * stay where every lane of its mask meets).  Returns 1 if it did. */
static int fuse_one(LLVMValueRef or_) {
  LLVMValueRef a = LLVMGetOperand(or_, 0), o = LLVMGetOperand(or_, 1);
  LLVMValueRef hiz = shl32(a), loz = o;
  if (!hiz) {
    hiz = shl32(o);
    loz = a;
  }
  int mlo = 0, mhi = 0;
  LLVMValueRef lo = half_shuffle(loz, &mlo),
               hi = hiz ? half_shuffle(hiz, &mhi) : NULL;
  if (!lo || !hi || lo == hi ||
      LLVMGetCalledValue(lo) != LLVMGetCalledValue(hi))
    return 0;
  unsigned nargs = mlo == M_PERM + 1 ? 2 : 4;
  for (unsigned k = 0; k < nargs; k += k == 0 ? 2 : 1)
    if (LLVMGetOperand(lo, k) != LLVMGetOperand(hi, k))
      return 0;
  LLVMValueRef x = operand_of(LLVMGetOperand(lo, 1), LLVMTrunc);
  LLVMValueRef sh = operand_of(LLVMGetOperand(hi, 1), LLVMTrunc);
  LLVMValueRef xh = operand_of(sh, LLVMLShr);
  LLVMValueRef at = first_of(lo, hi);
  if (!x || x != xh || !const_is(LLVMGetOperand(sh, 1), 32) ||
      LLVMGetTypeKind(LLVMTypeOf(x)) != LLVMIntegerTypeKind ||
      LLVMGetIntTypeWidth(LLVMTypeOf(x)) != 64 || !at)
    return 0;
  LLVMModuleRef m = LLVMGetGlobalParent(
      LLVMGetBasicBlockParent(LLVMGetInstructionParent(or_)));
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMValueRef f = f64_shuffle(m, mlo, LLVMGetCalledValue(lo));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderBefore(b, at);
  LLVMValueRef dx = operand_of(x, LLVMBitCast);
  if (!dx || LLVMGetTypeKind(LLVMTypeOf(dx)) != LLVMDoubleTypeKind)
    dx = loaded_double(x, LLVMGetOperand(lo, 1), sh);
  if (!dx)
    dx = LLVMBuildBitCast(b, x, LLVMDoubleTypeInContext(c), "");
  LLVMValueRef args[4] = {LLVMGetOperand(lo, 0), dx,
                          nargs > 2 ? LLVMGetOperand(lo, 2) : NULL,
                          nargs > 2 ? LLVMGetOperand(lo, 3) : NULL};
  LLVMValueRef r =
      LLVMBuildCall2(b, LLVMGlobalGetValueType(f), f, args, nargs, "shfl.f64");
  LLVMReplaceAllUsesWith(or_, LLVMBuildBitCast(b, r, LLVMTypeOf(or_), ""));
  LLVMDisposeBuilder(b);
  LLVMInstructionEraseFromParent(or_);
  LLVMValueRef dead[] = {
      hiz == shl32(a) ? a : o, loz, hiz, hi, lo, LLVMGetOperand(lo, 1),
      LLVMGetOperand(hi, 1),   sh};
  for (int k = 0; k < 8; k++)
    erase_if_dead(dead[k]);
  if (LLVMIsALoadInst(x))
    erase_if_dead(x);
  return 1;
}

/* amdgcn: `call` = ds.bpermute(addr, bitcast float x to i32) made a call
 * of zymase.bpermute.f32(addr, x); returns 1 if it did. */
static int fuse_float(LLVMValueRef call) {
  LLVMValueRef f = LLVMGetCalledValue(call);
  if (!f || !LLVMIsAFunction(f) || strcmp(LLVMGetValueName(f), BPERM))
    return 0;
  LLVMValueRef x = operand_of(LLVMGetOperand(call, 1), LLVMBitCast);
  if (!x || LLVMGetTypeKind(LLVMTypeOf(x)) != LLVMFloatTypeKind)
    return 0;
  LLVMModuleRef m = LLVMGetGlobalParent(f);
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c), flt = LLVMTypeOf(x);
  LLVMValueRef pf = LLVMGetNamedFunction(m, "zymase.bpermute.f32");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  if (!pf) {
    pf =
        LLVMAddFunction(m, "zymase.bpermute.f32",
                        LLVMFunctionType(flt, (LLVMTypeRef[]){i32, flt}, 2, 0));
    LLVMSetLinkage(pf, LLVMInternalLinkage);
    LLVMAddAttributeAtIndex(
        pf, LLVMAttributeFunctionIndex,
        LLVMCreateEnumAttribute(
            c, LLVMGetEnumAttributeKindForName("convergent", 10), 0));
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, pf, "entry"));
    LLVMValueRef a[2] = {LLVMGetParam(pf, 0),
                         LLVMBuildBitCast(b, LLVMGetParam(pf, 1), i32, "")};
    LLVMBuildRet(
        b, LLVMBuildBitCast(
               b, LLVMBuildCall2(b, LLVMGlobalGetValueType(f), f, a, 2, ""),
               flt, ""));
  }
  LLVMPositionBuilderBefore(b, call);
  LLVMValueRef r = LLVMBuildCall2(b, LLVMGlobalGetValueType(pf), pf,
                                  (LLVMValueRef[]){LLVMGetOperand(call, 0), x},
                                  2, "shfl.f32");
  LLVMValueRef bits = LLVMBuildBitCast(b, r, i32, "");
  LLVMDisposeBuilder(b);
  LLVMValueRef v = LLVMGetOperand(call, 1);
  for (LLVMUseRef u = LLVMGetFirstUse(call); u;) {
    LLVMValueRef user = LLVMGetUser(u);
    u = LLVMGetNextUse(u);
    if (LLVMIsABitCastInst(user) && LLVMTypeOf(user) == flt) {
      LLVMReplaceAllUsesWith(user, r);
      LLVMInstructionEraseFromParent(user);
    }
  }
  LLVMReplaceAllUsesWith(call, bits);
  LLVMInstructionEraseFromParent(call);
  erase_if_dead(bits);
  erase_if_dead(v);
  return 1;
}

/* The lanes that took part in nvptx shuffle `call`: a lane of its mask
 * may have returned, or not exist (a partial warp), and the reverse
 * exchange must not name it.  The ballot of the same mask that
 * zy_gpu_shuffle_fuse puts right after the shuffle; NULL if none. */
static LLVMValueRef participants(LLVMValueRef call) {
  LLVMValueRef n = LLVMGetNextInstruction(call);
  LLVMValueRef f = n && LLVMIsACallInst(n) ? LLVMGetCalledValue(n) : NULL;
  return f && LLVMIsAFunction(f) &&
                 !strcmp(LLVMGetValueName(f), "llvm.nvvm.vote.ballot.sync") &&
                 LLVMGetOperand(n, 0) == LLVMGetOperand(call, 0)
             ? n
             : NULL;
}

/* After each nvptx float or double shuffle: the ballot of its mask, which
 * the reverse exchange uses as its mask (participants). */
static int add_participants(LLVMValueRef call) {
  int mode = zy_gpu_shuffle_mode(LLVMGetCalledValue(call)) - 1;
  if (mode < 0 || mode > M_BFLY || participants(call))
    return 0;
  LLVMModuleRef m = LLVMGetGlobalParent(LLVMGetCalledValue(call));
  LLVMContextRef c = LLVMGetModuleContext(m);
  const char *name = "llvm.nvvm.vote.ballot.sync";
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMValueRef f = LLVMGetIntrinsicDeclaration(m, id, NULL, 0);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(call));
  LLVMValueRef args[2] = {LLVMGetOperand(call, 0),
                          LLVMConstInt(LLVMInt1TypeInContext(c), 1, 0)};
  LLVMBuildCall2(b, LLVMGlobalGetValueType(f), f, args, 2, "shfl.lanes");
  LLVMDisposeBuilder(b);
  return 1;
}

int zy_gpu_shuffle_fuse(LLVMValueRef fn) {
  const char *t = LLVMGetTarget(LLVMGetGlobalParent(fn));
  int amd = !strncmp(t, "amdgcn", 6);
  if (strncmp(t, "nvptx", 5) && !amd)
    return 0;
  int n = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef i = LLVMGetFirstInstruction(bb);
    while (i) {
      LLVMValueRef next = LLVMGetNextInstruction(i);
      if (LLVMGetInstructionOpcode(i) == LLVMOr &&
          LLVMTypeOf(i) ==
              LLVMInt64TypeInContext(LLVMGetTypeContext(LLVMTypeOf(i))) &&
          fuse_one(i)) {
        n++;
        next = LLVMGetFirstInstruction(bb); /* erased neighbours */
      } else if (amd && LLVMIsACallInst(i) && fuse_float(i)) {
        n++;
        next = LLVMGetFirstInstruction(bb);
      }
      i = next;
    }
  }
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && !amd;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMIsACallInst(i))
        add_participants(i);
  return n;
}

/* --- The adjoint: the transposed exchange -------------------------------- */

typedef struct Rev {
  ZyGen *g;
  LLVMBuilderRef b;
  LLVMTypeRef i32;
  LLVMValueRef mask, lane, tag, send; /* `send`: dy where the read was made */
} Rev;

static LLVMValueRef k32(Rev *r, long long v) {
  return LLVMConstInt(r->i32, (unsigned long long)v, 1);
}

static LLVMValueRef intrinsic_call(Rev *r, const char *name, LLVMValueRef *args,
                                   unsigned n) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMValueRef f = LLVMGetIntrinsicDeclaration(r->g->zm->mod, id, NULL, 0);
  return LLVMBuildCall2(r->b, LLVMGlobalGetValueType(f), f, args, n, "");
}

/* Lane `src`'s `v` (i32 or float) among the lanes of the mask. */
static LLVMValueRef read_lane(Rev *r, LLVMValueRef v, LLVMValueRef src) {
  int f32 = LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMFloatTypeKind;
  LLVMValueRef args[4] = {r->mask, v, src, k32(r, 0x1f)};
  return intrinsic_call(
      r, f32 ? "llvm.nvvm.shfl.sync.idx.f32" : "llvm.nvvm.shfl.sync.idx.i32",
      args, 4);
}

/* A float or a double (as two i32 halves) of lane `src`. */
static LLVMValueRef read_value(Rev *r, LLVMValueRef v, LLVMValueRef src) {
  LLVMTypeRef t = LLVMTypeOf(v);
  if (LLVMGetTypeKind(t) == LLVMFloatTypeKind)
    return read_lane(r, v, src);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(r->g->zm->ctx);
  LLVMValueRef bits = LLVMBuildBitCast(r->b, v, i64, "");
  LLVMValueRef half[2] = {
      LLVMBuildTrunc(r->b, bits, r->i32, ""),
      LLVMBuildTrunc(r->b,
                     LLVMBuildLShr(r->b, bits, LLVMConstInt(i64, 32, 0), ""),
                     r->i32, "")};
  for (int k = 0; k < 2; k++)
    half[k] = LLVMBuildZExt(r->b, read_lane(r, half[k], src), i64, "");
  LLVMValueRef hi = LLVMBuildShl(r->b, half[1], LLVMConstInt(i64, 32, 0), "");
  return LLVMBuildBitCast(r->b, LLVMBuildOr(r->b, half[0], hi, ""), t, "");
}

/* Whether lane number `j` (any i32) is a lane of the mask. */
static LLVMValueRef in_mask(Rev *r, LLVMValueRef j) {
  LLVMBuilderRef b = r->b;
  LLVMValueRef range = LLVMBuildICmp(b, LLVMIntULT, j, k32(r, 32), "");
  LLVMValueRef bit = LLVMBuildAnd(
      b, LLVMBuildLShr(b, r->mask, LLVMBuildAnd(b, j, k32(r, 31), ""), ""),
      k32(r, 1), "");
  return LLVMBuildAnd(b, range, LLVMBuildICmp(b, LLVMIntNE, bit, k32(r, 0), ""),
                      "");
}

/* What lane `k` sent, if it read this lane in the forward: lanes send
 * their tag (their number << 8 | the lane they read, 0xff if none) with
 * their adjoint; a lane outside the mask is not read. */
static LLVMValueRef receive(Rev *r, LLVMValueRef k) {
  LLVMBuilderRef b = r->b;
  LLVMValueRef ok = in_mask(r, k);
  LLVMValueRef src = LLVMBuildSelect(b, ok, k, r->lane, "");
  LLVMValueRef tag = read_lane(r, r->tag, src);
  LLVMValueRef v = read_value(r, r->send, src);
  LLVMValueRef want =
      LLVMBuildOr(b, LLVMBuildShl(b, src, k32(r, 8), ""), r->lane, "");
  ok = LLVMBuildAnd(b, ok, LLVMBuildICmp(b, LLVMIntEQ, tag, want, ""), "");
  return LLVMBuildSelect(b, ok, v, LLVMConstNull(LLVMTypeOf(v)), "");
}

/* The lane this lane read in the forward (PTX shfl.sync: `c` packs the
 * segment mask in bits 8-12 and the clamp lane in bits 0-4) and whether
 * the read took place (else the lane kept its own value). */
static LLVMValueRef source_lane(Rev *r, int mode, LLVMValueRef bv,
                                LLVMValueRef c, LLVMValueRef *read) {
  LLVMBuilderRef b = r->b;
  LLVMValueRef seg =
      LLVMBuildAnd(b, LLVMBuildLShr(b, c, k32(r, 8), ""), k32(r, 0x1f), "");
  LLVMValueRef notseg = LLVMBuildXor(b, seg, k32(r, -1), "");
  LLVMValueRef minl = LLVMBuildAnd(b, r->lane, seg, "");
  LLVMValueRef maxl = LLVMBuildOr(
      b, minl,
      LLVMBuildAnd(b, LLVMBuildAnd(b, c, k32(r, 0x1f), ""), notseg, ""), "");
  LLVMValueRef j;
  switch (mode) {
  case M_UP:
    j = LLVMBuildSub(b, r->lane, bv, "");
    *read = LLVMBuildICmp(b, LLVMIntSGE, j, maxl, "");
    break;
  case M_DOWN:
    j = LLVMBuildAdd(b, r->lane, bv, "");
    *read = LLVMBuildICmp(b, LLVMIntSLE, j, maxl, "");
    break;
  case M_BFLY:
    j = LLVMBuildXor(b, r->lane, bv, "");
    *read = LLVMBuildICmp(b, LLVMIntSLE, j, maxl, "");
    break;
  default:
    j = LLVMBuildOr(
        b, minl,
        LLVMBuildAnd(b, LLVMBuildAnd(b, bv, k32(r, 0x1f), ""), notseg, ""), "");
    *read = LLVMBuildICmp(b, LLVMIntSLE, j, maxl, "");
    break;
  }
  *read = LLVMBuildAnd(b, *read, in_mask(r, j), "");
  /* A lane of the mask that does not exist (a block's partial warp) is
   * not read either: ask it for its number. */
  LLVMValueRef src = LLVMBuildSelect(b, *read, j, r->lane, "");
  LLVMValueRef there =
      LLVMBuildICmp(b, LLVMIntEQ, read_lane(r, r->lane, src), j, "");
  *read = LLVMBuildAnd(b, *read, there, "");
  return j;
}

/* Adds to `acc` what every lane of the mask sent to this one. */
static LLVMValueRef ask_all(Rev *r, LLVMValueRef acc) {
  for (int k = 0; k < 32; k++)
    acc = LLVMBuildFAdd(r->b, acc, receive(r, k32(r, k)), "");
  return acc;
}

/* When `any` lane's adjoint was not taken by the fast exchange: a branch
 * to a slow path (every lane asks all lanes).  Returns the slow block,
 * with the builder in it; *from is the fast path's block, *join where
 * both meet (a reversed block, for the GPU accumulation's joins). */
static LLVMBasicBlockRef slow_path(ZyGen *g, LLVMBuilderRef b, LLVMValueRef any,
                                   LLVMBasicBlockRef *from,
                                   LLVMBasicBlockRef *join) {
  LLVMBasicBlockRef pbb = zy_gpu_reversed_block(g);
  *from = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef slow =
      LLVMAppendBasicBlockInContext(g->zm->ctx, g->grad, "zymase.shfl.all");
  *join =
      LLVMAppendBasicBlockInContext(g->zm->ctx, g->grad, "zymase.shfl.join");
  if (pbb)
    zy_map_put(&g->gpu_join, *join, pbb);
  LLVMBuildCondBr(b, any, slow, *join);
  LLVMPositionBuilderAtEnd(b, slow);
  return slow;
}

/* Ends the slow path: the fast and slow values meet in `join`. */
static LLVMValueRef join_paths(LLVMBuilderRef b, LLVMBasicBlockRef join,
                               LLVMValueRef fast, LLVMBasicBlockRef from,
                               LLVMValueRef all, LLVMBasicBlockRef slow) {
  LLVMBuildBr(b, join);
  LLVMPositionBuilderAtEnd(b, join);
  LLVMValueRef phi = LLVMBuildPhi(b, LLVMTypeOf(fast), "");
  LLVMAddIncoming(phi, (LLVMValueRef[]){fast, all},
                  (LLVMBasicBlockRef[]){from, slow}, 2);
  return phi;
}

/* up, down, xor: adds to `acc` what the one lane k that may have read
 * this one (j(k) = this lane, when k used this lane's offset) sent.  When
 * some lane's offset differs from its source's (the offset varies across
 * the warp), every lane asks all 32 instead. */
static LLVMValueRef ask_one(Rev *r, int mode, LLVMValueRef bv, LLVMValueRef j,
                            LLVMValueRef read, LLVMValueRef acc) {
  ZyGen *g = r->g;
  LLVMBuilderRef b = r->b;
  LLVMValueRef k = mode == M_BFLY   ? LLVMBuildXor(b, r->lane, bv, "")
                   : mode == M_DOWN ? LLVMBuildSub(b, r->lane, bv, "")
                                    : LLVMBuildAdd(b, r->lane, bv, "");
  LLVMValueRef fast = LLVMBuildFAdd(b, acc, receive(r, k), "");
  /* Whether the lane this one read asks this one. */
  LLVMValueRef src = LLVMBuildSelect(b, read, j, r->lane, "");
  LLVMValueRef lost = LLVMBuildAnd(
      b, read, LLVMBuildICmp(b, LLVMIntNE, read_lane(r, k, src), r->lane, ""),
      "");
  LLVMValueRef any = intrinsic_call(r, "llvm.nvvm.vote.any.sync",
                                    (LLVMValueRef[]){r->mask, lost}, 2);
  LLVMBasicBlockRef from, join, slow = slow_path(g, b, any, &from, &join);
  LLVMValueRef all = ask_all(r, acc);
  return join_paths(b, join, fast, from, all, slow);
}

/* HIP: lane `k`'s i32 `v` (llvm.amdgcn.ds.bpermute; k any i32). */
static LLVMValueRef amd_read(Rev *r, LLVMValueRef v, LLVMValueRef k) {
  LLVMValueRef a = LLVMBuildShl(r->b, k, k32(r, 2), "");
  return intrinsic_call(r, "llvm.amdgcn.ds.bpermute", (LLVMValueRef[]){a, v},
                        2);
}

/* What lane `k` sent if it read this lane: its adjoint (`half`: its bits,
 * one or two i32) when its tag (`src`: the lane it read + 1) is `me`
 * (this lane + 1); else 0.  `*ok`: whether it did. */
static LLVMValueRef amd_take(Rev *r, LLVMValueRef src, LLVMValueRef me,
                             LLVMValueRef *half, LLVMTypeRef t, LLVMValueRef k,
                             LLVMValueRef *ok) {
  LLVMBuilderRef b = r->b;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(r->g->zm->ctx);
  *ok = LLVMBuildICmp(b, LLVMIntEQ, amd_read(r, src, k), me, "");
  LLVMValueRef v = amd_read(r, half[0], k);
  if (half[1]) {
    LLVMValueRef hi = LLVMBuildZExt(b, amd_read(r, half[1], k), i64, "");
    v = LLVMBuildOr(b, LLVMBuildZExt(b, v, i64, ""),
                    LLVMBuildShl(b, hi, LLVMConstInt(i64, 32, 0), ""), "");
  }
  return LLVMBuildSelect(b, *ok, LLVMBuildBitCast(b, v, t, ""),
                         LLVMConstNull(t), "");
}

/* The adjoint from the lanes that read this one, when each lane is read
 * by lanes among four candidates: the lane it read (xor), the mirror of
 * it (a shift), and this lane minus the offsets of lanes 0 and 63 (a
 * shift whose edge lanes read themselves).  `*lost`: some lane's read
 * was claimed by no candidate test of its source (then ask all 64). */
static LLVMValueRef amd_fast(Rev *r, LLVMValueRef src, LLVMValueRef me,
                             LLVMValueRef *half, LLVMTypeRef t,
                             LLVMValueRef *lost) {
  LLVMBuilderRef b = r->b;
  LLVMValueRef lane = LLVMBuildSub(b, me, k32(r, 1), "");
  LLVMValueRef j = LLVMBuildSub(b, src, k32(r, 1), "");
  LLVMValueRef d0 = LLVMBuildSub(b, amd_read(r, src, k32(r, 0)), k32(r, 1), "");
  LLVMValueRef d63 = LLVMBuildSub(b, amd_read(r, src, k32(r, 63)), k32(r, 64),
                                  ""); /* j(63) - 63 */
  LLVMValueRef c[4] = {
      j, LLVMBuildSub(b, LLVMBuildShl(b, lane, k32(r, 1), ""), j, ""),
      LLVMBuildSub(b, lane, d0, ""), LLVMBuildSub(b, lane, d63, "")};
  LLVMValueRef acc = LLVMConstNull(t), id[4];
  for (int i = 0; i < 4; i++) {
    c[i] = LLVMBuildAnd(b, c[i], k32(r, 63), "");
    LLVMValueRef dup = LLVMConstInt(LLVMInt1TypeInContext(r->g->zm->ctx), 0, 0);
    for (int m = 0; m < i; m++)
      dup =
          LLVMBuildOr(b, dup, LLVMBuildICmp(b, LLVMIntEQ, c[i], c[m], ""), "");
    LLVMValueRef ok, v = amd_take(r, src, me, half, t, c[i], &ok);
    ok = LLVMBuildAnd(b, ok, LLVMBuildNot(b, dup, ""), "");
    acc = LLVMBuildFAdd(b, acc, LLVMBuildSelect(b, ok, v, LLVMConstNull(t), ""),
                        "");
    id[i] = LLVMBuildSelect(b, ok, LLVMBuildAdd(b, c[i], k32(r, 1), ""),
                            k32(r, 0), "");
  }
  /* Whether the lane this one read took this one's adjoint. */
  LLVMValueRef claimed = LLVMBuildICmp(b, LLVMIntEQ, src, k32(r, 0), "");
  for (int i = 0; i < 4; i++)
    claimed = LLVMBuildOr(
        b, claimed, LLVMBuildICmp(b, LLVMIntEQ, amd_read(r, id[i], j), me, ""),
        "");
  *lost = LLVMBuildNot(b, claimed, "");
  return acc;
}

/* HIP's float or double shuffle `call` (a wrapper, value operand 0; or
 * zymase.bpermute.*, `perm`, value operand 1): each lane learns the lane
 * it read + 1 by shuffling its own number + 1 through the same wrapper
 * (its index arithmetic is the header's; a lane that is not there reads
 * 0), or from the address; then adds the adjoints of the lanes that read
 * it: asking four candidates (amd_fast), or, when some read was missed,
 * all 64 lanes. */
static int amd_reverse_shuffle(ZyGen *g, LLVMValueRef call, LLVMValueRef d,
                               int perm) {
  LLVMValueRef x = LLVMGetOperand(call, perm ? 1 : 0);
  if (!d || !zy_activity_active(g->act, x))
    return 0;
  Rev r = {.g = g, .b = g->b, .i32 = LLVMInt32TypeInContext(g->zm->ctx)};
  LLVMBuilderRef b = g->b;
  LLVMTypeRef t = LLVMTypeOf(d), i64 = LLVMInt64TypeInContext(g->zm->ctx);
  int dbl = LLVMGetTypeKind(t) == LLVMDoubleTypeKind;
  LLVMTypeRef it = dbl ? i64 : r.i32;
  LLVMValueRef lo = intrinsic_call(
      &r, "llvm.amdgcn.mbcnt.lo", (LLVMValueRef[]){k32(&r, -1), k32(&r, 0)}, 2);
  LLVMValueRef lane = intrinsic_call(&r, "llvm.amdgcn.mbcnt.hi",
                                     (LLVMValueRef[]){k32(&r, -1), lo}, 2);
  LLVMValueRef me = LLVMBuildAdd(b, lane, k32(&r, 1), "");
  unsigned n = LLVMGetNumArgOperands(call);
  LLVMValueRef args[8], src;
  if (perm) { /* ds.bpermute: lane (addr / 4) mod 64 */
    LLVMValueRef a = zy_lookup(g, LLVMGetOperand(call, 0));
    src = LLVMBuildAnd(b, LLVMBuildLShr(b, a, k32(&r, 2), ""), k32(&r, 63), "");
    src = LLVMBuildAdd(b, src, k32(&r, 1), "");
  } else {
    if (n > 8)
      return 0;
    args[0] = LLVMBuildBitCast(b, LLVMBuildZExt(b, me, it, ""), t, "");
    for (unsigned k = 1; k < n; k++)
      args[k] = zy_lookup(g, LLVMGetOperand(call, k));
    LLVMValueRef f = LLVMGetCalledValue(call);
    src = LLVMBuildCall2(b, LLVMGlobalGetValueType(f), f, args, n, "");
    src = LLVMBuildTrunc(b, LLVMBuildBitCast(b, src, it, ""), r.i32, "");
  }
  LLVMValueRef bits = LLVMBuildBitCast(b, d, it, ""), half[2];
  half[0] = dbl ? LLVMBuildTrunc(b, bits, r.i32, "") : bits;
  half[1] = dbl ? LLVMBuildTrunc(
                      b, LLVMBuildLShr(b, bits, LLVMConstInt(i64, 32, 0), ""),
                      r.i32, "")
                : NULL;
  LLVMValueRef lost, fast = amd_fast(&r, src, me, half, t, &lost);
  LLVMTypeRef bt = i64;
  unsigned id = LLVMLookupIntrinsicID("llvm.amdgcn.ballot", 18);
  LLVMValueRef bf = LLVMGetIntrinsicDeclaration(g->zm->mod, id, &bt, 1);
  LLVMValueRef any = LLVMBuildICmp(
      b, LLVMIntNE,
      LLVMBuildCall2(b, LLVMGlobalGetValueType(bf), bf, &lost, 1, ""),
      LLVMConstInt(i64, 0, 0), "");
  LLVMBasicBlockRef from, join, slow = slow_path(g, b, any, &from, &join);
  LLVMValueRef acc = LLVMConstNull(t), ok;
  for (int k = 0; k < 64; k++) /* every lane may have read this one */
    acc = LLVMBuildFAdd(b, acc, amd_take(&r, src, me, half, t, k32(&r, k), &ok),
                        "");
  zy_add_adjoint(g, x, join_paths(b, join, fast, from, acc, slow));
  return 0;
}

int zy_gpu_reverse_shuffle(ZyGen *g, LLVMValueRef call, LLVMValueRef d) {
  int mode = zy_gpu_shuffle_mode(LLVMGetCalledValue(call)) - 1;
  if (mode == M_AMD || mode == M_PERM)
    return amd_reverse_shuffle(g, call, d, mode == M_PERM);
  LLVMValueRef x = LLVMGetOperand(call, 1);
  if (mode < 0 || !d || !zy_activity_active(g->act, x))
    return 0;
  Rev r = {.g = g, .b = g->b, .i32 = LLVMInt32TypeInContext(g->zm->ctx)};
  LLVMValueRef lanes = participants(call);
  r.mask = zy_lookup(g, lanes ? lanes : LLVMGetOperand(call, 0));
  LLVMValueRef bv = zy_lookup(g, LLVMGetOperand(call, 2));
  LLVMValueRef c = zy_lookup(g, LLVMGetOperand(call, 3));
  r.lane = intrinsic_call(&r, "llvm.nvvm.read.ptx.sreg.laneid", NULL, 0);
  LLVMValueRef read;
  LLVMValueRef j = source_lane(&r, mode, bv, c, &read);
  LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(d));
  r.send = LLVMBuildSelect(g->b, read, d, zero, "");
  r.tag = LLVMBuildOr(g->b, LLVMBuildShl(g->b, r.lane, k32(&r, 8), ""),
                      LLVMBuildSelect(g->b, read, j, k32(&r, 0xff), ""), "");
  /* A lane that kept its own value adds its adjoint to itself. */
  LLVMValueRef acc = LLVMBuildSelect(g->b, read, zero, d, "");
  if (mode == M_IDX) /* any lane may have read this one: ask all 32 */
    acc = ask_all(&r, acc);
  else
    acc = ask_one(&r, mode, bv, j, read, acc);
  zy_add_adjoint(g, x, acc);
  return 0;
}

/* --- Cross-lane moves of a float's bits that are not differentiated ------ */

/* Whether `f` moves integers between lanes: an nvptx shuffle of i32
 * (one not fused with its other half) or an amdgcn cross-lane move (what
 * HIP's __shfl* are made of). */
static int lane_move(LLVMValueRef f) {
  static const char *const amd[] = {
      "ds.bpermute", "ds.permute", "ds.swizzle", "readlane", "readfirstlane",
      "writelane",   "mov.dpp",    "update.dpp", "permlane"};
  if (!f || !LLVMIsAFunction(f))
    return 0;
  const char *n = LLVMGetValueName(f);
  if (mode_of(n, "llvm.nvvm.shfl.sync.", ".i32"))
    return 1;
  if (strncmp(n, "llvm.amdgcn.", 12))
    return 0;
  for (size_t k = 0; k < sizeof amd / sizeof *amd; k++)
    if (!strncmp(n + 12, amd[k], strlen(amd[k])))
      return 1;
  return 0;
}

/* Whether integer `v` holds bits of an active float: through bitcasts,
 * truncations, shifts and extensions. */
static int active_bits(ZyGen *g, LLVMValueRef v, int depth) {
  if (depth > 8 || !v || !LLVMIsAInstruction(v))
    return 0;
  LLVMTypeKind k = LLVMGetTypeKind(LLVMTypeOf(v));
  if (k == LLVMFloatTypeKind || k == LLVMDoubleTypeKind ||
      k == LLVMHalfTypeKind)
    return zy_activity_active(g->act, v);
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMBitCast:
  case LLVMTrunc:
  case LLVMZExt:
  case LLVMLShr:
  case LLVMAShr:
  case LLVMShl:
  case LLVMAnd:
  case LLVMFreeze:
    return active_bits(g, LLVMGetOperand(v, 0), depth + 1);
  default:
    return 0;
  }
}

int zy_gpu_shuffle_check(ZyGen *g) {
  const char *t = LLVMGetTarget(g->zm->mod);
  if (strncmp(t, "nvptx", 5) && strncmp(t, "amdgcn", 6))
    return 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      if (!LLVMIsACallInst(i) || !lane_move(LLVMGetCalledValue(i)))
        continue;
      for (unsigned k = 0; k < LLVMGetNumArgOperands(i); k++)
        if (active_bits(g, LLVMGetOperand(i, k), 0)) {
          g->cur = i;
          return ZY_GEN_ERROR(
              g, ZY_ERR_UNSUPPORTED,
              strncmp(t, "nvptx", 5)
                  ? "HIP's __shfl, __shfl_up, __shfl_down, __shfl_xor and "
                    "ds_bpermute of a float or double are differentiated; "
                    "other cross-lane moves are not"
                  : "shuffle the float or double itself (__shfl*_sync on a "
                    "float or double value)",
              "the bits of an active floating-point value move between "
              "lanes through '%s'; its derivative would be lost",
              LLVMGetValueName(LLVMGetCalledValue(i)));
        }
    }
  return 0;
}
