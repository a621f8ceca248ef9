/* ptx_ops.c - the PTX instructions the interpreter of ptx_insn.c knows,
 * each built as the same operation in IR: mov (special registers,
 * packing), integer and float arithmetic, not, shifts (clamped), bmsk,
 * setp, selp, shfl.sync with its lane predicate, vote.sync, ld and st
 * (read-only caches, memory orders, 128-bit ones through the runtime),
 * fences, nanosleep and exit.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ptx_insn.h"

#include <stdio.h>
#include <string.h>

/* Writes `v` to destination `d`; under a guard, only where it holds. */
static int dest(ZyPtx *p, const ZyPtxInsn *in, const char *d, LLVMValueRef v) {
  if (!v)
    return -1;
  if (in->guard) {
    LLVMValueRef g = zy_ptx_get(p, in->guard, 1, 0);
    LLVMValueRef old = zy_ptx_get(p, d, 0, 0);
    if (!g || !old || !(old = zy_ptx_convert(p, old, LLVMTypeOf(v))))
      return -1;
    if (in->negate)
      g = LLVMBuildNot(p->b, g, "");
    v = LLVMBuildSelect(p->b, g, v, old, "");
  }
  return zy_ptx_set(p, d, v);
}

static LLVMValueRef k_int(ZyPtx *p, unsigned bits, unsigned long long v) {
  return LLVMConstInt(zy_ptx_int_type(p, bits), v, 0);
}

/* Whether every part of `in` between its opcode and its type is one of
 * `ok` (so that a modifier this interpreter does not build, .sat, .cc,
 * a rounding other than .rn, is refused, never dropped). */
static int only(const ZyPtxInsn *in, const char *const *ok) {
  for (unsigned k = 1; k + 1 < in->nparts; k++) {
    int known = 0;
    for (const char *const *o = ok; *o && !known; o++)
      known = !strcmp(in->part[k], *o);
    if (!known)
      return 0;
  }
  return 1;
}

static const char *const NONE[] = {NULL};

/* mov: a value, a special register, or `{lo, hi}` packed or unpacked. */
static int op_mov(ZyPtx *p, const ZyPtxInsn *in) {
  int fp, sg;
  unsigned w = zy_ptx_type_bits(in, &fp, &sg);
  char *d[4], *s[4];
  if (!w || in->nops != 2 || !only(in, NONE))
    return -1;
  unsigned nd = zy_ptx_vector(in->op[0], d, 4),
           ns = zy_ptx_vector(in->op[1], s, 4);
  if (nd) {
    LLVMValueRef a = zy_ptx_get(p, in->op[1], w, 0);
    for (unsigned k = 0; a && k < nd; k++)
      if (dest(p, in, d[k],
               LLVMBuildTrunc(
                   p->b, LLVMBuildLShr(p->b, a, k_int(p, w, k * w / nd), ""),
                   zy_ptx_int_type(p, w / nd), "")))
        return -1;
    return a ? 0 : -1;
  }
  if (ns) {
    LLVMValueRef acc = k_int(p, w, 0);
    for (unsigned k = 0; k < ns; k++) {
      LLVMValueRef e = zy_ptx_get(p, s[k], w / ns, 0);
      if (!e)
        return -1;
      e = LLVMBuildShl(p->b, LLVMBuildZExt(p->b, e, zy_ptx_int_type(p, w), ""),
                       k_int(p, w, k * w / ns), "");
      acc = LLVMBuildOr(p->b, acc, e, "");
    }
    return dest(p, in, in->op[0], acc);
  }
  return dest(p, in, in->op[0], zy_ptx_get(p, in->op[1], w, fp));
}

static LLVMValueRef minmax(ZyPtx *p, int max, int fp, int sg, LLVMValueRef a,
                           LLVMValueRef b) {
  LLVMTypeRef t = LLVMTypeOf(a);
  LLVMValueRef args[2] = {a, b};
  const char *n = fp   ? (max ? "llvm.maxnum" : "llvm.minnum")
                  : sg ? (max ? "llvm.smax" : "llvm.smin")
                       : (max ? "llvm.umax" : "llvm.umin");
  return zy_ptx_intrinsic(p, n, &t, 1, args, 2);
}

/* add sub mul min max and or xor (mul: .lo, .hi, .wide). */
static int op_arith(ZyPtx *p, const ZyPtxInsn *in) {
  static const char *const ok[] = {"lo", "hi", "wide", "rn", "ftz", NULL};
  int fp, sg;
  unsigned w = zy_ptx_type_bits(in, &fp, &sg);
  if (!w || in->nops != 3 || !only(in, ok))
    return -1;
  const char *op = in->part[0];
  LLVMValueRef a = zy_ptx_get(p, in->op[1], w, fp),
               b = zy_ptx_get(p, in->op[2], w, fp);
  if (!a || !b)
    return -1;
  LLVMBuilderRef B = p->b;
  LLVMValueRef r = NULL;
  if (!strcmp(op, "min") || !strcmp(op, "max"))
    r = minmax(p, op[1] == 'a', fp, sg, a, b);
  else if (fp)
    r = !strcmp(op, "add")   ? LLVMBuildFAdd(B, a, b, "")
        : !strcmp(op, "sub") ? LLVMBuildFSub(B, a, b, "")
        : !strcmp(op, "mul") ? LLVMBuildFMul(B, a, b, "")
                             : NULL;
  else if (!strcmp(op, "mul") &&
           (zy_ptx_has(in, "hi") || zy_ptx_has(in, "wide"))) {
    LLVMTypeRef t2 = zy_ptx_int_type(p, 2 * w);
    LLVMValueRef x =
        sg ? LLVMBuildSExt(B, a, t2, "") : LLVMBuildZExt(B, a, t2, "");
    LLVMValueRef y =
        sg ? LLVMBuildSExt(B, b, t2, "") : LLVMBuildZExt(B, b, t2, "");
    r = LLVMBuildMul(B, x, y, "");
    if (zy_ptx_has(in, "hi"))
      r = LLVMBuildTrunc(B, LLVMBuildLShr(B, r, LLVMConstInt(t2, w, 0), ""),
                         zy_ptx_int_type(p, w), "");
  } else
    r = !strcmp(op, "add")   ? LLVMBuildAdd(B, a, b, "")
        : !strcmp(op, "sub") ? LLVMBuildSub(B, a, b, "")
        : !strcmp(op, "mul") ? LLVMBuildMul(B, a, b, "")
        : !strcmp(op, "and") ? LLVMBuildAnd(B, a, b, "")
        : !strcmp(op, "or")  ? LLVMBuildOr(B, a, b, "")
        : !strcmp(op, "xor") ? LLVMBuildXor(B, a, b, "")
                             : NULL;
  return dest(p, in, in->op[0], r);
}

static int op_not(ZyPtx *p, const ZyPtxInsn *in) {
  int fp, sg;
  unsigned w = zy_ptx_type_bits(in, &fp, &sg);
  LLVMValueRef a = in->nops == 2 && w && only(in, NONE)
                       ? zy_ptx_get(p, in->op[1], w, 0)
                       : NULL;
  return a ? dest(p, in, in->op[0], LLVMBuildNot(p->b, a, "")) : -1;
}

/* shl, shr: PTX clamps the shift amount (a shift by the width or more
 * gives 0, or the sign for .s). */
static int op_shift(ZyPtx *p, const ZyPtxInsn *in) {
  int fp, sg;
  unsigned w = zy_ptx_type_bits(in, &fp, &sg);
  if (!w || fp || in->nops != 3 || !only(in, NONE))
    return -1;
  LLVMValueRef a = zy_ptx_get(p, in->op[1], w, 0),
               n = zy_ptx_get(p, in->op[2], 32, 0);
  if (!a || !n)
    return -1;
  LLVMBuilderRef B = p->b;
  LLVMValueRef big = LLVMBuildICmp(B, LLVMIntUGE, n, k_int(p, 32, w), "");
  LLVMValueRef amt =
      zy_ptx_as_int(p, LLVMBuildSelect(B, big, k_int(p, 32, 0), n, ""), w);
  LLVMValueRef r, over = k_int(p, w, 0);
  if (!strcmp(in->part[0], "shl"))
    r = LLVMBuildShl(B, a, amt, "");
  else if (sg) {
    r = LLVMBuildAShr(B, a, amt, "");
    over = LLVMBuildAShr(B, a, k_int(p, w, w - 1), "");
  } else
    r = LLVMBuildLShr(B, a, amt, "");
  return dest(p, in, in->op[0], LLVMBuildSelect(B, big, over, r, ""));
}

/* bmsk.{clamp,wrap}.b32 d, a, b: b bits set from bit a. */
static int op_bmsk(ZyPtx *p, const ZyPtxInsn *in) {
  if (in->nops != 3)
    return -1;
  LLVMValueRef a = zy_ptx_get(p, in->op[1], 32, 0),
               b = zy_ptx_get(p, in->op[2], 32, 0);
  if (!a || !b)
    return -1;
  LLVMBuilderRef B = p->b;
  LLVMValueRef f = k_int(p, 32, 0x1f), ones = k_int(p, 32, ~0u),
               zero = k_int(p, 32, 0);
  LLVMValueRef a1 = LLVMBuildAnd(B, a, f, ""), b1 = LLVMBuildAnd(B, b, f, "");
  LLVMValueRef sum = LLVMBuildAdd(B, a1, b1, "");
  LLVMValueRef mask0 = LLVMBuildShl(B, ones, a1, "");
  LLVMValueRef over = LLVMBuildICmp(B, LLVMIntUGE, sum, k_int(p, 32, 32), "");
  LLVMValueRef mask1 =
      LLVMBuildShl(B, ones, LLVMBuildSelect(B, over, zero, sum, ""), "");
  if (zy_ptx_has(in, "clamp")) {
    LLVMValueRef apos = LLVMBuildICmp(B, LLVMIntUGE, a, k_int(p, 32, 32), "");
    LLVMValueRef bw = LLVMBuildICmp(B, LLVMIntUGE, b, k_int(p, 32, 32), "");
    mask0 = LLVMBuildSelect(B, apos, zero, mask0, "");
    over = LLVMBuildOr(B, over, LLVMBuildOr(B, apos, bw, ""), "");
  }
  LLVMValueRef b0 = LLVMBuildICmp(B, LLVMIntEQ, b1, zero, "");
  mask1 = LLVMBuildSelect(B, over, zero,
                          LLVMBuildSelect(B, b0, ones, mask1, ""), "");
  return dest(p, in, in->op[0],
              LLVMBuildAnd(B, mask0, LLVMBuildNot(B, mask1, ""), ""));
}

/* setp.CMP.TYPE p, a, b. */
static int op_setp(ZyPtx *p, const ZyPtxInsn *in) {
  int fp, sg;
  unsigned w = zy_ptx_type_bits(in, &fp, &sg);
  if (!w || in->nops != 3 || in->nparts != 3 || strchr(in->op[0], '|'))
    return -1;
  LLVMValueRef a = zy_ptx_get(p, in->op[1], w, fp),
               b = zy_ptx_get(p, in->op[2], w, fp);
  if (!a || !b)
    return -1;
  static const struct {
    const char *n;
    LLVMIntPredicate s, u;
    LLVMRealPredicate f;
  } cmps[] = {
      {"eq", LLVMIntEQ, LLVMIntEQ, LLVMRealOEQ},
      {"ne", LLVMIntNE, LLVMIntNE, LLVMRealONE},
      {"lt", LLVMIntSLT, LLVMIntULT, LLVMRealOLT},
      {"le", LLVMIntSLE, LLVMIntULE, LLVMRealOLE},
      {"gt", LLVMIntSGT, LLVMIntUGT, LLVMRealOGT},
      {"ge", LLVMIntSGE, LLVMIntUGE, LLVMRealOGE},
      {"lo", LLVMIntULT, LLVMIntULT, LLVMRealOLT},
      {"ls", LLVMIntULE, LLVMIntULE, LLVMRealOLE},
      {"hi", LLVMIntUGT, LLVMIntUGT, LLVMRealOGT},
      {"hs", LLVMIntUGE, LLVMIntUGE, LLVMRealOGE},
      {"equ", LLVMIntEQ, LLVMIntEQ, LLVMRealUEQ},
      {"neu", LLVMIntNE, LLVMIntNE, LLVMRealUNE},
      {"ltu", LLVMIntULT, LLVMIntULT, LLVMRealULT},
      {"leu", LLVMIntULE, LLVMIntULE, LLVMRealULE},
      {"gtu", LLVMIntUGT, LLVMIntUGT, LLVMRealUGT},
      {"geu", LLVMIntUGE, LLVMIntUGE, LLVMRealUGE},
      {"num", LLVMIntEQ, LLVMIntEQ, LLVMRealORD},
      {"nan", LLVMIntEQ, LLVMIntEQ, LLVMRealUNO},
  };
  for (size_t k = 0; k < sizeof cmps / sizeof *cmps; k++)
    if (!strcmp(in->part[1], cmps[k].n))
      return dest(
          p, in, in->op[0],
          fp ? LLVMBuildFCmp(p->b, cmps[k].f, a, b, "")
             : LLVMBuildICmp(p->b, sg ? cmps[k].s : cmps[k].u, a, b, ""));
  return -1;
}

/* selp.TYPE d, a, b, c: c ? a : b. */
static int op_selp(ZyPtx *p, const ZyPtxInsn *in) {
  int fp, sg;
  unsigned w = zy_ptx_type_bits(in, &fp, &sg);
  if (!w || in->nops != 4 || !only(in, NONE))
    return -1;
  LLVMValueRef a = zy_ptx_get(p, in->op[1], w, fp),
               b = zy_ptx_get(p, in->op[2], w, fp),
               c = zy_ptx_get(p, in->op[3], 1, 0);
  return a && b && c
             ? dest(p, in, in->op[0], LLVMBuildSelect(p->b, c, a, b, ""))
             : -1;
}

/* shfl.sync.MODE.b32 d[|p], a, b, c, mask: the exchange (an nvvm
 * intrinsic the runtime runs) and its predicate, whether the source
 * lane was in range (PTX ISA: lanes clamped by c's bounds and segment
 * mask). */
static int op_shfl(ZyPtx *p, const ZyPtxInsn *in) {
  static const char *const modes[] = {"up", "down", "bfly", "idx"};
  int mode = -1;
  for (int k = 0; k < 4; k++)
    if (zy_ptx_has(in, modes[k]))
      mode = k;
  if (mode < 0 || !zy_ptx_has(in, "sync") || in->nops != 5)
    return -1;
  char *dp = strchr(in->op[0], '|');
  if (dp)
    *dp++ = 0;
  LLVMValueRef a = zy_ptx_get(p, in->op[1], 32, 0),
               b = zy_ptx_get(p, in->op[2], 32, 0),
               c = zy_ptx_get(p, in->op[3], 32, 0),
               mask = zy_ptx_get(p, in->op[4], 32, 0);
  if (!a || !b || !c || !mask)
    return -1;
  char name[48];
  snprintf(name, sizeof name, "llvm.nvvm.shfl.sync.%s.i32", modes[mode]);
  LLVMValueRef args[4] = {mask, a, b, c};
  if (dest(p, in, zy_ptx_trim(in->op[0]),
           zy_ptx_intrinsic(p, name, NULL, 0, args, 4)))
    return -1;
  if (!dp)
    return 0;
  LLVMBuilderRef B = p->b;
  LLVMValueRef lane = zy_ptx_special(p, "%laneid");
  LLVMValueRef seg = LLVMBuildAnd(B, LLVMBuildLShr(B, c, k_int(p, 32, 8), ""),
                                  k_int(p, 32, 0x1f), "");
  LLVMValueRef nseg = LLVMBuildNot(B, seg, "");
  LLVMValueRef lo = LLVMBuildAnd(B, lane, seg, "");
  LLVMValueRef max = LLVMBuildOr(
      B, lo,
      LLVMBuildAnd(B, LLVMBuildAnd(B, c, k_int(p, 32, 0x1f), ""), nseg, ""),
      "");
  LLVMValueRef j =
      mode == 0   ? LLVMBuildSub(B, lane, b, "")
      : mode == 1 ? LLVMBuildAdd(B, lane, b, "")
      : mode == 2
          ? LLVMBuildXor(B, lane, b, "")
          : LLVMBuildOr(B, lo,
                        LLVMBuildAnd(B,
                                     LLVMBuildAnd(B, b, k_int(p, 32, 0x1f), ""),
                                     nseg, ""),
                        "");
  LLVMValueRef ok =
      LLVMBuildICmp(B, mode == 0 ? LLVMIntSGE : LLVMIntSLE, j, max, "");
  return dest(p, in, zy_ptx_trim(dp), ok);
}

/* vote.sync.ballot.b32 / vote.ballot.sync.b32 d, p, mask; vote.all/any/
 * uni.sync.pred d, p, mask. */
static int op_vote(ZyPtx *p, const ZyPtxInsn *in) {
  static const char *const modes[] = {"ballot", "all", "any", "uni"};
  int mode = -1;
  for (int k = 0; k < 4; k++)
    if (zy_ptx_has(in, modes[k]))
      mode = k;
  if (mode < 0 || !zy_ptx_has(in, "sync") || in->nops != 3)
    return -1;
  LLVMValueRef pr = zy_ptx_get(p, in->op[1], 1, 0),
               mask = zy_ptx_get(p, in->op[2], 32, 0);
  if (!pr || !mask)
    return -1;
  char name[48];
  snprintf(name, sizeof name, "llvm.nvvm.vote.%s.sync", modes[mode]);
  LLVMValueRef args[2] = {mask, pr};
  return dest(p, in, in->op[0], zy_ptx_intrinsic(p, name, NULL, 0, args, 2));
}

/* The memory order of ld/st: plain, or relaxed/acquire/release (volatile
 * taken as relaxed), for loads and stores other threads make at once. */
static LLVMAtomicOrdering order(const ZyPtxInsn *in) {
  if (zy_ptx_has(in, "acquire"))
    return LLVMAtomicOrderingAcquire;
  if (zy_ptx_has(in, "release"))
    return LLVMAtomicOrderingRelease;
  if (zy_ptx_has(in, "relaxed") || zy_ptx_has(in, "volatile"))
    return LLVMAtomicOrderingMonotonic;
  return LLVMAtomicOrderingNotAtomic;
}

/* ld[.space][.nc][.order.scope][.vN].TYPE d|{d...}, [a]; 128 bits with an
 * order go through the runtime (__zy_gpu_ld128). */
static int op_ld(ZyPtx *p, const ZyPtxInsn *in) {
  int fp, sg;
  unsigned w = zy_ptx_type_bits(in, &fp, &sg), n = zy_ptx_has(in, "v2")   ? 2
                                                   : zy_ptx_has(in, "v4") ? 4
                                                                          : 1;
  char *d[4] = {in->op[0]};
  if (!w || in->nops != 2 || (n > 1 && zy_ptx_vector(in->op[0], d, 4) != n))
    return -1;
  LLVMValueRef a = zy_ptx_address(p, in->op[1]);
  LLVMAtomicOrdering o = order(in);
  if (!a)
    return -1;
  LLVMBuilderRef B = p->b;
  LLVMValueRef v[4];
  unsigned total = w * n;
  LLVMTypeRef i8 = LLVMInt8TypeInContext(p->c);
  if (o != LLVMAtomicOrderingNotAtomic && total <= 64) {
    LLVMValueRef l = LLVMBuildLoad2(B, zy_ptx_int_type(p, total), a, "");
    LLVMSetOrdering(l, o);
    LLVMSetAlignment(l, total / 8);
    for (unsigned k = 0; k < n; k++)
      v[k] = LLVMBuildTrunc(B, LLVMBuildLShr(B, l, k_int(p, total, k * w), ""),
                            zy_ptx_int_type(p, w), "");
  } else if (o != LLVMAtomicOrderingNotAtomic && total == 128) {
    LLVMTypeRef ptr = LLVMPointerTypeInContext(p->c, 0),
                i32 = zy_ptx_int_type(p, 32);
    LLVMValueRef buf = zy_ptx_entry_alloca(p, zy_ptx_int_type(p, 128));
    LLVMTypeRef params[3] = {ptr, ptr, i32};
    LLVMValueRef args[3] = {a, buf,
                            k_int(p, 32, o == LLVMAtomicOrderingAcquire)};
    zy_ptx_runtime(p, "__zy_gpu_ld128", LLVMVoidTypeInContext(p->c), params, 3,
                   args);
    LLVMValueRef wide = LLVMBuildLoad2(B, zy_ptx_int_type(p, 128), buf, "");
    for (unsigned k = 0; k < n; k++)
      v[k] = LLVMBuildTrunc(B, LLVMBuildLShr(B, wide, k_int(p, 128, k * w), ""),
                            zy_ptx_int_type(p, w), "");
  } else if (o == LLVMAtomicOrderingNotAtomic) {
    for (unsigned k = 0; k < n; k++) {
      LLVMValueRef off = k_int(p, 64, k * w / 8);
      LLVMValueRef e = LLVMBuildGEP2(B, i8, a, &off, 1, "");
      v[k] = LLVMBuildLoad2(B, zy_ptx_int_type(p, w), e, "");
      LLVMSetAlignment(v[k], w / 8);
    }
  } else
    return -1;
  for (unsigned k = 0; k < n; k++)
    if (dest(p, in, d[k], v[k]))
      return -1;
  return 0;
}

/* st[.space][.order.scope][.vN].TYPE [a], v|{v...}. */
static int op_st(ZyPtx *p, const ZyPtxInsn *in) {
  int fp, sg;
  unsigned w = zy_ptx_type_bits(in, &fp, &sg), n = zy_ptx_has(in, "v2")   ? 2
                                                   : zy_ptx_has(in, "v4") ? 4
                                                                          : 1;
  char *s[4] = {in->op[1]};
  if (!w || in->nops != 2 || in->guard ||
      (n > 1 && zy_ptx_vector(in->op[1], s, 4) != n))
    return -1;
  LLVMValueRef a = zy_ptx_address(p, in->op[0]);
  LLVMAtomicOrdering o = order(in);
  unsigned total = w * n;
  LLVMBuilderRef B = p->b;
  LLVMValueRef wide = k_int(p, total, 0);
  for (unsigned k = 0; a && k < n; k++) {
    LLVMValueRef e = zy_ptx_get(p, s[k], w, 0);
    if (!e)
      return -1;
    wide = LLVMBuildOr(
        B, wide,
        LLVMBuildShl(B, LLVMBuildZExt(B, e, zy_ptx_int_type(p, total), ""),
                     k_int(p, total, k * w), ""),
        "");
  }
  if (!a || total > 128)
    return -1;
  if (total == 128 && o != LLVMAtomicOrderingNotAtomic) {
    LLVMTypeRef ptr = LLVMPointerTypeInContext(p->c, 0),
                i32 = zy_ptx_int_type(p, 32);
    LLVMValueRef buf = zy_ptx_entry_alloca(p, zy_ptx_int_type(p, 128));
    LLVMBuildStore(B, wide, buf);
    LLVMTypeRef params[3] = {ptr, ptr, i32};
    LLVMValueRef args[3] = {a, buf,
                            k_int(p, 32, o == LLVMAtomicOrderingRelease)};
    zy_ptx_runtime(p, "__zy_gpu_st128", LLVMVoidTypeInContext(p->c), params, 3,
                   args);
    return 0;
  }
  LLVMValueRef st = LLVMBuildStore(B, wide, a);
  LLVMSetAlignment(st, total / 8);
  if (o != LLVMAtomicOrderingNotAtomic)
    LLVMSetOrdering(st, o);
  return 0;
}

/* nanosleep.u32 t; exit; fence/membar. */
static int op_other(ZyPtx *p, const ZyPtxInsn *in) {
  const char *op = in->part[0];
  LLVMTypeRef v = LLVMVoidTypeInContext(p->c), i32 = zy_ptx_int_type(p, 32);
  if (in->guard)
    return -1;
  if (!strcmp(op, "nanosleep") && in->nops == 1) {
    LLVMValueRef t = zy_ptx_get(p, in->op[0], 32, 0);
    return t ? (zy_ptx_runtime(p, "__zy_gpu_nanosleep", v, &i32, 1, &t), 0)
             : -1;
  }
  if (!strcmp(op, "exit") && !in->nops) {
    zy_ptx_runtime(p, "__zy_gpu_exit", v, NULL, 0, NULL);
    return 0;
  }
  if ((!strcmp(op, "fence") || !strcmp(op, "membar")) && !in->nops) {
    LLVMBuildFence(p->b, LLVMAtomicOrderingSequentiallyConsistent, 0, "");
    return 0;
  }
  return -1;
}

int zy_ptx_run(ZyPtx *p, ZyPtxInsn *in) {
  const char *op = in->part[0];
  static const char *const arith[] = {"add", "sub", "mul", "min",
                                      "max", "and", "or",  "xor"};
  for (size_t k = 0; k < sizeof arith / sizeof *arith; k++)
    if (!strcmp(op, arith[k]))
      return op_arith(p, in);
  if (!strcmp(op, "mov"))
    return op_mov(p, in);
  if (!strcmp(op, "not"))
    return op_not(p, in);
  if (!strcmp(op, "shl") || !strcmp(op, "shr"))
    return op_shift(p, in);
  if (!strcmp(op, "bmsk"))
    return op_bmsk(p, in);
  if (!strcmp(op, "setp"))
    return op_setp(p, in);
  if (!strcmp(op, "selp"))
    return op_selp(p, in);
  if (!strcmp(op, "shfl"))
    return op_shfl(p, in);
  if (!strcmp(op, "vote"))
    return op_vote(p, in);
  if (!strcmp(op, "ld"))
    return op_ld(p, in);
  if (!strcmp(op, "st"))
    return op_st(p, in);
  return op_other(p, in);
}
