/* autodiff.c - lowers __enzyme_autodiff(fn, [marker,] arg, ...) calls.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "abi.h"

#include "ad/irutil.h"

#include <llvm-c/Target.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum Marker { M_NONE, M_CONST, M_OUT, M_DUP, M_DUPNONEED, M_OTHER } Marker;

/* `t` as LLVM writes it, named structs by name only; free() it. */
static char *type_str(LLVMTypeRef t) {
  if (LLVMGetTypeKind(t) == LLVMStructTypeKind && LLVMGetStructName(t)) {
    char *s = malloc(strlen(LLVMGetStructName(t)) + 2);
    sprintf(s, "%%%s", LLVMGetStructName(t));
    return s;
  }
  char *m = LLVMPrintTypeToString(t), *s = strdup(m);
  LLVMDisposeMessage(m);
  return s;
}

/* A marker is the global `enzyme_<kind>` itself or a load from it. */
static Marker marker_of(LLVMValueRef a, const char **name) {
  LLVMValueRef gv = a;
  if (LLVMIsALoadInst(a))
    gv = LLVMGetOperand(a, 0);
  if (!LLVMIsAGlobalVariable(gv))
    return M_NONE;
  *name = LLVMGetValueName(gv);
  if (strncmp(*name, "enzyme_", 7))
    return M_NONE;
  const char *k = *name + 7;
  return !strcmp(k, "const")       ? M_CONST
         : !strcmp(k, "out")       ? M_OUT
         : !strcmp(k, "dup")       ? M_DUP
         : !strcmp(k, "dupnoneed") ? M_DUPNONEED
                                   : M_OTHER;
}

/* The function named by the first argument, through casts and aliases. */
static LLVMValueRef target_function(LLVMValueRef v) {
  for (int depth = 0; v && depth < 8; depth++) {
    if (LLVMIsAFunction(v))
      return v;
    if (LLVMIsAGlobalAlias(v))
      v = LLVMAliasGetAliasee(v);
    else if (LLVMIsAConstantExpr(v) || LLVMIsABitCastInst(v) ||
             LLVMIsAAddrSpaceCastInst(v))
      v = LLVMGetOperand(v, 0);
    else
      return NULL;
  }
  return NULL;
}

/* Converts a variadic argument to the parameter type: C promotes float
 * to double and small integers to int when calling a variadic function. */
static LLVMValueRef convert_arg(LLVMBuilderRef b, LLVMValueRef a,
                                LLVMTypeRef want) {
  LLVMTypeRef have = LLVMTypeOf(a);
  if (have == want)
    return a;
  LLVMTypeKind hk = LLVMGetTypeKind(have), wk = LLVMGetTypeKind(want);
  if (hk == LLVMDoubleTypeKind &&
      (wk == LLVMFloatTypeKind || wk == LLVMHalfTypeKind ||
       wk == LLVMBFloatTypeKind))
    return LLVMBuildFPTrunc(b, a, want, "");
  if (hk == LLVMIntegerTypeKind && wk == LLVMIntegerTypeKind &&
      LLVMGetIntTypeWidth(have) > LLVMGetIntTypeWidth(want))
    return LLVMBuildTrunc(b, a, want, "");
  return NULL;
}

typedef struct Lowering {
  ZyModule *zm;
  LLVMValueRef call, fn;
  LLVMBuilderRef b;
  ZySig sig;
  LLVMValueRef args[130]; /* primal arguments, then shadows, then dret */
  LLVMValueRef shadows[64];
  unsigned nargs, nshadows;
} Lowering;

/* Reads the arguments after the function: markers and values. */
static int read_arguments(Lowering *l, unsigned first) {
  LLVMTypeRef fty = LLVMGlobalGetValueType(l->fn);
  unsigned nparams = LLVMCountParamTypes(fty);
  LLVMTypeRef params[64];
  if (nparams > 63)
    return zy_error(ZY_ERR_BAD_CALL, l->fn, l->call, NULL,
                    "functions with more than 63 parameters are not "
                    "supported");
  LLVMGetParamTypes(fty, params);
  unsigned n = LLVMGetNumArgOperands(l->call);
  for (unsigned k = first; k < n; k++) {
    LLVMValueRef a = LLVMGetOperand(l->call, k);
    const char *mname = NULL;
    Marker m = marker_of(a, &mname);
    if (m != M_NONE) {
      if (m == M_OTHER)
        return zy_error(ZY_ERR_BAD_MARKER, l->fn, l->call, NULL,
                        "marker '%s' is not supported", mname);
      if (++k >= n)
        return zy_error(ZY_ERR_BAD_MARKER, l->fn, l->call, NULL,
                        "marker '%s' is not followed by an argument", mname);
      a = LLVMGetOperand(l->call, k);
    }
    unsigned p = l->nargs;
    if (p >= nparams)
      return zy_error(ZY_ERR_BAD_CALL, l->fn, l->call, NULL,
                      "too many arguments: '%s' takes %u",
                      LLVMGetValueName(l->fn), nparams);
    LLVMValueRef v = convert_arg(l->b, a, params[p]);
    if (!v) {
      char *have = type_str(LLVMTypeOf(a));
      char *want = type_str(params[p]);
      /* A marker the optimizer folded to its value looks like this. */
      const char *hint = LLVMIsAConstantInt(a)
                             ? "if this argument was meant to be a marker, "
                               "declare the markers without 'static' (the "
                               "optimizer folds static markers to 0)"
                             : NULL;
      zy_error(ZY_ERR_BAD_CALL, l->fn, l->call, hint,
               "argument %u has type %s but parameter %u of '%s' has type %s",
               p + 1, have, p + 1, LLVMGetValueName(l->fn), want);
      free(have);
      free(want);
      return -1;
    }
    LLVMTypeKind pk = LLVMGetTypeKind(params[p]);
    int fp = zy_type_differentiable(params[p]);
    if (m == M_OUT && !fp)
      return zy_error(ZY_ERR_BAD_MARKER, l->fn, l->call, NULL,
                      "enzyme_out marks argument %u, which is not a "
                      "floating-point value", p + 1);
    if ((m == M_DUP || m == M_DUPNONEED) && pk != LLVMPointerTypeKind)
      return zy_error(ZY_ERR_BAD_MARKER, l->fn, l->call, NULL,
                      "'%s' marks argument %u, which is not a pointer",
                      mname, p + 1);
    /* A pointer is dup unless marked constant: its shadow follows. */
    if (pk == LLVMPointerTypeKind && m != M_CONST) {
      if (++k >= n)
        return zy_error(ZY_ERR_BAD_MARKER, l->fn, l->call,
                        "pass the shadow after the pointer, or mark the "
                        "pointer enzyme_const",
                        "the shadow of pointer argument %u is missing",
                        p + 1);
      LLVMValueRef sh = LLVMGetOperand(l->call, k);
      if (LLVMGetTypeKind(LLVMTypeOf(sh)) != LLVMPointerTypeKind)
        return zy_error(ZY_ERR_BAD_MARKER, l->fn, l->call, NULL,
                        "the shadow of pointer argument %u is not a pointer",
                        p + 1);
      l->sig.dup_args |= 1ull << p;
      l->shadows[l->nshadows++] = sh;
    }
    if (fp && m != M_CONST)
      l->sig.active_args |= 1ull << p;
    l->args[l->nargs++] = v;
  }
  if (l->nargs != nparams)
    return zy_error(ZY_ERR_BAD_CALL, l->fn, l->call, NULL,
                    "too few arguments: '%s' takes %u, the call passes %u",
                    LLVMGetValueName(l->fn), nparams, l->nargs);
  return 0;
}

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

/* Each gradient must land on a member of its own type in the declared
 * return type; otherwise the caller would read the bits as something
 * else. */
static int check_layout(Lowering *l, LLVMTargetDataRef td, LLVMTypeRef gt,
                        LLVMTypeRef rt) {
  unsigned k = LLVMCountStructElementTypes(gt);
  for (unsigned f = 0; f < k; f++) {
    LLVMTypeRef want = LLVMStructGetTypeAtIndex(gt, f);
    unsigned long long off = LLVMOffsetOfElement(td, gt, f);
    if (holds(td, rt, off, want))
      continue;
    char *ws = type_str(want);
    char *rs = type_str(rt);
    zy_error(ZY_ERR_BAD_RETURN, l->fn, l->call,
             "declare a struct with one field per active argument, of the "
             "argument's type, in argument order",
             "gradient %u (%s) does not match the declared return type %s at "
             "byte %llu", f + 1, ws, rs, off);
    free(ws);
    free(rs);
    return -1;
  }
  return 0;
}

/* Stores the gradient struct `g` into the user's return type: its fields
 * at their natural C offsets (as a struct of those types would have
 * them), into the sret buffer `out` or into a value of type `rt`. */
static int pack_result(Lowering *l, LLVMValueRef grads, LLVMTypeRef rt,
                       LLVMValueRef out) {
  LLVMBuilderRef b = l->b;
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(l->zm->mod);
  LLVMTypeRef gt = LLVMTypeOf(grads);
  int none = LLVMGetTypeKind(gt) == LLVMVoidTypeKind;
  unsigned k = none ? 0 : LLVMCountStructElementTypes(gt);
  if (!out && LLVMGetTypeKind(rt) == LLVMVoidTypeKind) {
    if (k)
      return zy_error(ZY_ERR_BAD_RETURN, l->fn, l->call,
                      "declare __enzyme_autodiff to return double, or a "
                      "struct of one field per active argument",
                      "the call returns void but there %s %u gradient%s",
                      k == 1 ? "is" : "are", k, k == 1 ? "" : "s");
    return 0;
  }
  if (k == 1 && !out && zy_type_differentiable(rt) &&
      LLVMGetTypeKind(LLVMStructGetTypeAtIndex(gt, 0)) != LLVMVectorTypeKind &&
      LLVMGetTypeKind(rt) != LLVMStructTypeKind &&
      LLVMGetTypeKind(rt) != LLVMVectorTypeKind) {
    LLVMValueRef d = LLVMBuildExtractValue(b, grads, 0, "");
    LLVMValueRef r = d;
    if (LLVMTypeOf(d) != rt)
      r = LLVMBuildFPCast(b, d, rt, "");
    LLVMReplaceAllUsesWith(l->call, r);
    return 0;
  }
  unsigned long long need = none ? 0 : LLVMABISizeOfType(td, gt);
  unsigned long long have = LLVMABISizeOfType(td, rt);
  if (need > have) {
    char *s = type_str(rt);
    zy_error(ZY_ERR_BAD_RETURN, l->fn, l->call,
             "declare a struct with one field per active argument, in "
             "argument order",
             "the declared return type (%s, %llu bytes) cannot hold the %u "
             "gradients (%llu bytes)", s, have, k, need);
    free(s);
    return -1;
  }
  if (k && check_layout(l, td, gt, rt))
    return -1;
  LLVMValueRef buf = out;
  if (!buf) {
    LLVMBuilderRef eb = LLVMCreateBuilderInContext(l->zm->ctx);
    LLVMValueRef caller = LLVMGetBasicBlockParent(LLVMGetInstructionParent(l->call));
    LLVMPositionBuilderBefore(eb, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(caller)));
    buf = LLVMBuildAlloca(eb, rt, "zymase.gradients");
    LLVMDisposeBuilder(eb);
    LLVMBuildStore(b, LLVMConstNull(rt), buf);
  }
  LLVMTypeRef i8 = LLVMInt8TypeInContext(l->zm->ctx);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(l->zm->ctx);
  for (unsigned f = 0; f < k; f++) {
    LLVMValueRef off = LLVMConstInt(i64, LLVMOffsetOfElement(td, gt, f), 0);
    LLVMValueRef p = LLVMBuildGEP2(b, i8, buf, &off, 1, "");
    LLVMBuildStore(b, LLVMBuildExtractValue(b, grads, f, ""), p);
  }
  if (!out)
    LLVMReplaceAllUsesWith(l->call, LLVMBuildLoad2(b, rt, buf, ""));
  return 0;
}

static LLVMAttributeRef sret_of(LLVMValueRef call) {
  unsigned sret = LLVMGetEnumAttributeKindForName("sret", 4);
  return LLVMGetNumArgOperands(call)
             ? LLVMGetCallSiteEnumAttribute(call, 1, sret)
             : NULL;
}

LLVMValueRef zy_autodiff_target(LLVMValueRef call) {
  unsigned first = sret_of(call) ? 1 : 0;
  return first < LLVMGetNumArgOperands(call)
             ? target_function(LLVMGetOperand(call, first))
             : NULL;
}

static int lower(Lowering *l) {
  LLVMValueRef call = l->call;
  unsigned n = LLVMGetNumArgOperands(call), first = 0;
  LLVMValueRef out = NULL;
  LLVMTypeRef rt = LLVMTypeOf(call);
  LLVMAttributeRef sa = sret_of(call);
  if (sa) {
    out = LLVMGetOperand(call, 0);
    rt = LLVMGetTypeAttributeValue(sa);
    first = 1;
  }
  LLVMValueRef caller = LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
  l->fn = first < n ? target_function(LLVMGetOperand(call, first)) : NULL;
  if (!l->fn)
    return zy_error(ZY_ERR_BAD_CALL, caller, call,
                    "pass the function itself: __enzyme_autodiff((void*)f, ...)",
                    "the first argument of %s is not a function",
                    LLVMGetValueName(LLVMGetCalledValue(call)));
  if (LLVMIsDeclaration(l->fn))
    return zy_error(ZY_ERR_BAD_CALL, l->fn, call,
                    "define the function in the same translation unit",
                    "the function has no body here");
  if (LLVMIsFunctionVarArg(LLVMGlobalGetValueType(l->fn)))
    return zy_error(ZY_ERR_BAD_CALL, l->fn, call, NULL,
                    "variadic functions cannot be differentiated");
  if (read_arguments(l, first + 1))
    return -1;
  for (unsigned k = 0; k < l->nshadows; k++)
    l->args[l->nargs++] = l->shadows[k];
  LLVMTypeRef fret = LLVMGetReturnType(LLVMGlobalGetValueType(l->fn));
  if (zy_type_differentiable(fret)) {
    LLVMTypeKind k = LLVMGetTypeKind(fret);
    if (k == LLVMStructTypeKind || k == LLVMArrayTypeKind ||
        k == LLVMVectorTypeKind)
      return zy_error(ZY_ERR_BAD_RETURN, l->fn, call, NULL,
                      "the function returns an aggregate; __enzyme_autodiff "
                      "needs a scalar floating-point result to seed");
    l->sig.active_ret = 1;
    l->args[l->nargs++] = zy_const_fp(fret, 1.0);
  }
  /* What the caller's code says about the arguments' types seeds the
   * function's type analysis. */
  ZyTypes *ct = zy_types_analyze(caller, NULL);
  unsigned np = LLVMCountParams(l->fn);
  ZyTT *seeds = calloc(np + 1, sizeof *seeds);
  for (unsigned k = 0; k < np; k++) {
    const ZyTT *t = zy_types_of(ct, l->args[k]);
    if (t)
      zy_tt_merge(&seeds[k], t);
  }
  zy_types_free(ct);
  LLVMValueRef grad = zy_gradient(l->zm, l->fn, l->sig, seeds);
  for (unsigned k = 0; k < np; k++)
    zy_tt_free(&seeds[k]);
  free(seeds);
  if (!grad)
    return -1;
  LLVMValueRef grads = LLVMBuildCall2(l->b, LLVMGlobalGetValueType(grad), grad,
                                      l->args, l->nargs, "");
  if (pack_result(l, grads, rt, out))
    return -1;
  LLVMInstructionEraseFromParent(call);
  return 0;
}

int zy_lower_autodiff_call(ZyModule *zm, LLVMValueRef call) {
  Lowering l = {.zm = zm, .call = call};
  l.b = LLVMCreateBuilderInContext(zm->ctx);
  LLVMPositionBuilderBefore(l.b, call);
  int r = lower(&l);
  LLVMDisposeBuilder(l.b);
  return r;
}
