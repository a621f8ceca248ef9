/* call.c - reads a call to an Enzyme entry point: the declared result,
 * the function to differentiate, the markers and the arguments.  Shared
 * by __enzyme_autodiff and the split-mode entry points.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "abi.h"

#include <llvm-c/DebugInfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *zy_abi_type_str(LLVMTypeRef t) {
  if (LLVMGetTypeKind(t) == LLVMStructTypeKind && LLVMGetStructName(t)) {
    char *s = malloc(strlen(LLVMGetStructName(t)) + 2);
    sprintf(s, "%%%s", LLVMGetStructName(t));
    return s;
  }
  char *m = LLVMPrintTypeToString(t), *s = strdup(m);
  LLVMDisposeMessage(m);
  return s;
}

static const struct {
  const char *name;
  ZyMarker m;
} known[] = {
      {"const", ZY_MARK_CONST},
      {"out", ZY_MARK_OUT},
      {"active", ZY_MARK_OUT}, /* the name of OUT_DIFF in Enzyme's activity
                                  strings (its MLIR passes) */
      {"dup", ZY_MARK_DUP},
      {"dupnoneed", ZY_MARK_DUPNONEED},
      {"dupv", ZY_MARK_DUPV},
      {"dupnoneedv", ZY_MARK_DUPNONEEDV},
      {"width", ZY_MARK_WIDTH},
      {"vector", ZY_MARK_VECTOR},
      {"scalar", ZY_MARK_SCALAR},
      {"allocated", ZY_MARK_ALLOCATED},
      {"tape", ZY_MARK_TAPE},
      {"nofree", ZY_MARK_NOFREE},
      {"noret", ZY_MARK_NORET},
      {"primal_return", ZY_MARK_PRIMAL_RETURN},
      {"const_return", ZY_MARK_CONST_RETURN},
      {"active_return", ZY_MARK_ACTIVE_RETURN},
      {"dup_return", ZY_MARK_DUP_RETURN},
};

/* C++ declarations of the entry points without extern "C" are mangled
 * (`_Z17__enzyme_autodiffPvz`); Enzyme finds its names anywhere in a
 * symbol, so a function of the global namespace is read here as its
 * identifier followed by the mangled parameter types. */
const char *zy_abi_entry_name(const char *name) {
  const char *p = name;
  if (strncmp(p, "_Z", 2))
    return name;
  p += 2 + (p[2] == 'L'); /* internal linkage */
  char *end;
  unsigned long n = strtoul(p, &end, 10);
  if (end == p || n < 9 || strncmp(end, "__enzyme_", 9) || strlen(end) < n)
    return name;
  return end;
}

/* The marker a global named `name` is. */
static ZyMarker marker_named(const char *name) {
  if (strncmp(name, "enzyme_", 7))
    return ZY_MARK_NONE;
  for (size_t i = 0; i < sizeof known / sizeof *known; i++)
    if (!strcmp(name + 7, known[i].name))
      return known[i].m;
  return ZY_MARK_OTHER;
}

int zy_abi_marker_known(const char *name) {
  ZyMarker m = marker_named(name);
  return m != ZY_MARK_NONE && m != ZY_MARK_OTHER;
}

ZyMarker zy_abi_marker(LLVMValueRef a, const char **name) {
  LLVMValueRef gv = a;
  if (LLVMIsALoadInst(a))
    gv = LLVMGetOperand(a, 0);
  /* In device code the marker is a global of the global address space,
   * read through a cast to the generic one. */
  while (LLVMIsAConstantExpr(gv) &&
         (LLVMGetConstOpcode(gv) == LLVMAddrSpaceCast ||
          LLVMGetConstOpcode(gv) == LLVMBitCast))
    gv = LLVMGetOperand(gv, 0);
  if (!LLVMIsAGlobalVariable(gv))
    return ZY_MARK_NONE;
  *name = LLVMGetValueName(gv);
  return marker_named(*name);
}

/* The function `v` names, through casts and aliases. */
static LLVMValueRef function_of(LLVMValueRef v) {
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

static LLVMAttributeRef sret_attribute(LLVMValueRef call) {
  unsigned sret = LLVMGetEnumAttributeKindForName("sret", 4);
  return LLVMGetNumArgOperands(call)
             ? LLVMGetCallSiteEnumAttribute(call, 1, sret)
             : NULL;
}

LLVMValueRef zy_abi_target(LLVMValueRef call) {
  unsigned first = sret_attribute(call) ? 1 : 0;
  return first < LLVMGetNumArgOperands(call)
             ? function_of(LLVMGetOperand(call, first))
             : NULL;
}

int zy_abi_begin(ZyCall *c, ZyModule *zm, LLVMValueRef call, int split) {
  memset(c, 0, sizeof *c);
  c->zm = zm;
  c->call = call;
  c->split = split;
  c->allocated = -1;
  c->b = LLVMCreateBuilderInContext(zm->ctx);
  LLVMPositionBuilderBefore(c->b, call);
  LLVMSetCurrentDebugLocation2(c->b, LLVMInstructionGetDebugLoc(call));
  c->caller = LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
  c->rt = LLVMTypeOf(call);
  LLVMAttributeRef sa = sret_attribute(call);
  if (sa) {
    c->out = LLVMGetOperand(call, 0);
    c->rt = LLVMGetTypeAttributeValue(sa);
    c->first = 1;
  }
  const char *entry =
      zy_abi_entry_name(LLVMGetValueName(LLVMGetCalledValue(call)));
  c->fn = zy_abi_target(call);
  if (!c->fn) {
    char hint[160];
    snprintf(hint, sizeof hint,
             "pass the function itself: %.60s((void*)f, ...)", entry);
    return zy_error(ZY_ERR_BAD_CALL, c->caller, call, hint,
                    "the first argument of %s is not a function", entry);
  }
  if (LLVMIsDeclaration(c->fn))
    return zy_error(ZY_ERR_BAD_CALL, c->fn, call,
                    "define the function in the same translation unit",
                    "the function has no body here");
  if (LLVMIsFunctionVarArg(LLVMGlobalGetValueType(c->fn)))
    return zy_error(ZY_ERR_BAD_CALL, c->fn, call, NULL,
                    "variadic functions cannot be differentiated");
  return 0;
}

void zy_abi_end(ZyCall *c) {
  if (c->b)
    LLVMDisposeBuilder(c->b);
  c->b = NULL;
}

LLVMValueRef zy_abi_convert(LLVMBuilderRef b, LLVMValueRef a,
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

/* A split-mode option at operand *k (moved past its value, if any). */
static int read_option(ZyCall *c, ZyMarker m, const char *mname, unsigned *k) {
  if (c->fwd && m == ZY_MARK_PRIMAL_RETURN) {
    c->primal_return = 1;
    return 0;
  }
  if (!c->split)
    return zy_error(ZY_ERR_BAD_MARKER, c->fn, c->call,
                    "split-mode markers go to __enzyme_augmentfwd and "
                    "__enzyme_reverse",
                    "marker '%s' is not supported by __enzyme_autodiff", mname);
  unsigned n = LLVMGetNumArgOperands(c->call);
  if ((m == ZY_MARK_ALLOCATED || m == ZY_MARK_TAPE) && ++*k >= n)
    return zy_error(ZY_ERR_BAD_MARKER, c->fn, c->call, NULL,
                    "marker '%s' is not followed by its value", mname);
  LLVMValueRef v = m == ZY_MARK_ALLOCATED || m == ZY_MARK_TAPE
                       ? LLVMGetOperand(c->call, *k)
                       : NULL;
  switch (m) {
  case ZY_MARK_ALLOCATED:
    if (!LLVMIsAConstantInt(v) || LLVMConstIntGetSExtValue(v) < 0)
      return zy_error(ZY_ERR_BAD_MARKER, c->fn, c->call, NULL,
                      "enzyme_allocated must be followed by a constant "
                      "size in bytes");
    c->allocated = LLVMConstIntGetSExtValue(v);
    return 0;
  case ZY_MARK_TAPE:
    if (LLVMGetTypeKind(LLVMTypeOf(v)) != LLVMPointerTypeKind)
      return zy_error(ZY_ERR_BAD_MARKER, c->fn, c->call, NULL,
                      "enzyme_tape must be followed by a pointer to the "
                      "tape's buffer");
    c->tape_ptr = v;
    return 0;
  case ZY_MARK_NOFREE:
    c->nofree = 1;
    return 0;
  case ZY_MARK_NORET:
    c->noret = 1;
    return 0;
  case ZY_MARK_PRIMAL_RETURN:
    c->primal_return = 1;
    return 0;
  default: /* the return's activity */
    c->ret_kind = m;
    c->ret_name = mname;
    return 0;
  }
}

static int is_option(ZyMarker m) {
  return m >= ZY_MARK_ALLOCATED && m <= ZY_MARK_DUP_RETURN;
}

/* Argument `a` of type mismatch for parameter p. */
static int bad_argument(ZyCall *c, LLVMValueRef a, LLVMTypeRef want,
                        unsigned p) {
  char *have = zy_abi_type_str(LLVMTypeOf(a));
  char *ws = zy_abi_type_str(want);
  /* A marker the optimizer folded to its value looks like this. */
  const char *hint = LLVMIsAConstantInt(a)
                         ? "if this argument was meant to be a marker, "
                           "declare the markers without 'static' (the "
                           "optimizer folds static markers to 0)"
                         : NULL;
  zy_error(ZY_ERR_BAD_CALL, c->fn, c->call, hint,
           "argument %u has type %s but parameter %u of '%s' has type %s",
           p + 1, have, p + 1, LLVMGetValueName(c->fn), ws);
  free(have);
  free(ws);
  return -1;
}

/* Forward mode: the tangent of floating-point parameter p, at operand
 * ++*k. */
static int read_tangent(ZyCall *c, ZyMarker m, const char *mname,
                        LLVMTypeRef pt, unsigned p, unsigned *k) {
  if (m == ZY_MARK_OUT)
    return zy_error(ZY_ERR_BAD_MARKER, c->fn, c->call,
                    "in forward mode pass the tangent after the value, or "
                    "mark the argument enzyme_const",
                    "'%s' marks argument %u: __enzyme_fwddiff takes no "
                    "enzyme_out arguments",
                    mname, p + 1);
  if (m == ZY_MARK_DUPV || m == ZY_MARK_DUPNONEEDV)
    return zy_error(ZY_ERR_BAD_MARKER, c->fn, c->call,
                    "pass the value's tangents after it, one per direction",
                    "'%s' marks argument %u, which is not a pointer", mname,
                    p + 1);
  for (unsigned j = 0; j < c->width; j++) {
    if (++*k >= LLVMGetNumArgOperands(c->call) && c->width == 1)
      return zy_error(ZY_ERR_BAD_MARKER, c->fn, c->call,
                      "pass the tangent after the value, or mark the "
                      "argument enzyme_const",
                      "the tangent of argument %u is missing", p + 1);
    if (*k >= LLVMGetNumArgOperands(c->call))
      return zy_error(ZY_ERR_BAD_MARKER, c->fn, c->call,
                      "with enzyme_width N, pass N tangents after the value",
                      "tangent %u of argument %u is missing", j + 1, p + 1);
    LLVMValueRef a = LLVMGetOperand(c->call, *k);
    LLVMValueRef t = zy_abi_convert(c->b, a, pt);
    if (!t)
      return bad_argument(c, a, pt, p);
    c->shadows[c->nshadows++] = t;
  }
  c->sig.active_args |= 1ull << p;
  return 0;
}

/* The shadows of pointer parameter p in vector mode: those at operand
 * ++*k and on (one per lane), or with enzyme_dupv's `stride` the one
 * there and those `stride` bytes after each other. */
static int read_shadows(ZyCall *c, LLVMValueRef stride, unsigned p,
                        unsigned *k) {
  unsigned n = LLVMGetNumArgOperands(c->call), base = c->nshadows;
  for (unsigned j = 0; j < c->width; j++) {
    if (j == 0 || !stride) {
      if (++*k >= n)
        return zy_error(ZY_ERR_BAD_MARKER, c->fn, c->call,
                        "pass the shadow after the pointer (with "
                        "enzyme_width N, N shadows, or enzyme_dupv, stride "
                        "and one), or mark the pointer enzyme_const",
                        "shadow %u of pointer argument %u is missing", j + 1,
                        p + 1);
      LLVMValueRef sh = LLVMGetOperand(c->call, *k);
      if (LLVMGetTypeKind(LLVMTypeOf(sh)) != LLVMPointerTypeKind)
        return zy_error(ZY_ERR_BAD_MARKER, c->fn, c->call, NULL,
                        "the shadow of pointer argument %u is not a pointer",
                        p + 1);
      c->shadows[c->nshadows++] = sh;
      continue;
    }
    LLVMTypeRef i64 = LLVMInt64TypeInContext(c->zm->ctx);
    LLVMValueRef off =
        LLVMBuildMul(c->b, LLVMBuildSExtOrBitCast(c->b, stride, i64, ""),
                     LLVMConstInt(i64, j, 0), "");
    c->shadows[c->nshadows++] = LLVMBuildGEP2(
        c->b, LLVMInt8TypeInContext(c->zm->ctx), c->shadows[base], &off, 1, "");
  }
  return 0;
}

/* Parameter p's activity and, for a pointer not marked constant, its
 * shadow at operand ++*k. */
static int read_activity(ZyCall *c, ZyMarker m, const char *mname,
                         LLVMValueRef stride, LLVMTypeRef pt, unsigned p,
                         unsigned *k) {
  unsigned n = LLVMGetNumArgOperands(c->call);
  LLVMTypeKind pk = LLVMGetTypeKind(pt);
  int fp = zy_type_differentiable(pt);
  if (c->fwd && fp && m != ZY_MARK_CONST)
    return read_tangent(c, m, mname, pt, p, k);
  if (m == ZY_MARK_OUT && !fp)
    return zy_error(ZY_ERR_BAD_MARKER, c->fn, c->call, NULL,
                    "%s marks argument %u, which is not a "
                    "floating-point value",
                    mname, p + 1);
  if ((m == ZY_MARK_DUP || m == ZY_MARK_DUPNONEED || m == ZY_MARK_DUPV ||
       m == ZY_MARK_DUPNONEEDV) &&
      pk != LLVMPointerTypeKind)
    return zy_error(ZY_ERR_BAD_MARKER, c->fn, c->call, NULL,
                    "'%s' marks argument %u, which is not a pointer", mname,
                    p + 1);
  if (pk == LLVMPointerTypeKind && m != ZY_MARK_CONST &&
      (c->width > 1 || stride)) {
    if (read_shadows(c, stride, p, k))
      return -1;
    c->sig.dup_args |= 1ull << p;
    return 0;
  }
  /* A pointer is dup unless marked constant: its shadow follows. */
  if (pk == LLVMPointerTypeKind && m != ZY_MARK_CONST) {
    if (++*k >= n)
      return zy_error(ZY_ERR_BAD_MARKER, c->fn, c->call,
                      "pass the shadow after the pointer, or mark the "
                      "pointer enzyme_const",
                      "the shadow of pointer argument %u is missing", p + 1);
    LLVMValueRef sh = LLVMGetOperand(c->call, *k);
    if (LLVMGetTypeKind(LLVMTypeOf(sh)) != LLVMPointerTypeKind)
      return zy_error(ZY_ERR_BAD_MARKER, c->fn, c->call, NULL,
                      "the shadow of pointer argument %u is not a pointer",
                      p + 1);
    c->sig.dup_args |= 1ull << p;
    c->shadows[c->nshadows++] = sh;
  }
  if (fp && m != ZY_MARK_CONST)
    c->sig.active_args |= 1ull << p;
  return 0;
}

/* enzyme_width, N anywhere in the call: c->width (1 without). */
static int read_width(ZyCall *c) {
  unsigned n = LLVMGetNumArgOperands(c->call);
  c->width = 1;
  for (unsigned k = c->first + 1; k < n; k++) {
    const char *mname = NULL;
    if (zy_abi_marker(LLVMGetOperand(c->call, k), &mname) != ZY_MARK_WIDTH)
      continue;
    LLVMValueRef v = k + 1 < n ? LLVMGetOperand(c->call, k + 1) : NULL;
    long long w = v && LLVMIsAConstantInt(v) ? LLVMConstIntGetSExtValue(v) : 0;
    if (w < 1 || w > 64)
      return zy_error(ZY_ERR_BAD_MARKER, c->fn, c->call, NULL,
                      "enzyme_width must be followed by a constant number "
                      "of directions from 1 to 64");
    c->width = (unsigned)w;
  }
  c->sig.width = c->width > 1 ? c->width : 0;
  return 0;
}

int zy_abi_read_arguments(ZyCall *c) {
  if (read_width(c))
    return -1;
  LLVMTypeRef fty = LLVMGlobalGetValueType(c->fn);
  unsigned nparams = LLVMCountParamTypes(fty);
  LLVMTypeRef params[64];
  if (nparams > 63)
    return zy_error(ZY_ERR_BAD_CALL, c->fn, c->call, NULL,
                    "functions with more than 63 parameters are not "
                    "supported");
  LLVMGetParamTypes(fty, params);
  unsigned n = LLVMGetNumArgOperands(c->call);
  for (unsigned k = c->first + 1; k < n; k++) {
    LLVMValueRef a = LLVMGetOperand(c->call, k);
    const char *mname = NULL;
    ZyMarker m = zy_abi_marker(a, &mname);
    if (is_option(m)) {
      if (read_option(c, m, mname, &k))
        return -1;
      continue;
    }
    if (m == ZY_MARK_OTHER)
      return zy_error(ZY_ERR_BAD_MARKER, c->fn, c->call, NULL,
                      "marker '%s' is not supported", mname);
    if (m == ZY_MARK_VECTOR || m == ZY_MARK_SCALAR)
      return zy_error(ZY_ERR_BAD_MARKER, c->fn, c->call, NULL,
                      "marker '%s' is __enzyme_batch's", mname);
    if (m == ZY_MARK_WIDTH) { /* read_width read it */
      k++;
      continue;
    }
    LLVMValueRef stride = NULL;
    if (m == ZY_MARK_DUPV || m == ZY_MARK_DUPNONEEDV) {
      stride = ++k < n ? LLVMGetOperand(c->call, k) : NULL;
      if (!stride || LLVMGetTypeKind(LLVMTypeOf(stride)) != LLVMIntegerTypeKind)
        return zy_error(ZY_ERR_BAD_MARKER, c->fn, c->call,
                        "write enzyme_dupv, stride in bytes, pointer, shadow",
                        "marker '%s' is not followed by an integer stride",
                        mname);
    }
    if (c->nshadows + c->width > ZY_ABI_MAX_SHADOWS)
      return zy_error(ZY_ERR_BAD_CALL, c->fn, c->call, NULL,
                      "too many tangents and shadows (at most %u)",
                      ZY_ABI_MAX_SHADOWS);
    if (m != ZY_MARK_NONE) {
      if (++k >= n)
        return zy_error(ZY_ERR_BAD_MARKER, c->fn, c->call, NULL,
                        "marker '%s' is not followed by an argument", mname);
      a = LLVMGetOperand(c->call, k);
    }
    unsigned p = c->nargs;
    if (p >= nparams && c->split && m == ZY_MARK_NONE &&
        c->nextra < sizeof c->extra / sizeof *c->extra) {
      c->extraop[c->nextra] = k;
      c->extra[c->nextra++] = a; /* the return adjoint or the tape */
      continue;
    }
    if (p >= nparams)
      return zy_error(ZY_ERR_BAD_CALL, c->fn, c->call, NULL,
                      "too many arguments: '%s' takes %u",
                      LLVMGetValueName(c->fn), nparams);
    LLVMValueRef v = zy_abi_convert(c->b, a, params[p]);
    if (!v)
      return bad_argument(c, a, params[p], p);
    c->argop[c->nargs] = k; /* before read_activity moves past a shadow */
    if (read_activity(c, m, mname, stride, params[p], p, &k))
      return -1;
    c->args[c->nargs++] = v;
  }
  if (c->nargs != nparams)
    return zy_error(ZY_ERR_BAD_CALL, c->fn, c->call, NULL,
                    "too few arguments: '%s' takes %u, the call passes %u",
                    LLVMGetValueName(c->fn), nparams, c->nargs);
  return 0;
}
