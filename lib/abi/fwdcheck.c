/* fwdcheck.c - the hidden option -zymase-check-fwd, for tools/fwd-check:
 * each __enzyme_autodiff call of a function whose active arguments and
 * result are floating-point scalars (no shadows), and that writes nothing
 * outside its own frame, also calls the function's tangent function
 * along a fixed direction v and checks at run time that
 * dot(gradient, v) equals the tangent: the line `zymase-fwd-check ok f`,
 * or a mismatch line and abort().
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "abi.h"

#include "ir/irutil.h"
#include "ir/rules.h"
#include "analysis/effects.h"
#include "support/vec.h"

static double direction(unsigned k) {
  static const double v[] = {0.625, -1.25, 0.375, 0.875,
                             -0.5,  1.125, -0.75, 0.25};
  return v[k % 8];
}

/* 0: not a floating-point scalar; 1: half, bfloat or float; 2: wider. */
static int scalar_fp(LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMHalfTypeKind:
  case LLVMBFloatTypeKind:
  case LLVMFloatTypeKind:
    return 1;
  case LLVMDoubleTypeKind:
  case LLVMX86_FP80TypeKind:
  case LLVMFP128TypeKind:
    return 2;
  default:
    return 0;
  }
}

/* Whether `fn` or a function it calls computes in half, bfloat or float
 * (the two modes then agree only to that precision). */
static int narrow_inside(LLVMValueRef fn) {
  ZyVec seen = {0};
  zy_vec_push(&seen, fn);
  int narrow = 0;
  for (size_t k = 0; k < seen.len && k < 64 && !narrow; k++)
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(seen.data[k]); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i)) {
        LLVMTypeRef t = LLVMTypeOf(i);
        if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
          t = LLVMGetElementType(t);
        narrow |= scalar_fp(t) == 1;
        LLVMValueRef f = LLVMIsACallInst(i) ? LLVMGetCalledValue(i) : NULL;
        if (f && LLVMIsAFunction(f) && !LLVMIsDeclaration(f) &&
            !zy_vec_contains(&seen, f))
          zy_vec_push(&seen, f);
      }
  zy_vec_free(&seen);
  return narrow;
}

/* The function the checks call: prints a line, aborts on a mismatch. */
static LLVMValueRef checker(ZyModule *zm) {
  LLVMValueRef f = LLVMGetNamedFunction(zm->mod, "zymase.fwdcheck");
  if (f)
    return f;
  LLVMContextRef ctx = zm->ctx;
  LLVMTypeRef d = LLVMDoubleTypeInContext(ctx);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMTypeRef params[4] = {ptr, d, d, d};
  f = LLVMAddFunction(
      zm->mod, "zymase.fwdcheck",
      LLVMFunctionType(LLVMVoidTypeInContext(ctx), params, 4, 0));
  LLVMSetLinkage(f, LLVMInternalLinkage);
  LLVMTypeRef pty = LLVMFunctionType(i32, &ptr, 1, 1);
  LLVMValueRef printf_fn = zy_runtime_fn(zm->mod, "printf", pty);
  LLVMTypeRef aty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), NULL, 0, 0);
  LLVMValueRef abort_fn = zy_runtime_fn(zm->mod, "abort", aty);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, f, "entry");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(ctx, f, "ok");
  LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(ctx, f, "bad");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef name = LLVMGetParam(f, 0), dot = LLVMGetParam(f, 1);
  LLVMValueRef tan = LLVMGetParam(f, 2), bound = LLVMGetParam(f, 3);
  LLVMValueRef diff = LLVMBuildFSub(b, dot, tan, "");
  LLVMValueRef neg = LLVMBuildFCmp(b, LLVMRealOLT, diff, zy_const_fp(d, 0), "");
  diff = LLVMBuildSelect(b, neg, LLVMBuildFNeg(b, diff, ""), diff, "");
  /* close, or the same value (infinities), or both NaN */
  LLVMValueRef same = LLVMBuildFCmp(b, LLVMRealOLE, diff, bound, "");
  same = LLVMBuildOr(b, same, LLVMBuildFCmp(b, LLVMRealOEQ, dot, tan, ""), "");
  LLVMValueRef nan = LLVMBuildFCmp(b, LLVMRealUNO, dot, dot, "");
  nan = LLVMBuildAnd(b, nan, LLVMBuildFCmp(b, LLVMRealUNO, tan, tan, ""), "");
  LLVMBuildCondBr(b, LLVMBuildOr(b, same, nan, ""), ok, bad);
  LLVMPositionBuilderAtEnd(b, ok);
  LLVMValueRef a[4] = {
      LLVMBuildGlobalStringPtr(b, "zymase-fwd-check ok %s: %.17g\n", ""), name,
      dot};
  LLVMBuildCall2(b, pty, printf_fn, a, 3, "");
  LLVMBuildRetVoid(b);
  LLVMPositionBuilderAtEnd(b, bad);
  a[0] = LLVMBuildGlobalStringPtr(
      b, "zymase-fwd-check MISMATCH %s: grad.v %.17g, fwddiff %.17g\n", "");
  a[3] = tan;
  LLVMBuildCall2(b, pty, printf_fn, a, 4, "");
  LLVMTypeRef fty = LLVMFunctionType(i32, &ptr, 1, 0);
  LLVMValueRef null = LLVMConstPointerNull(ptr);
  LLVMBuildCall2(b, fty, zy_runtime_fn(zm->mod, "fflush", fty), &null, 1, "");
  LLVMBuildCall2(b, aty, abort_fn, NULL, 0, "");
  LLVMBuildUnreachable(b);
  LLVMDisposeBuilder(b);
  return f;
}

LLVMValueRef zy_fwdcheck_begin(ZyCall *c) {
  if (c->split || c->sig.dup_args || !c->sig.active_args ||
      !c->sig.active_ret || zy_device_module(c->zm->mod))
    return NULL;
  LLVMTypeRef fty = LLVMGlobalGetValueType(c->fn), params[64];
  unsigned np = LLVMCountParams(c->fn), n = np;
  if (!scalar_fp(LLVMGetReturnType(fty)))
    return NULL;
  LLVMGetParamTypes(fty, params);
  for (unsigned k = 0; k < np; k++)
    if ((c->sig.active_args >> k & 1) && !scalar_fp(params[k]))
      return NULL;
  if (zy_effects_first_write(c->fn, zy_rule_known))
    return NULL;
  LLVMValueRef args[128];
  for (unsigned k = 0; k < np; k++)
    args[k] = c->args[k];
  for (unsigned k = 0; k < np; k++)
    if (c->sig.active_args >> k & 1)
      args[n++] = zy_const_fp(params[k], direction(k));
  ZySig sig = {.active_args = c->sig.active_args, .active_ret = 1};
  ZyTT *seeds = zy_abi_seeds(c);
  LLVMValueRef tf = zy_tangent(c->zm, c->fn, sig, seeds);
  zy_abi_free_seeds(c, seeds);
  if (!tf)
    return NULL;
  LLVMValueRef r =
      LLVMBuildCall2(c->b, LLVMGlobalGetValueType(tf), tf, args, n, "");
  return LLVMBuildExtractValue(c->b, r, 1, "zymase.check.tangent");
}

void zy_fwdcheck_end(ZyCall *c, LLVMValueRef tangent, LLVMValueRef grads) {
  LLVMTypeRef d = LLVMDoubleTypeInContext(c->zm->ctx);
  LLVMTypeRef fty = LLVMGlobalGetValueType(c->fn), params[64];
  LLVMGetParamTypes(fty, params);
  unsigned np = LLVMCountParams(c->fn), j = 0;
  int narrow = scalar_fp(LLVMGetReturnType(fty)) == 1 || narrow_inside(c->fn);
  LLVMValueRef dot = zy_const_fp(d, 0), mag = zy_const_fp(d, 1);
  for (unsigned k = 0; k < np; k++) {
    if (!(c->sig.active_args >> k & 1))
      continue;
    narrow |= scalar_fp(params[k]) == 1;
    LLVMValueRef g = LLVMBuildExtractValue(c->b, grads, j++, "");
    LLVMValueRef term = LLVMBuildFMul(c->b, LLVMBuildFPCast(c->b, g, d, ""),
                                      zy_const_fp(d, direction(k)), "");
    dot = LLVMBuildFAdd(c->b, dot, term, "");
    LLVMValueRef neg =
        LLVMBuildFCmp(c->b, LLVMRealOLT, term, zy_const_fp(d, 0), "");
    term = LLVMBuildSelect(c->b, neg, LLVMBuildFNeg(c->b, term, ""), term, "");
    mag = LLVMBuildFAdd(c->b, mag, term, "");
  }
  LLVMValueRef bound =
      LLVMBuildFMul(c->b, mag, zy_const_fp(d, narrow ? 1e-3 : 1e-7), "");
  LLVMValueRef name =
      LLVMBuildGlobalStringPtr(c->b, LLVMGetValueName(c->fn), "");
  LLVMValueRef t = LLVMBuildFPCast(c->b, tangent, d, "");
  LLVMValueRef args[4] = {name, dot, t, bound};
  LLVMValueRef f = checker(c->zm);
  LLVMBuildCall2(c->b, LLVMGlobalGetValueType(f), f, args, 4, "");
}
