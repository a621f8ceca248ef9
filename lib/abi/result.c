/* result.c - packs what a lowered call returns (gradients, or the tape
 * and the primal result) into the return type the user declared.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "abi.h"

#include <stdio.h>
#include <string.h>

#include <llvm-c/Target.h>
#include <stdlib.h>

/* Whether type `t` holds a `want` at byte `off` (itself, or a member of
 * its structs, arrays and vectors). */
static int holds(LLVMTargetDataRef td, LLVMTypeRef t, unsigned long long off,
                 LLVMTypeRef want) {
  if (off == 0 && t == want)
    return 1;
  switch (LLVMGetTypeKind(t)) {
  case LLVMStructTypeKind:
    for (unsigned i = LLVMCountStructElementTypes(t); i-- > 0;) {
      unsigned long long o = LLVMOffsetOfElement(td, t, i);
      if (o <= off)
        return holds(td, LLVMStructGetTypeAtIndex(t, i), off - o, want);
    }
    return 0;
  case LLVMArrayTypeKind:
  case LLVMVectorTypeKind: {
    LLVMTypeRef e = LLVMGetElementType(t);
    unsigned long long size = LLVMABISizeOfType(td, e);
    unsigned long long n = LLVMGetTypeKind(t) == LLVMArrayTypeKind
                               ? LLVMGetArrayLength(t)
                               : LLVMGetVectorSize(t);
    return size && off < n * size && holds(td, e, off % size, want);
  }
  default:
    return 0;
  }
}

/* Each field must land on a member of its own type in the declared
 * return type; otherwise the caller would read the bits as something
 * else. */
static int check_layout(ZyCall *c, LLVMTargetDataRef td, LLVMTypeRef gt,
                        unsigned from, const char *noun, const char *hint) {
  unsigned k = LLVMCountStructElementTypes(gt);
  for (unsigned f = from; f < k; f++) {
    LLVMTypeRef want = LLVMStructGetTypeAtIndex(gt, f);
    unsigned long long off = LLVMOffsetOfElement(td, gt, f);
    if (holds(td, c->rt, off, want))
      continue;
    char *ws = zy_abi_type_str(want);
    char *rs = zy_abi_type_str(c->rt);
    zy_error(ZY_ERR_BAD_RETURN, c->fn, c->call, hint,
             "%s %u (%s) does not match the declared return type %s at "
             "byte %llu",
             noun, f + 1 - from, ws, rs, off);
    free(ws);
    free(rs);
    return -1;
  }
  return 0;
}

/* The layout of what is packed: `pbytes` raw bytes (if any), then the
 * fields of `gt` at C offsets. */
static LLVMTypeRef packed_type(ZyCall *c, LLVMTypeRef gt,
                               unsigned long long pbytes) {
  LLVMTypeRef fields[8];
  unsigned n = 0, k = LLVMCountStructElementTypes(gt);
  fields[n++] = LLVMArrayType2(LLVMInt8TypeInContext(c->zm->ctx), pbytes);
  for (unsigned f = 0; f < k && n < 8; f++)
    fields[n++] = LLVMStructGetTypeAtIndex(gt, f);
  return LLVMStructTypeInContext(c->zm->ctx, fields, n, 0);
}

static int pack(ZyCall *c, LLVMValueRef prefix, unsigned long long pbytes,
                LLVMValueRef v, const char *noun, const char *hint);

int zy_abi_pack(ZyCall *c, LLVMValueRef v, const char *noun, const char *hint) {
  return pack(c, NULL, 0, v, noun, hint);
}

int zy_abi_pack_after(ZyCall *c, LLVMValueRef prefix, unsigned long long pbytes,
                      LLVMValueRef v, const char *noun, const char *hint) {
  return pack(c, prefix, pbytes, v, noun, hint);
}

static int pack(ZyCall *c, LLVMValueRef prefix, unsigned long long pbytes,
                LLVMValueRef v, const char *noun, const char *hint) {
  LLVMBuilderRef b = c->b;
  LLVMTypeRef rt = c->rt;
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(c->zm->mod);
  LLVMTypeRef gt = LLVMTypeOf(v);
  int none = LLVMGetTypeKind(gt) == LLVMVoidTypeKind;
  unsigned k = none ? 0 : LLVMCountStructElementTypes(gt);
  if (prefix) { /* the raw bytes are field 0 */
    gt = packed_type(c, gt, pbytes);
    none = 0;
  }
  unsigned from = prefix ? 1 : 0;
  if (!c->out && LLVMGetTypeKind(rt) == LLVMVoidTypeKind) {
    if (prefix)
      return zy_error(ZY_ERR_BAD_RETURN, c->fn, c->call, hint,
                      "the call returns void, so the tape would be lost");
    /* As Enzyme: the gradients of active scalars are dropped (those of
     * dup pointers are in their shadows anyway). */
    if (k && !strcmp(noun, "gradient")) {
      char how[256];
      snprintf(how, sizeof how,
               "declare %s to return double, or a struct of one field per "
               "active argument, or pass the arguments as enzyme_const",
               LLVMGetValueName(LLVMGetCalledValue(c->call)));
      zy_warning(ZY_ERR_BAD_RETURN, c->fn, c->call, how,
                 "the call returns void: the gradient%s of %u active "
                 "argument%s %s dropped",
                 k == 1 ? "" : "s", k, k == 1 ? "" : "s",
                 k == 1 ? "is" : "are");
    } else if (k)
      return zy_error(ZY_ERR_BAD_RETURN, c->fn, c->call, hint,
                      "the call returns void but there %s %u %s%s",
                      k == 1 ? "is" : "are", k, noun, k == 1 ? "" : "s");
    return 0;
  }
  if (k == 1 && !prefix && !c->out && zy_type_differentiable(rt) &&
      LLVMGetTypeKind(LLVMStructGetTypeAtIndex(gt, 0)) != LLVMVectorTypeKind &&
      LLVMGetTypeKind(rt) != LLVMStructTypeKind &&
      LLVMGetTypeKind(rt) != LLVMVectorTypeKind) {
    LLVMValueRef d = LLVMBuildExtractValue(b, v, 0, "");
    if (zy_type_differentiable(LLVMTypeOf(d))) {
      LLVMValueRef r = d;
      if (LLVMTypeOf(d) != rt)
        r = LLVMBuildFPCast(b, d, rt, "");
      LLVMReplaceAllUsesWith(c->call, r);
      return 0;
    }
  }
  unsigned long long need = none ? 0 : LLVMABISizeOfType(td, gt);
  unsigned long long have = LLVMABISizeOfType(td, rt);
  if (need > have) {
    char *s = zy_abi_type_str(rt), what[96] = "";
    if (prefix)
      snprintf(what, sizeof what, "enzyme_allocated's %llu bytes of tape%s%s",
               pbytes, k ? " and the " : "", k ? noun : "");
    else
      snprintf(what, sizeof what, "the %u %ss", k, noun);
    zy_error(ZY_ERR_BAD_RETURN, c->fn, c->call, hint,
             "the declared return type (%s, %llu bytes) cannot hold %s "
             "(%llu bytes)",
             s, have, what, need);
    free(s);
    return -1;
  }
  if (k && check_layout(c, td, gt, from, noun, hint))
    return -1;
  LLVMValueRef buf = c->out;
  if (!buf) {
    LLVMBuilderRef eb = LLVMCreateBuilderInContext(c->zm->ctx);
    LLVMPositionBuilderBefore(
        eb, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(c->caller)));
    buf = LLVMBuildAlloca(eb, rt, "zymase.result");
    LLVMDisposeBuilder(eb);
    LLVMBuildStore(b, LLVMConstNull(rt), buf);
  }
  LLVMTypeRef i8 = LLVMInt8TypeInContext(c->zm->ctx);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c->zm->ctx);
  if (prefix) /* (the declared type's alignment may be 1) */
    LLVMBuildMemCpy(b, buf, 1, prefix, 1, LLVMConstInt(i64, pbytes, 0));
  for (unsigned f = from; f < k + from; f++) {
    LLVMValueRef off = LLVMConstInt(i64, LLVMOffsetOfElement(td, gt, f), 0);
    LLVMValueRef p = LLVMBuildGEP2(b, i8, buf, &off, 1, "");
    LLVMValueRef st =
        LLVMBuildStore(b, LLVMBuildExtractValue(b, v, f - from, ""), p);
    if (prefix) /* after the tape's bytes: maybe misaligned */
      LLVMSetAlignment(st, 1);
  }
  if (!c->out)
    LLVMReplaceAllUsesWith(c->call, LLVMBuildLoad2(b, rt, buf, ""));
  return 0;
}
