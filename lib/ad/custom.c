/* custom.c - custom gradients registered with
 * `void *__enzyme_register_gradient_f[3] = {f, aug, rev}`, called through
 * Enzyme's conventions from wrappers that have the engine's split-mode
 * signature (see zy_gradient_split), so a call to f is differentiated as
 * any split call.
 *
 * Enzyme's conventions, for f(a0, ..., an-1) returning R:
 *   aug(args):            args = each ai, a pointer followed by its shadow.
 *                         Returns nothing; R itself; {tape, R, shadow of R};
 *                         {R, shadow of R} (two fields of one type);
 *                         {tape, R}; or anything else, taken as the tape.
 *                         A struct returned in memory (sret) is read there.
 *   rev(args, [dR], [tape]): dR when R is floating point, the tape when aug
 *                         returns one.  Returns the adjoints of the
 *                         floating-point arguments, in order, laid out as a
 *                         C struct of them (one scalar returned as itself;
 *                         sret read from memory); pointer arguments
 *                         receive theirs through their shadows.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "custom.h"

#include "analysis/effects.h"
#include "analysis/registry.h"
#include "ir/irutil.h"

#include <llvm-c/Target.h>
#include <stdio.h>
#include <string.h>

/* How the user's augmented forward returns its results. */
typedef struct Shape {
  const ZyCustom *c;
  LLVMTypeRef ret;   /* f's return type                                 */
  LLVMTypeRef rt;    /* what aug returns (the sret type if in memory)    */
  int aug_sret, rev_sret;
  int tape, res, dres; /* field of rt, -1: none, -2: rt itself         */
  int rerun;         /* no result from aug: f runs again for it          */
  unsigned nuser;    /* aug's parameters in Enzyme's convention          */
} Shape;

static int is_ptr(LLVMTypeRef t) {
  return LLVMGetTypeKind(t) == LLVMPointerTypeKind;
}

static int has_sret(LLVMValueRef fn) {
  unsigned k = LLVMGetEnumAttributeKindForName("sret", 4);
  return LLVMCountParams(fn) > 0 && LLVMGetEnumAttributeAtIndex(fn, 1, k);
}

static LLVMTypeRef sret_type(LLVMValueRef fn) {
  unsigned k = LLVMGetEnumAttributeKindForName("sret", 4);
  return LLVMGetTypeAttributeValue(LLVMGetEnumAttributeAtIndex(fn, 1, k));
}

static int custom_error(const Shape *s, LLVMValueRef at, const char *hint,
                        const char *what) {
  char loc[400] = "";
  char where[460] = "";
  if (zy_llvm_global_location(s->c->reg, loc, sizeof loc))
    snprintf(where, sizeof where, " (%s)", loc);
  return zy_error(ZY_ERR_BAD_REGISTRATION, s->c->fn, at, hint,
                  "the custom gradient '%s'%s: %s",
                  LLVMGetValueName(s->c->reg), where, what);
}

static int is_fp_scalar(LLVMTypeRef t) {
  return zy_type_differentiable(t) &&
         LLVMGetTypeKind(t) != LLVMStructTypeKind &&
         LLVMGetTypeKind(t) != LLVMArrayTypeKind;
}

/* Reads what aug returns, as Enzyme does. */
static int shape_of(const ZyCustom *c, Shape *s) {
  LLVMTypeRef fty = LLVMGlobalGetValueType(c->fn);
  *s = (Shape){.c = c, .ret = LLVMGetReturnType(fty), .tape = -1, .res = -1,
               .dres = -1};
  unsigned np = LLVMCountParamTypes(fty);
  LLVMTypeRef params[64];
  if (np > 63)
    return custom_error(s, NULL, NULL, "more than 63 parameters");
  LLVMGetParamTypes(fty, params);
  for (unsigned k = 0; k < np; k++)
    s->nuser += is_ptr(params[k]) ? 2 : 1;
  s->aug_sret = has_sret(c->aug);
  s->rev_sret = has_sret(c->rev);
  s->rt = s->aug_sret ? sret_type(c->aug)
                      : LLVMGetReturnType(LLVMGlobalGetValueType(c->aug));
  int rvoid = LLVMGetTypeKind(s->ret) == LLVMVoidTypeKind;
  if (LLVMGetTypeKind(s->rt) == LLVMVoidTypeKind)
    ;
  else if (!rvoid && s->rt == s->ret)
    s->res = -2;
  else if (LLVMGetTypeKind(s->rt) == LLVMStructTypeKind &&
           LLVMCountStructElementTypes(s->rt) == 3)
    s->tape = 0, s->res = 1, s->dres = 2;
  else if (LLVMGetTypeKind(s->rt) == LLVMStructTypeKind &&
           LLVMCountStructElementTypes(s->rt) == 2 &&
           LLVMStructGetTypeAtIndex(s->rt, 0) ==
               LLVMStructGetTypeAtIndex(s->rt, 1))
    s->res = 0, s->dres = 1;
  else if (LLVMGetTypeKind(s->rt) == LLVMStructTypeKind &&
           LLVMCountStructElementTypes(s->rt) == 2)
    s->tape = 0, s->res = 1;
  else
    s->tape = -2;
  if (s->res >= 0 && LLVMStructGetTypeAtIndex(s->rt, s->res) != s->ret)
    return custom_error(s, NULL, NULL,
                        "the result the augmented forward pass returns does "
                        "not have the function's return type");
  /* Without the result from aug, a function without side effects can
   * simply run again for it. */
  s->rerun = !rvoid && s->res == -1 && !LLVMIsDeclaration(c->fn) &&
             !zy_effects_first_write(c->fn, NULL);
  return 0;
}

/* Checks that `fn` (aug or rev) takes `n` arguments of the given types
 * after its sret parameter, if any. */
static int check_params(const Shape *s, LLVMValueRef fn, int sret,
                        LLVMTypeRef *want, unsigned n, const char *what) {
  LLVMTypeRef fty = LLVMGlobalGetValueType(fn);
  unsigned have = LLVMCountParamTypes(fty) - (sret ? 1 : 0);
  LLVMTypeRef params[140];
  char msg[512];
  if (have != n || have > 139) {
    snprintf(msg, sizeof msg,
             "the %s '%s' takes %u parameters; Enzyme's convention for '%s' "
             "gives it %u",
             what, LLVMGetValueName(fn), have, LLVMGetValueName(s->c->fn), n);
    return custom_error(
        s, NULL,
        "pass each argument, every pointer followed by its shadow; the "
        "reverse pass then takes the return value's adjoint (when it is "
        "floating point) and the tape (when the augmented forward pass "
        "returns one)",
        msg);
  }
  LLVMGetParamTypes(fty, params);
  for (unsigned k = 0; k < n; k++)
    if (params[k + (sret ? 1 : 0)] != want[k]) {
      snprintf(msg, sizeof msg,
               "parameter %u of the %s '%s' does not have the type of the "
               "value Enzyme's convention passes there",
               k + 1, what, LLVMGetValueName(fn));
      return custom_error(s, NULL, NULL, msg);
    }
  return 0;
}

/* The arguments of aug and rev: each argument of f, a pointer followed by
 * its shadow (the wrapper's parameters: primal ones, then the shadows of
 * the dup ones).  Also their types, for checking. */
static int user_args(const Shape *s, LLVMValueRef w, ZySig sig,
                     LLVMValueRef *args, LLVMTypeRef *types) {
  unsigned np = LLVMCountParams(s->c->fn), n = 0, shadow = np;
  for (unsigned k = 0; k < np; k++) {
    LLVMValueRef p = LLVMGetParam(w, k);
    types[n] = LLVMTypeOf(p);
    args[n++] = p;
    if (!is_ptr(LLVMTypeOf(p)))
      continue;
    if (!(sig.dup_args >> k & 1)) {
      char msg[256];
      snprintf(msg, sizeof msg,
               "argument %u of '%s' is a pointer without a shadow (memory "
               "that carries no derivative), but the registered pair takes a "
               "shadow for every pointer",
               k + 1, LLVMGetValueName(s->c->fn));
      return custom_error(s, NULL,
                          "pass the pointer with enzyme_dup and a shadow",
                          msg);
    }
    types[n] = LLVMTypeOf(p);
    args[n++] = LLVMGetParam(w, shadow++);
  }
  return 0;
}

/* Calls `fn` (aug or rev) with `args`, through a buffer for its sret
 * parameter; returns what it returns (loaded from the buffer for sret). */
static LLVMValueRef call_user(LLVMBuilderRef b, LLVMValueRef fn, int sret,
                              LLVMValueRef *args, unsigned n,
                              LLVMValueRef *buf) {
  LLVMValueRef all[141];
  unsigned m = 0;
  if (sret) {
    *buf = LLVMBuildAlloca(b, sret_type(fn), "custom.sret");
    all[m++] = *buf;
  }
  memcpy(all + m, args, n * sizeof *args);
  LLVMValueRef r = LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, all,
                                  n + m, "");
  return sret ? LLVMBuildLoad2(b, sret_type(fn), *buf, "") : r;
}

static LLVMValueRef field(LLVMBuilderRef b, LLVMValueRef v, int idx) {
  return idx == -2 ? v : LLVMBuildExtractValue(b, v, idx, "");
}

/* The type of the tape the user's aug returns (ptr when none). */
static LLVMTypeRef user_tape_type(const Shape *s, LLVMContextRef ctx) {
  if (s->tape == -1)
    return LLVMPointerTypeInContext(ctx, 0);
  return s->tape == -2 ? s->rt : LLVMStructGetTypeAtIndex(s->rt, s->tape);
}

/* The augmented forward wrapper: runs aug, returns { result, shadow,
 * ptr tape } as zy_gradient_split's aug does.  A tape that is not a
 * pointer travels boxed on the heap; an inline tape is written to the
 * caller's memory (the wrapper's last parameter) as it is. */
static int build_aug(const Shape *s, ZySig sig, LLVMValueRef w) {
  LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(w));
  LLVMModuleRef mod = LLVMGetGlobalParent(w);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
  LLVMValueRef args[140];
  LLVMTypeRef types[140];
  if (user_args(s, w, sig, args, types) ||
      check_params(s, s->c->aug, s->aug_sret, types, s->nuser,
                   "augmented forward pass"))
    return -1;
  if (sig.dup_ret && s->dres == -1)
    return custom_error(s, NULL,
                        "return {tape, result, shadow of the result} from "
                        "the augmented forward pass",
                        "the caller needs the shadow of the returned pointer, "
                        "which the augmented forward pass does not return");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, w, "entry"));
  LLVMValueRef buf = NULL;
  LLVMValueRef r = call_user(b, s->c->aug, s->aug_sret, args, s->nuser, &buf);
  LLVMTypeRef wt = LLVMGetReturnType(LLVMGlobalGetValueType(w));
  int none = LLVMGetTypeKind(wt) == LLVMVoidTypeKind; /* inline, no result */
  LLVMValueRef out = none ? NULL : LLVMGetUndef(wt);
  unsigned f = 0, np = LLVMCountParams(s->c->fn);
  if (LLVMGetTypeKind(s->ret) != LLVMVoidTypeKind) {
    LLVMValueRef res = LLVMGetPoison(s->ret);
    if (s->res != -1) {
      res = field(b, r, s->res);
    } else if (s->rerun) {
      LLVMValueRef prim[64];
      for (unsigned k = 0; k < np; k++)
        prim[k] = LLVMGetParam(w, k);
      res = LLVMBuildCall2(b, LLVMGlobalGetValueType(s->c->fn), s->c->fn,
                           prim, np, "");
    }
    out = LLVMBuildInsertValue(b, out, res, f++, "");
  }
  if (sig.dup_ret)
    out = LLVMBuildInsertValue(b, out, field(b, r, s->dres), f++, "");
  LLVMValueRef tape = LLVMConstNull(ptr);
  if (s->tape != -1)
    tape = field(b, r, s->tape);
  if (sig.inline_tape) {
    if (s->tape != -1)
      LLVMBuildStore(b, tape, LLVMGetLastParam(w));
    if (none)
      LLVMBuildRetVoid(b);
    else
      LLVMBuildRet(b, out);
    LLVMDisposeBuilder(b);
    return 0;
  }
  if (s->tape != -1) {
    if (!is_ptr(LLVMTypeOf(tape))) {
      LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
      LLVMTargetDataRef td = LLVMGetModuleDataLayout(mod);
      LLVMValueRef size =
          LLVMConstInt(i64, LLVMABISizeOfType(td, LLVMTypeOf(tape)), 0);
      LLVMValueRef box = zy_call_malloc(b, size, "box");
      LLVMBuildStore(b, tape, box);
      tape = box;
    }
  }
  out = LLVMBuildInsertValue(b, out, tape, f, "");
  LLVMBuildRet(b, out);
  LLVMDisposeBuilder(b);
  return 0;
}

/* The adjoints of f's floating-point arguments from what rev returned
 * (`r`, or its sret buffer `buf`): fields of a C struct of those types. */
static int read_adjoints(const Shape *s, ZySig sig, LLVMBuilderRef b,
                         LLVMValueRef r, LLVMValueRef buf, LLVMValueRef *out) {
  LLVMTypeRef fty = LLVMGlobalGetValueType(s->c->fn);
  unsigned np = LLVMCountParamTypes(fty), nf = 0, idx[64];
  LLVMTypeRef params[64], fields[64];
  LLVMGetParamTypes(fty, params);
  for (unsigned k = 0; k < np; k++)
    if (!is_ptr(params[k]) && zy_type_differentiable(params[k]))
      idx[nf] = k, fields[nf++] = params[k];
  if (!sig.active_args)
    return 0;
  LLVMTypeRef rt = LLVMTypeOf(r);
  if (nf == 1 && rt == fields[0] && !buf) {
    out[idx[0]] = r;
    return 0;
  }
  LLVMContextRef ctx = LLVMGetTypeContext(fty);
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(LLVMGetGlobalParent(s->c->fn));
  LLVMTypeRef st = LLVMStructTypeInContext(ctx, fields, nf, 0);
  if (LLVMGetTypeKind(rt) == LLVMVoidTypeKind ||
      LLVMABISizeOfType(td, rt) < LLVMABISizeOfType(td, st))
    return custom_error(
        s, NULL,
        "return the adjoints of the floating-point arguments, in order: "
        "one as a scalar, several as a struct",
        "the reverse pass does not return the adjoints of the "
        "floating-point arguments");
  if (!buf) {
    buf = LLVMBuildAlloca(b, rt, "custom.adjoints");
    LLVMBuildStore(b, r, buf);
  }
  LLVMTypeRef i8 = LLVMInt8TypeInContext(ctx);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
  for (unsigned f = 0; f < nf; f++) {
    LLVMValueRef off = LLVMConstInt(i64, LLVMOffsetOfElement(td, st, f), 0);
    LLVMValueRef p = LLVMBuildGEP2(b, i8, buf, &off, 1, "");
    out[idx[f]] = LLVMBuildLoad2(b, fields[f], p, "");
  }
  return 0;
}

/* The reverse wrapper: (params, shadows, [dret], ptr tape) -> the
 * adjoints of the active arguments, as zy_gradient_split's rev. */
static int build_rev(const Shape *s, ZySig sig, LLVMValueRef w) {
  LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(w));
  LLVMValueRef args[140];
  LLVMTypeRef types[140];
  if (user_args(s, w, sig, args, types))
    return -1;
  unsigned n = s->nuser, nw = LLVMCountParams(w);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, w, "entry"));
  if (is_fp_scalar(s->ret)) {
    types[n] = s->ret;
    args[n++] = sig.active_ret ? LLVMGetParam(w, nw - 2)
                               : zy_const_fp(s->ret, 0.0);
  }
  LLVMValueRef tape = LLVMGetParam(w, nw - 1), box = NULL;
  if (s->tape != -1) {
    LLVMTypeRef tt = user_tape_type(s, ctx);
    if (sig.inline_tape)
      tape = LLVMBuildLoad2(b, tt, tape, "tape");
    else if (!is_ptr(tt)) {
      box = tape;
      tape = LLVMBuildLoad2(b, tt, box, "tape");
    }
    types[n] = tt;
    args[n++] = tape;
  }
  if (check_params(s, s->c->rev, s->rev_sret, types, n, "reverse pass")) {
    LLVMDisposeBuilder(b);
    return -1;
  }
  LLVMValueRef buf = NULL;
  LLVMValueRef r = call_user(b, s->c->rev, s->rev_sret, args, n, &buf);
  if (box)
    zy_call_free(b, "free", box);
  LLVMValueRef adj[64] = {0};
  if (read_adjoints(s, sig, b, r, buf, adj)) {
    LLVMDisposeBuilder(b);
    return -1;
  }
  LLVMTypeRef wt = LLVMGetReturnType(LLVMGlobalGetValueType(w));
  if (LLVMGetTypeKind(wt) == LLVMVoidTypeKind) {
    LLVMBuildRetVoid(b);
  } else {
    LLVMValueRef out = LLVMGetUndef(wt);
    unsigned f = 0;
    for (unsigned k = 0; k < LLVMCountParams(s->c->fn); k++)
      if (sig.active_args >> k & 1)
        out = LLVMBuildInsertValue(b, out, adj[k], f++, "");
    LLVMBuildRet(b, out);
  }
  LLVMDisposeBuilder(b);
  return 0;
}

/* A gradient (not split) from the pair: aug, then rev with its tape. */
static int build_combined(ZyModule *zm, const ZyCustom *c, ZySig sig,
                          LLVMValueRef g) {
  LLVMValueRef aug, rev;
  if (zy_gradient_split(zm, c->fn, sig, NULL, &aug, &rev))
    return -1;
  LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(g));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, g, "entry"));
  unsigned np = LLVMCountParams(c->fn), nd = 0;
  LLVMValueRef args[131];
  for (unsigned k = 0; k < np; k++)
    nd += sig.dup_args >> k & 1;
  for (unsigned k = 0; k < np + nd; k++)
    args[k] = LLVMGetParam(g, k);
  LLVMValueRef r = LLVMBuildCall2(b, LLVMGlobalGetValueType(aug), aug, args,
                                  np + nd, "");
  unsigned n = np + nd;
  if (sig.active_ret)
    args[n++] = LLVMGetParam(g, np + nd);
  args[n++] = LLVMBuildExtractValue(
      b, r, LLVMCountStructElementTypes(LLVMTypeOf(r)) - 1, "tape");
  LLVMValueRef res =
      LLVMBuildCall2(b, LLVMGlobalGetValueType(rev), rev, args, n, "");
  if (LLVMGetTypeKind(LLVMTypeOf(res)) == LLVMVoidTypeKind)
    LLVMBuildRetVoid(b);
  else
    LLVMBuildRet(b, res);
  LLVMDisposeBuilder(b);
  return 0;
}

int zy_custom_build(ZyModule *zm, ZyGradEntry *e) {
  const ZyCustom *c = zy_registry_custom(e->fn);
  Shape s;
  if (shape_of(c, &s))
    return -1;
  if (!e->sig.split)
    return build_combined(zm, c, e->sig, e->grad);
  LLVMTypeRef tt = user_tape_type(&s, LLVMGetModuleContext(zm->mod));
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(zm->mod);
  e->tape_bytes = s.tape == -1 ? 0 : LLVMABISizeOfType(td, tt);
  e->tape_align = LLVMABIAlignmentOfType(td, tt);
  return build_aug(&s, e->sig, e->grad) || build_rev(&s, e->sig, e->rev) ? -1
                                                                         : 0;
}

int zy_custom_check_call(LLVMValueRef call) {
  const ZyCustom *c = zy_registry_custom(LLVMGetCalledValue(call));
  Shape s;
  if (!c || shape_of(c, &s))
    return c ? -1 : 0;
  if (LLVMGetFirstUse(call) && LLVMGetTypeKind(s.ret) != LLVMVoidTypeKind &&
      s.res == -1 && !s.rerun)
    return custom_error(
        &s, call,
        "return the result from the augmented forward pass: R, {tape, R} "
        "or {tape, R, shadow of R}",
        "the result of the call is used, but the augmented forward pass "
        "does not return it (and the function writes memory, so it cannot "
        "run again for it)");
  return 0;
}
