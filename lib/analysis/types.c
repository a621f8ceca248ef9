/* types.c - type analysis by a fixpoint of local rules over the functions
 * of a call tree (see types.h).  Each rule joins facts in both directions:
 * a load tells the pointer what its memory holds as much as it tells the
 * loaded value what it is.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "types.h"

#include "calls/blas_calls.h"

#include "llvm/glue.h"
#include "support/vec.h"

#include <llvm-c/Target.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_TOUCHED = 64 };

struct ZyTypes {
  LLVMModuleRef mod;
  LLVMTargetDataRef td;
  ZyMap trees; /* value -> ZyTT* (instructions and arguments) */
  ZyTT scratch[4]; /* trees of constants: from their type, never kept */
  unsigned next_scratch;
  ZyVec funcs;   /* functions analysed, the root first */
  ZyMap in_func; /* function -> itself: those of `funcs` */
  ZyMap rets;    /* function -> ZyVec* of returned values */
  /* A rule is a function of the trees it reads, and every tree it writes
   * it also reads: an instruction none of whose trees changed since its
   * rule last ran would change nothing, and the fixpoint skips it.
   * `stale` maps an instruction to 1 when it must run (absent: 1) and 2
   * when it need not; `touched` holds the trees the running rule read,
   * with their `gen` when first read. */
  ZyMap stale;
  LLVMValueRef touched[MAX_TOUCHED];
  unsigned touched_gen[MAX_TOUCHED], ntouched;
  int overflow; /* more trees read than `touched` holds */
};

/* Statistics for -zymase-print-stats. */
static unsigned long long stat_analyses, stat_rounds, stat_rules;

static const long long WHOLE[1] = {-1};

static int seed_type(ZyTypes *T, ZyTT *t, LLVMTypeRef ty, long long off);

static int is_aggregate(LLVMTypeRef t);

/* The facts of `v`.  A constant (or global) gets a fresh tree from its
 * type each time: facts merged into it are dropped, so one constant used
 * in unrelated places does not carry facts between them. */
static ZyTT *tree(ZyTypes *T, LLVMValueRef v) {
  if (!LLVMIsAInstruction(v) && !LLVMIsAArgument(v)) {
    ZyTT *t = &T->scratch[T->next_scratch++ % 4];
    zy_tt_clear(t);
    LLVMTypeRef ty = LLVMTypeOf(v);
    seed_type(T, t, ty, is_aggregate(ty) ? 0 : -1);
    if (LLVMIsAGlobalVariable(v)) {
      ZyTT pointee = {0};
      seed_type(T, &pointee, LLVMGlobalGetValueType(v), 0);
      zy_tt_behind(&pointee, -1, t);
      zy_tt_free(&pointee);
    }
    return t;
  }
  ZyTT *t = zy_map_get(&T->trees, v);
  if (!t) {
    t = calloc(1, sizeof *t);
    zy_map_put(&T->trees, v, t);
  }
  if (T->ntouched < MAX_TOUCHED) {
    T->touched_gen[T->ntouched] = t->gen;
    T->touched[T->ntouched++] = v;
  } else {
    T->overflow = 1;
  }
  return t;
}

static ZyTy scalar_kind(LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMHalfTypeKind:
    return ZY_TY_HALF;
  case LLVMBFloatTypeKind:
    return ZY_TY_BFLOAT;
  case LLVMFloatTypeKind:
    return ZY_TY_FLOAT;
  case LLVMDoubleTypeKind:
    return ZY_TY_DOUBLE;
  case LLVMX86_FP80TypeKind:
    return ZY_TY_FP80;
  case LLVMFP128TypeKind:
    return ZY_TY_FP128;
  case LLVMPointerTypeKind:
    return ZY_TY_PTR;
  default:
    return ZY_TY_UNKNOWN;
  }
}

static int is_aggregate(LLVMTypeRef t) {
  LLVMTypeKind k = LLVMGetTypeKind(t);
  return k == LLVMStructTypeKind || k == LLVMArrayTypeKind;
}

/* Facts given by an LLVM type placed at byte `off` of a value (-1 for a
 * scalar or vector value). */
static int seed_type(ZyTypes *T, ZyTT *t, LLVMTypeRef ty, long long off) {
  switch (LLVMGetTypeKind(ty)) {
  case LLVMStructTypeKind: {
    int c = 0;
    for (unsigned i = 0; i < LLVMCountStructElementTypes(ty); i++)
      c |= seed_type(T, t, LLVMStructGetTypeAtIndex(ty, i),
                     off + (long long)LLVMOffsetOfElement(T->td, ty, i));
    return c;
  }
  case LLVMArrayTypeKind: {
    LLVMTypeRef e = LLVMGetElementType(ty);
    long long size = (long long)LLVMABISizeOfType(T->td, e);
    int c = 0;
    for (unsigned i = 0; i < LLVMGetArrayLength(ty) && i < 64; i++)
      c |= seed_type(T, t, e, off + i * size);
    return c;
  }
  case LLVMVectorTypeKind:
    return zy_tt_insert(t, &off, 1, scalar_kind(LLVMGetElementType(ty)));
  default:
    return zy_tt_insert(t, &off, 1, scalar_kind(ty));
  }
}

static int seed_value(ZyTypes *T, LLVMValueRef v) {
  LLVMTypeRef ty = LLVMTypeOf(v);
  return seed_type(T, tree(T, v), ty, is_aggregate(ty) ? 0 : -1);
}

/* An integer (or integer vector) used as a number.  Pointer bits
 * (ptrtoint) shifted or truncated stay what they are. */
static int mark_int(ZyTypes *T, LLVMValueRef v) {
  LLVMTypeRef ty = LLVMTypeOf(v);
  if (LLVMGetTypeKind(ty) == LLVMVectorTypeKind)
    ty = LLVMGetElementType(ty);
  if (LLVMGetTypeKind(ty) != LLVMIntegerTypeKind)
    return 0;
  ZyTT *t = tree(T, v);
  ZyTy now = zy_tt_get(t, WHOLE, 1);
  if (now == ZY_TY_PTR || now == ZY_TY_ANYTHING)
    return 0;
  return zy_tt_insert(t, WHOLE, 1, ZY_TY_INT);
}

static int same(ZyTypes *T, LLVMValueRef a, LLVMValueRef b) {
  ZyTT *ta = tree(T, a), *tb = tree(T, b);
  return zy_tt_merge(ta, tb) | zy_tt_merge(tb, ta);
}

static long long size_of(ZyTypes *T, LLVMTypeRef t) {
  return (long long)LLVMStoreSizeOfType(T->td, t);
}

/* Aggregates a and b agree outside bytes [lo, hi) (insertvalue). */
static int same_outside(ZyTypes *T, LLVMValueRef a, LLVMValueRef b,
                        long long lo, long long hi) {
  ZyTT ta = {0}, tb = {0};
  zy_tt_without(tree(T, a), lo, hi, &ta);
  zy_tt_without(tree(T, b), lo, hi, &tb);
  int c = zy_tt_merge(tree(T, a), &tb) | zy_tt_merge(tree(T, b), &ta);
  zy_tt_free(&ta), zy_tt_free(&tb);
  return c;
}

/* The value `v` (of type `ty`) is the memory at pointer `ptr`: the load
 * and store rule. */
static int value_in_memory(ZyTypes *T, LLVMValueRef v, LLVMTypeRef ty,
                           LLVMValueRef ptr) {
  long long size = size_of(T, ty);
  ZyTT mem = {0}, val = {0}, back = {0}, out = {0};
  int c = 0;
  zy_tt_pointee(tree(T, ptr), -1, &mem);
  if (is_aggregate(ty))
    zy_tt_shift(&mem, 0, 0, size, &val);
  else
    zy_tt_as_scalar(&mem, size, &val);
  /* A conflict in memory stays there: it does not make the values
   * stored or loaded conflicting too. */
  zy_tt_drop(&val, ZY_TY_ANYTHING);
  c |= zy_tt_merge(tree(T, v), &val);
  if (is_aggregate(ty))
    zy_tt_shift(tree(T, v), 0, 0, size, &back);
  else
    zy_tt_as_memory(tree(T, v), size, &back);
  zy_tt_behind(&back, -1, &out);
  c |= zy_tt_merge(tree(T, ptr), &out);
  zy_tt_free(&mem), zy_tt_free(&val), zy_tt_free(&back), zy_tt_free(&out);
  return c;
}

/* Memory at `to` is memory at `from` moved by `delta` bytes (or, with a
 * stride, by `delta` plus a multiple of it). */
static int moved(ZyTypes *T, LLVMValueRef from, LLVMValueRef to,
                 long long delta, long long stride, long long len) {
  ZyTT mem = {0}, sh = {0}, out = {0};
  zy_tt_pointee(tree(T, from), -1, &mem);
  zy_tt_shift(&mem, -delta, stride ? -(1LL << 60) : 0, len, &sh);
  if (stride) {
    ZyTT mod = {0};
    zy_tt_modulo(&sh, stride, &mod);
    zy_tt_free(&sh);
    sh = mod;
  }
  zy_tt_behind(&sh, -1, &out);
  int c = zy_tt_merge(tree(T, to), &out);
  zy_tt_free(&mem), zy_tt_free(&sh), zy_tt_free(&out);
  return c;
}

/* Bytes from `p` to the end of the alloca or global variable of known
 * size it points into at a constant offset, or -1. */
static long long bytes_to_end(ZyTypes *T, LLVMValueRef p, int depth) {
  if (LLVMIsAAllocaInst(p)) {
    LLVMValueRef n = LLVMGetOperand(p, 0);
    if (!LLVMIsAConstantInt(n) || LLVMConstIntGetZExtValue(n) != 1)
      return -1;
    return (long long)LLVMABISizeOfType(T->td, LLVMGetAllocatedType(p));
  }
  if (LLVMIsAGlobalVariable(p))
    return (long long)LLVMABISizeOfType(T->td, LLVMGlobalGetValueType(p));
  long long off, stride;
  if (depth <= 0 || !LLVMIsAGetElementPtrInst(p) ||
      !zy_llvm_gep_offset(T->mod, p, &off, &stride) || stride)
    return -1;
  long long room = bytes_to_end(T, LLVMGetOperand(p, 0), depth - 1);
  return room > off && off >= 0 ? room - off : -1;
}

/* Whether `i` is passed as parameter `arg` of a recursive call of the
 * function `arg` belongs to: f(p) calling f(p + off). */
static int recurses(LLVMValueRef arg, LLVMValueRef i) {
  LLVMValueRef fn = LLVMGetParamParent(arg);
  for (LLVMUseRef u = LLVMGetFirstUse(i); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef c = LLVMGetUser(u);
    if (!LLVMIsACallInst(c) || LLVMGetCalledValue(c) != fn)
      continue;
    for (unsigned k = 0; k < LLVMGetNumArgOperands(c); k++)
      if (LLVMGetOperand(c, k) == i && k < LLVMCountParams(fn) &&
          LLVMGetParam(fn, k) == arg)
        return 1;
  }
  return 0;
}

/* Whether the gep `i` of `base` steps a pointer that comes back as its
 * own base: p = phi(start, p + off), through memory as -O0 code keeps
 * it (p = load A ... store p + off, A), or a recursive call f(p + off). */
static int walks(LLVMValueRef base, LLVMValueRef i) {
  if (LLVMIsAPHINode(base)) {
    for (unsigned k = 0; k < LLVMCountIncoming(base); k++)
      if (LLVMGetIncomingValue(base, k) == i)
        return 1;
    return 0;
  }
  if (LLVMIsAArgument(base))
    return recurses(base, i);
  if (!LLVMIsALoadInst(base))
    return 0;
  LLVMValueRef slot = LLVMGetOperand(base, 0);
  for (LLVMUseRef u = LLVMGetFirstUse(i); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef s = LLVMGetUser(u);
    if (LLVMIsAStoreInst(s) && LLVMGetOperand(s, 0) == i &&
        LLVMGetOperand(s, 1) == slot)
      return 1;
  }
  /* -O0: the parameter kept in a local, p = load A after store arg, A. */
  if (!LLVMIsAAllocaInst(slot))
    return 0;
  for (LLVMUseRef u = LLVMGetFirstUse(slot); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef s = LLVMGetUser(u);
    if (LLVMIsAStoreInst(s) && LLVMGetOperand(s, 1) == slot &&
        LLVMIsAArgument(LLVMGetOperand(s, 0)) &&
        recurses(LLVMGetOperand(s, 0), i))
      return 1;
  }
  return 0;
}

static int rule_gep(ZyTypes *T, LLVMValueRef i) {
  LLVMValueRef base = LLVMGetOperand(i, 0);
  int c = 0;
  for (int k = 1; k < LLVMGetNumOperands(i); k++)
    c |= mark_int(T, LLVMGetOperand(i, k));
  long long off, stride;
  if (!zy_llvm_gep_offset(T->mod, i, &off, &stride))
    return c;
  /* p = phi(start, p + off): a pointer walking by `off` bytes is at any
   * multiple of it (without this, each round of the fixpoint would shift
   * the types by another `off` until the offset bound). */
  if (!stride && off && walks(base, i))
    stride = off < 0 ? -off : off;
  /* Memory past the end of a local or global object is not its memory:
   * without the bound, a pointer and pointer + off passed to the same
   * parameter push facts further by `off` bytes each round. */
  long long room = stride ? -1 : bytes_to_end(T, base, 8);
  c |= moved(T, base, i, off, stride, room > off ? room - off : -1);
  c |= moved(T, i, base, -off, stride, room);
  return c;
}

/* Byte offset of an extractvalue/insertvalue index path in `agg`. */
static long long path_offset(ZyTypes *T, LLVMTypeRef agg, LLVMValueRef i,
                             LLVMTypeRef *member) {
  const unsigned *idx = LLVMGetIndices(i);
  long long off = 0;
  for (unsigned k = 0; k < LLVMGetNumIndices(i); k++) {
    if (LLVMGetTypeKind(agg) == LLVMStructTypeKind) {
      off += (long long)LLVMOffsetOfElement(T->td, agg, idx[k]);
      agg = LLVMStructGetTypeAtIndex(agg, idx[k]);
    } else {
      agg = LLVMGetElementType(agg);
      off += idx[k] * (long long)LLVMABISizeOfType(T->td, agg);
    }
  }
  *member = agg;
  return off;
}

/* `part` (of type `pty`) lives at byte `off` of aggregate value `agg`. */
static int member(ZyTypes *T, LLVMValueRef agg, LLVMValueRef part,
                  LLVMTypeRef pty, long long off) {
  long long size = size_of(T, pty);
  ZyTT a = {0}, p = {0}, back = {0}, out = {0};
  zy_tt_shift(tree(T, agg), -off, 0, size, &a);
  if (is_aggregate(pty))
    p = a, a = (ZyTT){0};
  else
    zy_tt_as_scalar(&a, size, &p);
  int c = zy_tt_merge(tree(T, part), &p);
  if (is_aggregate(pty))
    zy_tt_shift(tree(T, part), 0, 0, size, &back);
  else
    zy_tt_as_memory(tree(T, part), size, &back);
  zy_tt_shift(&back, off, 0, -1, &out);
  c |= zy_tt_merge(tree(T, agg), &out);
  zy_tt_free(&a), zy_tt_free(&p), zy_tt_free(&back), zy_tt_free(&out);
  return c;
}

static void add_function(ZyTypes *T, LLVMValueRef fn);

/* The type a TBAA access tag names: !{base, !{!"double", ...}, offset}. */
static ZyTy tbaa_type(LLVMValueRef tag) {
  if (!tag || LLVMGetMDNodeNumOperands(tag) < 2)
    return ZY_TY_UNKNOWN;
  LLVMValueRef ops[8], access, name[4];
  unsigned n = LLVMGetMDNodeNumOperands(tag);
  if (n > 8)
    return ZY_TY_UNKNOWN;
  LLVMGetMDNodeOperands(tag, ops);
  access = ops[1];
  if (!access || LLVMGetMDNodeNumOperands(access) < 1 ||
      LLVMGetMDNodeNumOperands(access) > 4)
    return ZY_TY_UNKNOWN;
  LLVMGetMDNodeOperands(access, name);
  unsigned len = 0;
  const char *s = name[0] ? LLVMGetMDString(name[0], &len) : NULL;
  if (!s)
    return ZY_TY_UNKNOWN;
  static const struct {
    const char *name;
    ZyTy ty;
  } names[] = {
      {"double", ZY_TY_DOUBLE},   {"float", ZY_TY_FLOAT},
      {"long double", ZY_TY_FP80}, {"any pointer", ZY_TY_PTR},
      {"int", ZY_TY_INT},         {"long", ZY_TY_INT},
      {"long long", ZY_TY_INT},   {"short", ZY_TY_INT},
      {"bool", ZY_TY_INT},        {"_Bool", ZY_TY_INT},
  };
  for (size_t k = 0; k < sizeof names / sizeof *names; k++)
    if (strlen(names[k].name) == len && !strncmp(s, names[k].name, len))
      return names[k].ty;
  if (len > 2 && s[0] == 'p' && s[1] >= '1' && s[1] <= '9')
    return ZY_TY_PTR; /* "p1 double", "p2 _ZTS1S": pointers */
  return ZY_TY_UNKNOWN;
}

/* clang describes the fields a struct copy moves in !tbaa.struct:
 * (offset, size, access tag) triples.  Both sides hold those types. */
static int tbaa_struct(ZyTypes *T, LLVMValueRef call, LLVMValueRef dst,
                       LLVMValueRef src) {
  unsigned kind = LLVMGetMDKindIDInContext(LLVMGetModuleContext(T->mod),
                                           "tbaa.struct", 11);
  LLVMValueRef md = LLVMGetMetadata(call, kind);
  unsigned n = md ? LLVMGetMDNodeNumOperands(md) : 0;
  if (!n || n > 96 || n % 3)
    return 0;
  LLVMValueRef ops[96];
  LLVMGetMDNodeOperands(md, ops);
  int c = 0;
  for (unsigned k = 0; k + 2 < n; k += 3) {
    ZyTy ty = tbaa_type(ops[k + 2]);
    if (!ops[k] || !LLVMIsAConstantInt(ops[k]) || ty == ZY_TY_UNKNOWN)
      continue;
    long long path[2] = {-1, LLVMConstIntGetSExtValue(ops[k])};
    c |= zy_tt_insert(tree(T, dst), path, 2, ty);
    c |= zy_tt_insert(tree(T, src), path, 2, ty);
  }
  return c;
}

/* The arrays a BLAS routine receives hold floats or doubles at every
 * offset; the scalars of the Fortran ABI are in memory too. */
static int blas_args(ZyTypes *T, LLVMValueRef call) {
  int fortran, single, c = 0;
  const ZyBlasRoutine *r =
      zy_blas_routine(LLVMGetCalledValue(call), &fortran, &single);
  if (!r)
    return 0;
  unsigned off = !fortran && (strchr(r->args, 'A') || strchr(r->args, 'C'));
  ZyTy fp = single ? ZY_TY_FLOAT : ZY_TY_DOUBLE;
  const long long every[2] = {-1, -1};
  for (unsigned k = 0; r->args[k] && off + k < LLVMGetNumArgOperands(call);
       k++) {
    char l = r->args[k];
    LLVMValueRef op = LLVMGetOperand(call, off + k);
    if (LLVMGetTypeKind(LLVMTypeOf(op)) != LLVMPointerTypeKind)
      continue;
    if (strchr("xyAC", l) || l == 'a')
      c |= zy_tt_insert(tree(T, op), every, 2, fp);
    else if (strchr("nil", l))
      c |= zy_tt_insert(tree(T, op), every, 2, ZY_TY_INT);
  }
  return c;
}

static int rule_call(ZyTypes *T, LLVMValueRef call) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  if (!callee || !LLVMIsAFunction(callee))
    return 0;
  const char *name = LLVMGetValueName(callee);
  unsigned nargs = LLVMGetNumArgOperands(call);
  int c = 0;
  if (!strncmp(name, "llvm.memcpy", 11) || !strncmp(name, "llvm.memmove", 12)) {
    LLVMValueRef dst = LLVMGetOperand(call, 0), src = LLVMGetOperand(call, 1);
    LLVMValueRef n = LLVMGetOperand(call, 2);
    long long len = LLVMIsAConstantInt(n) ? LLVMConstIntGetSExtValue(n) : -1;
    c |= moved(T, src, dst, 0, 0, len);
    c |= moved(T, dst, src, 0, 0, len);
    c |= tbaa_struct(T, call, dst, src);
    return c | mark_int(T, LLVMGetOperand(call, 2));
  }
  if (LLVMIsDeclaration(callee))
    return blas_args(T, call);
  add_function(T, callee);
  for (unsigned k = 0; k < nargs && k < LLVMCountParams(callee); k++)
    c |= same(T, LLVMGetOperand(call, k), LLVMGetParam(callee, k));
  ZyVec *rets = zy_map_get(&T->rets, callee);
  for (size_t k = 0; rets && k < rets->len; k++)
    c |= same(T, call, rets->data[k]);
  return c;
}

/* An integer phi of small constants only, one of them not zero: which
 * way control went (a branch index a gradient caches, a flag), a number
 * rather than the bits of a float. */
static int choice_index(LLVMValueRef phi) {
  if (LLVMGetTypeKind(LLVMTypeOf(phi)) != LLVMIntegerTypeKind)
    return 0;
  int nonzero = 0;
  for (unsigned k = 0; k < LLVMCountIncoming(phi); k++) {
    LLVMValueRef v = LLVMGetIncomingValue(phi, k);
    if (LLVMIsUndef(v) || LLVMIsPoison(v))
      continue;
    if (!LLVMIsAConstantInt(v) || LLVMGetIntTypeWidth(LLVMTypeOf(v)) > 64)
      return 0;
    long long c = LLVMConstIntGetSExtValue(v);
    if (c < -4096 || c > 4096)
      return 0;
    nonzero |= c != 0;
  }
  return nonzero;
}

static int rule(ZyTypes *T, LLVMValueRef i) {
  int c = 0;
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMLoad:
    return value_in_memory(T, i, LLVMTypeOf(i), LLVMGetOperand(i, 0));
  case LLVMStore: {
    LLVMValueRef v = LLVMGetOperand(i, 0);
    return value_in_memory(T, v, LLVMTypeOf(v), LLVMGetOperand(i, 1));
  }
  case LLVMGetElementPtr:
    return rule_gep(T, i);
  case LLVMPHI:
    for (unsigned k = 0; k < LLVMCountIncoming(i); k++)
      c |= same(T, i, LLVMGetIncomingValue(i, k));
    if (choice_index(i))
      c |= mark_int(T, i);
    return c;
  case LLVMSelect:
    return same(T, i, LLVMGetOperand(i, 1)) | same(T, i, LLVMGetOperand(i, 2));
  case LLVMBitCast:
  case LLVMAddrSpaceCast:
  case LLVMPtrToInt:
  case LLVMIntToPtr:
  case LLVMFreeze:
    return same(T, i, LLVMGetOperand(i, 0));
  case LLVMTrunc:
  case LLVMZExt:
  case LLVMSExt:
  case LLVMMul:
  case LLVMSDiv:
  case LLVMUDiv:
  case LLVMSRem:
  case LLVMURem:
  case LLVMShl:
  case LLVMLShr:
  case LLVMAShr:
    c |= mark_int(T, i);
    for (int k = 0; k < LLVMGetNumOperands(i); k++)
      c |= mark_int(T, LLVMGetOperand(i, k));
    return c;
  case LLVMSIToFP:
  case LLVMUIToFP:
    return mark_int(T, LLVMGetOperand(i, 0));
  case LLVMFPToSI:
  case LLVMFPToUI:
    return mark_int(T, i);
  case LLVMExtractValue: {
    LLVMValueRef agg = LLVMGetOperand(i, 0);
    LLVMTypeRef m;
    long long off = path_offset(T, LLVMTypeOf(agg), i, &m);
    return member(T, agg, i, m, off);
  }
  case LLVMInsertValue: {
    LLVMValueRef agg = LLVMGetOperand(i, 0), part = LLVMGetOperand(i, 1);
    LLVMTypeRef m;
    long long off = path_offset(T, LLVMTypeOf(agg), i, &m);
    return same_outside(T, i, agg, off, off + size_of(T, m)) |
           member(T, i, part, m, off);
  }
  case LLVMExtractElement:
  case LLVMInsertElement:
  case LLVMShuffleVector: {
    /* Vectors are uniform: lanes share the vector's facts. */
    LLVMValueRef a = LLVMGetOperand(i, 0);
    c |= same(T, i, a);
    if (LLVMGetInstructionOpcode(i) != LLVMExtractElement)
      c |= same(T, i, LLVMGetOperand(i, 1));
    return c;
  }
  case LLVMCall:
    return rule_call(T, i);
  default:
    return 0;
  }
}

static void add_function(ZyTypes *T, LLVMValueRef fn) {
  if (zy_map_has(&T->in_func, fn))
    return;
  zy_vec_push(&T->funcs, fn);
  zy_map_put(&T->in_func, fn, fn);
  ZyVec *rets = calloc(1, sizeof *rets);
  zy_map_put(&T->rets, fn, rets);
  /* The trees seeded here are new: their instructions have not run yet
   * (absent from `stale`), nothing else needs to learn of them. */
  unsigned ntouched = T->ntouched;
  int overflow = T->overflow;
  for (unsigned k = 0; k < LLVMCountParams(fn); k++)
    seed_value(T, LLVMGetParam(fn, k));
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      if (LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMVoidTypeKind)
        seed_value(T, i);
      if (LLVMGetInstructionOpcode(i) == LLVMRet && LLVMGetNumOperands(i))
        zy_vec_push(rets, LLVMGetOperand(i, 0));
    }
  T->ntouched = ntouched;
  T->overflow = overflow;
}

#define STALE ((void *)(uintptr_t)1)
#define FRESH ((void *)(uintptr_t)2)

static void set_stale(ZyTypes *T, LLVMValueRef i) {
  LLVMBasicBlockRef bb = LLVMGetInstructionParent(i);
  if (bb && zy_map_has(&T->in_func, LLVMGetBasicBlockParent(bb)))
    zy_map_put(&T->stale, i, STALE);
}

/* The calls of `fn` among the analysed functions must run again. */
static void calls_stale(ZyTypes *T, LLVMValueRef fn) {
  for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef c = LLVMGetUser(u);
    if (LLVMIsACallInst(c) && LLVMGetCalledValue(c) == fn)
      set_stale(T, c);
  }
}

/* The tree of `v` changed: the rules that read it must run again (its
 * own, its users', and for a parameter or returned value the calls of
 * its function). */
static void changed_value(ZyTypes *T, LLVMValueRef v) {
  if (LLVMIsAInstruction(v))
    set_stale(T, v);
  else if (LLVMIsAArgument(v))
    calls_stale(T, LLVMGetParamParent(v));
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (!LLVMIsAInstruction(user))
      continue;
    set_stale(T, user);
    if (LLVMGetInstructionOpcode(user) == LLVMRet)
      calls_stale(T, LLVMGetBasicBlockParent(LLVMGetInstructionParent(user)));
  }
}

/* Runs the rule of `i` if a tree it reads changed since it last ran. */
static int run_rule(ZyTypes *T, LLVMValueRef i) {
  if (zy_map_get(&T->stale, i) == FRESH)
    return 0;
  zy_map_put(&T->stale, i, FRESH);
  T->ntouched = 0;
  T->overflow = 0;
  stat_rules++;
  int c = rule(T, i);
  if (T->overflow) {
    /* Too many trees to follow: every rule runs again. */
    for (size_t k = 0; k < T->stale.order.len; k++)
      zy_map_put(&T->stale, T->stale.order.data[k], STALE);
  } else {
    for (unsigned k = 0; k < T->ntouched; k++) {
      LLVMValueRef v = T->touched[k];
      if (((ZyTT *)zy_map_get(&T->trees, v))->gen == T->touched_gen[k])
        continue;
      /* Later reads of the same value: already handled. */
      for (unsigned j = k + 1; j < T->ntouched; j++)
        if (T->touched[j] == v)
          T->touched_gen[j] = ((ZyTT *)zy_map_get(&T->trees, v))->gen;
      changed_value(T, v);
    }
  }
  return c;
}

ZyTypes *zy_types_analyze(LLVMValueRef fn, const ZyTT *arg_seeds) {
  ZyTypes *T = calloc(1, sizeof *T);
  T->mod = LLVMGetGlobalParent(fn);
  T->td = LLVMGetModuleDataLayout(T->mod);
  stat_analyses++;
  add_function(T, fn);
  for (unsigned k = 0; arg_seeds && k < LLVMCountParams(fn); k++)
    zy_tt_merge(tree(T, LLVMGetParam(fn, k)), &arg_seeds[k]);
  /* Facts only grow, so this ends; rounds alternate direction so facts
   * flowing backwards converge as fast as forward ones, and the cap guards
   * against pathological growth of offsets.  Each round runs only the
   * rules whose trees changed (run_rule). */
  for (int round = 0, changed = 1; changed && round < 200; round++) {
    changed = 0;
    stat_rounds++;
    for (size_t f = 0; f < T->funcs.len; f++) {
      LLVMValueRef fn = T->funcs.data[f];
      if (round % 2 == 0) {
        for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
             bb = LLVMGetNextBasicBlock(bb))
          for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
               i = LLVMGetNextInstruction(i))
            changed |= run_rule(T, i);
      } else {
        for (LLVMBasicBlockRef bb = LLVMGetLastBasicBlock(fn); bb;
             bb = LLVMGetPreviousBasicBlock(bb))
          for (LLVMValueRef i = LLVMGetLastInstruction(bb); i;
               i = LLVMGetPreviousInstruction(i))
            changed |= run_rule(T, i);
      }
    }
  }
  return T;
}

void zy_types_stats(unsigned long long *analyses, unsigned long long *rounds,
                    unsigned long long *rules) {
  *analyses = stat_analyses;
  *rounds = stat_rounds;
  *rules = stat_rules;
}

void zy_types_free(ZyTypes *T) {
  if (!T)
    return;
  for (size_t k = 0; k < T->trees.order.len; k++) {
    ZyTT *t = zy_map_get(&T->trees, T->trees.order.data[k]);
    zy_tt_free(t);
    free(t);
  }
  for (size_t k = 0; k < T->rets.order.len; k++) {
    ZyVec *v = zy_map_get(&T->rets, T->rets.order.data[k]);
    zy_vec_free(v);
    free(v);
  }
  zy_map_free(&T->trees);
  zy_map_free(&T->rets);
  zy_map_free(&T->in_func);
  zy_map_free(&T->stale);
  for (int k = 0; k < 4; k++)
    zy_tt_free(&T->scratch[k]);
  zy_vec_free(&T->funcs);
  free(T);
}

const ZyTT *zy_types_of(const ZyTypes *T, LLVMValueRef v) {
  return zy_map_get(&T->trees, v);
}

ZyTy zy_types_memory(const ZyTypes *T, LLVMValueRef ptr, long long off) {
  const ZyTT *t = zy_types_of(T, ptr);
  long long path[2] = {-1, off};
  return t ? zy_tt_get(t, path, 2) : ZY_TY_UNKNOWN;
}

ZyTy zy_types_scalar(const ZyTypes *T, LLVMValueRef v) {
  const ZyTT *t = zy_types_of(T, v);
  return t ? zy_tt_get(t, WHOLE, 1) : ZY_TY_UNKNOWN;
}

/* --- Printer: print<zymase-types> --------------------------------------- */

static void put(char **s, size_t *len, const char *add) {
  size_t n = strlen(add);
  *s = realloc(*s, *len + n + 1);
  memcpy(*s + *len, add, n + 1);
  *len += n;
}

static void print_value(const ZyTypes *T, LLVMValueRef v, char **s,
                        size_t *len) {
  const ZyTT *t = zy_types_of(T, v);
  char *text = LLVMPrintValueToString(v), *p = text;
  while (*p == ' ')
    p++;
  char *meta = strstr(p, ", !");
  if (meta)
    *meta = 0;
  char *tt = zy_tt_str(t ? t : &(ZyTT){0});
  put(s, len, "  ");
  put(s, len, p);
  put(s, len, " : ");
  put(s, len, tt);
  put(s, len, "\n");
  free(tt);
  LLVMDisposeMessage(text);
}

void zy_print_types(LLVMValueRef fn, char **out) {
  ZyTypes *T = zy_types_analyze(fn, NULL);
  char *s = NULL;
  size_t len = 0;
  put(&s, &len, "types of '");
  put(&s, &len, LLVMGetValueName(fn));
  put(&s, &len, "':\n");
  for (unsigned k = 0; k < LLVMCountParams(fn); k++)
    print_value(T, LLVMGetParam(fn, k), &s, &len);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMVoidTypeKind)
        print_value(T, i, &s, &len);
  zy_types_free(T);
  *out = s;
}
