/* gpu_shuffle.c - warp shuffles (`__shfl_sync`, `_up`, `_down`, `_xor`:
 * llvm.nvvm.shfl.sync.{idx,up,down,bfly}) in differentiated device code.
 * Each lane l reads x from lane j(l); the adjoint is the transposed
 * exchange: lane l adds dy(l) to dx(j(l)).  A double is shuffled as two
 * i32 halves; that pattern is fused into one call before activity runs.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "parallel.h"

#include "ad/ad.h"

#include <stdio.h>
#include <string.h>

enum { M_IDX, M_UP, M_DOWN, M_BFLY };
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

int zy_gpu_shuffle_mode(LLVMValueRef f) {
  if (!f || !LLVMIsAFunction(f))
    return 0;
  const char *n = LLVMGetValueName(f);
  int m = mode_of(n, "llvm.nvvm.shfl.sync.", ".f32");
  return m ? m : mode_of(n, "zymase.shfl.sync.", ".f64");
}

int zy_gpu_shuffle_wrapper(LLVMValueRef call) {
  LLVMValueRef f = LLVMGetCalledValue(call);
  return f && LLVMIsAFunction(f) && !LLVMIsDeclaration(f) &&
         strstr(LLVMGetValueName(f), "__shfl");
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
  if (!c || !LLVMIsACallInst(c))
    return NULL;
  LLVMValueRef f = LLVMGetCalledValue(c);
  if (!f || !LLVMIsAFunction(f))
    return NULL;
  *mode = mode_of(LLVMGetValueName(f), "llvm.nvvm.shfl.sync.", ".i32");
  return *mode ? c : NULL;
}

/* The double shuffle of `mode` (i32 halves), made once per module. */
static LLVMValueRef f64_shuffle(LLVMModuleRef m, int mode, LLVMValueRef i32f) {
  char name[64];
  snprintf(name, sizeof name, "zymase.shfl.sync.%s.f64", modes[mode - 1]);
  LLVMValueRef f = LLVMGetNamedFunction(m, name);
  if (f)
    return f;
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c), i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef dbl = LLVMDoubleTypeInContext(c);
  LLVMTypeRef ft =
      LLVMFunctionType(dbl, (LLVMTypeRef[]){i32, dbl, i32, i32}, 4, 0);
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
    half[k] = LLVMBuildZExt(
        b, LLVMBuildCall2(b, LLVMGlobalGetValueType(i32f), i32f, args, 4, ""),
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

/* `or_` = or(zext(S(m, trunc X, b, c)), shl(zext(S(m, trunc(X >> 32), b,
 * c)), 32)) with S one shuffle of i32: made a call of the double shuffle
 * on X's bits.  Returns 1 if it did. */
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
  for (unsigned k = 0; k < 4; k += k == 0 ? 2 : 1)
    if (LLVMGetOperand(lo, k) != LLVMGetOperand(hi, k))
      return 0;
  LLVMValueRef x = operand_of(LLVMGetOperand(lo, 1), LLVMTrunc);
  LLVMValueRef sh = operand_of(LLVMGetOperand(hi, 1), LLVMTrunc);
  LLVMValueRef xh = operand_of(sh, LLVMLShr);
  if (!x || x != xh || !const_is(LLVMGetOperand(sh, 1), 32) ||
      LLVMGetTypeKind(LLVMTypeOf(x)) != LLVMIntegerTypeKind ||
      LLVMGetIntTypeWidth(LLVMTypeOf(x)) != 64)
    return 0;
  LLVMModuleRef m = LLVMGetGlobalParent(
      LLVMGetBasicBlockParent(LLVMGetInstructionParent(or_)));
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMValueRef f = f64_shuffle(m, mlo, LLVMGetCalledValue(lo));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderBefore(b, or_);
  LLVMValueRef dx = operand_of(x, LLVMBitCast);
  if (!dx || LLVMGetTypeKind(LLVMTypeOf(dx)) != LLVMDoubleTypeKind)
    dx = loaded_double(x, LLVMGetOperand(lo, 1), sh);
  if (!dx)
    dx = LLVMBuildBitCast(b, x, LLVMDoubleTypeInContext(c), "");
  LLVMValueRef args[4] = {LLVMGetOperand(lo, 0), dx, LLVMGetOperand(lo, 2),
                          LLVMGetOperand(lo, 3)};
  LLVMValueRef r =
      LLVMBuildCall2(b, LLVMGlobalGetValueType(f), f, args, 4, "shfl.f64");
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

int zy_gpu_shuffle_fuse(LLVMValueRef fn) {
  const char *t = LLVMGetTarget(LLVMGetGlobalParent(fn));
  if (strncmp(t, "nvptx", 5))
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
      }
      i = next;
    }
  }
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
  LLVMBasicBlockRef pbb = zy_gpu_reversed_block(g),
                    from = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef slow =
      LLVMAppendBasicBlockInContext(g->zm->ctx, g->grad, "zymase.shfl.all");
  LLVMBasicBlockRef join =
      LLVMAppendBasicBlockInContext(g->zm->ctx, g->grad, "zymase.shfl.join");
  if (pbb)
    zy_map_put(&g->gpu_join, join, pbb);
  LLVMBuildCondBr(b, any, slow, join);
  LLVMPositionBuilderAtEnd(b, slow);
  LLVMValueRef all = ask_all(r, acc);
  LLVMBuildBr(b, join);
  LLVMPositionBuilderAtEnd(b, join);
  LLVMValueRef phi = LLVMBuildPhi(b, LLVMTypeOf(acc), "");
  LLVMAddIncoming(phi, (LLVMValueRef[]){fast, all},
                  (LLVMBasicBlockRef[]){from, slow}, 2);
  return phi;
}

int zy_gpu_reverse_shuffle(ZyGen *g, LLVMValueRef call, LLVMValueRef d) {
  int mode = zy_gpu_shuffle_mode(LLVMGetCalledValue(call)) - 1;
  LLVMValueRef x = LLVMGetOperand(call, 1);
  if (mode < 0 || !d || !zy_activity_active(g->act, x))
    return 0;
  Rev r = {.g = g, .b = g->b, .i32 = LLVMInt32TypeInContext(g->zm->ctx)};
  r.mask = zy_lookup(g, LLVMGetOperand(call, 0));
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
                  ? "HIP's shuffles of active values are not differentiated "
                    "yet"
                  : "shuffle the float or double itself (__shfl*_sync on a "
                    "float or double value)",
              "the bits of an active floating-point value move between "
              "lanes through '%s'; its derivative would be lost",
              LLVMGetValueName(LLVMGetCalledValue(i)));
        }
    }
  return 0;
}
