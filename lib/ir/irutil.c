/* irutil.c - IR-building helpers (see irutil.h).
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "irutil.h"

#include "llvm/glue.h"
#include "support/diag.h"

#include <llvm-c/Target.h>

#include <stdio.h>
#include <string.h>

LLVMTypeRef zy_scalar_type(LLVMTypeRef t) {
  return LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetElementType(t) : t;
}

LLVMValueRef zy_const_fp(LLVMTypeRef t, double v) {
  if (LLVMGetTypeKind(t) != LLVMVectorTypeKind)
    return LLVMConstReal(t, v);
  unsigned n = LLVMGetVectorSize(t);
  LLVMValueRef lanes[64];
  ZY_ASSERT(n <= 64);
  for (unsigned i = 0; i < n; i++)
    lanes[i] = LLVMConstReal(LLVMGetElementType(t), v);
  return LLVMConstVector(lanes, n);
}

LLVMValueRef zy_builder_function(LLVMBuilderRef b) {
  return LLVMGetBasicBlockParent(LLVMGetInsertBlock(b));
}

LLVMModuleRef zy_builder_module(LLVMBuilderRef b) {
  return LLVMGetGlobalParent(zy_builder_function(b));
}

/* The libm name of `name` for scalar type `t`: cos, cosf, cosl. */
static const char *libm_name(char *buf, size_t n, const char *name,
                             LLVMTypeRef t) {
  const char *suffix = "";
  switch (LLVMGetTypeKind(t)) {
  case LLVMFloatTypeKind:
    suffix = "f";
    break;
  case LLVMX86_FP80TypeKind:
  case LLVMFP128TypeKind:
    suffix = "l";
    break;
  default:
    break;
  }
  snprintf(buf, n, "%s%s", name, suffix);
  return buf;
}

/* A libm call on scalars.  half and bfloat compute in float. */
static LLVMValueRef libm_call(LLVMBuilderRef b, const char *name,
                              LLVMValueRef *args, unsigned n) {
  LLVMTypeRef t = LLVMTypeOf(args[0]);
  LLVMTypeKind k = LLVMGetTypeKind(t);
  LLVMTypeRef ct = t;
  LLVMValueRef cargs[4];
  ZY_ASSERT(n <= 4);
  if (k == LLVMHalfTypeKind || k == LLVMBFloatTypeKind)
    ct = LLVMFloatTypeInContext(LLVMGetTypeContext(t));
  for (unsigned i = 0; i < n; i++)
    cargs[i] = ct == t ? args[i] : LLVMBuildFPExt(b, args[i], ct, "");
  char buf[64];
  libm_name(buf, sizeof buf, name, ct);
  LLVMModuleRef m = zy_builder_module(b);
  LLVMTypeRef params[4] = {ct, ct, ct, ct};
  LLVMTypeRef fty = LLVMFunctionType(ct, params, n, 0);
  LLVMValueRef fn = LLVMGetNamedFunction(m, buf);
  if (!fn)
    fn = LLVMAddFunction(m, buf, fty);
  LLVMValueRef r = LLVMBuildCall2(b, fty, fn, cargs, n, "");
  return ct == t ? r : LLVMBuildFPTrunc(b, r, t, "");
}

LLVMValueRef zy_math(LLVMBuilderRef b, const char *name, LLVMValueRef *args,
                     unsigned n) {
  char iname[64];
  snprintf(iname, sizeof iname, "llvm.%s", name);
  unsigned id = LLVMLookupIntrinsicID(iname, strlen(iname));
  LLVMTypeRef t = LLVMTypeOf(args[0]);
  if (id) {
    LLVMModuleRef m = zy_builder_module(b);
    LLVMValueRef fn = LLVMGetIntrinsicDeclaration(m, id, &t, 1);
    LLVMTypeRef fty = LLVMGlobalGetValueType(fn);
    return LLVMBuildCall2(b, fty, fn, args, n, "");
  }
  if (LLVMGetTypeKind(t) != LLVMVectorTypeKind)
    return libm_call(b, name, args, n);
  /* No intrinsic on this LLVM: apply the libm function lane by lane. */
  LLVMValueRef r = LLVMGetUndef(t);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetTypeContext(t));
  for (unsigned lane = 0; lane < LLVMGetVectorSize(t); lane++) {
    LLVMValueRef idx = LLVMConstInt(i32, lane, 0), s[4];
    for (unsigned i = 0; i < n; i++)
      s[i] = LLVMBuildExtractElement(b, args[i], idx, "");
    r = LLVMBuildInsertElement(b, r, libm_call(b, name, s, n), idx, "");
  }
  return r;
}

LLVMValueRef zy_math1(LLVMBuilderRef b, const char *name, LLVMValueRef x) {
  return zy_math(b, name, &x, 1);
}

LLVMValueRef zy_powi(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef n) {
  unsigned id = LLVMLookupIntrinsicID("llvm.powi", 9);
  LLVMTypeRef tys[2] = {LLVMTypeOf(x), LLVMTypeOf(n)};
  LLVMValueRef fn =
      LLVMGetIntrinsicDeclaration(zy_builder_module(b), id, tys, 2);
  LLVMValueRef args[2] = {x, n};
  return LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, 2, "");
}

/* Builds
 *   T digamma(T x) {
 *     T acc = 0;
 *     while (x < lo) { acc -= 1/x; x += 1; }     // psi(x) = psi(x+1) - 1/x
 *     T f = 1/(x*x);                             // asymptotic series
 *     return acc + log(x) - 0.5/x - f*(1/12 - f*(1/120 - f*(1/252
 *            - f*(1/240 - f*(1/132 - f*691/32760)))));
 *   }
 */
static LLVMValueRef build_digamma(LLVMModuleRef m, LLVMTypeRef t,
                                  const char *name) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef fty = LLVMFunctionType(t, &t, 1, 0);
  LLVMValueRef fn = LLVMAddFunction(m, name, fty);
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c, fn, "entry");
  LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(c, fn, "head");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(c, fn, "body");
  LLVMBasicBlockRef tail = LLVMAppendBasicBlockInContext(c, fn, "tail");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMValueRef x0 = LLVMGetParam(fn, 0);
#define K(v) zy_const_fp(t, v)

  LLVMPositionBuilderAtEnd(b, entry);
  LLVMBuildBr(b, head);

  LLVMPositionBuilderAtEnd(b, head);
  LLVMValueRef x = LLVMBuildPhi(b, t, "x"), acc = LLVMBuildPhi(b, t, "acc");
  /* Shift x up until the series' first omitted term, 1/(12 x^14), is
   * below the type's precision. */
  LLVMTypeKind k = LLVMGetTypeKind(t);
  double lo = k == LLVMX86_FP80TypeKind || k == LLVMFP128TypeKind ? 24 : 10;
  LLVMBuildCondBr(b, LLVMBuildFCmp(b, LLVMRealOLT, x, K(lo), ""), body, tail);

  LLVMPositionBuilderAtEnd(b, body);
  LLVMValueRef acc1 = LLVMBuildFSub(b, acc, LLVMBuildFDiv(b, K(1), x, ""), "");
  LLVMValueRef x1 = LLVMBuildFAdd(b, x, K(1), "");
  LLVMBuildBr(b, head);
  LLVMValueRef xin[2] = {x0, x1}, accin[2] = {K(0), acc1};
  LLVMBasicBlockRef from[2] = {entry, body};
  LLVMAddIncoming(x, xin, from, 2);
  LLVMAddIncoming(acc, accin, from, 2);

  LLVMPositionBuilderAtEnd(b, tail);
  LLVMValueRef f = LLVMBuildFDiv(b, K(1), LLVMBuildFMul(b, x, x, ""), "");
  LLVMValueRef s = LLVMBuildFMul(b, f, K(691.0 / 32760), "");
  static const double coef[] = {1.0 / 132, 1.0 / 240, 1.0 / 252, 1.0 / 120,
                                1.0 / 12};
  for (int i = 0; i < 5; i++)
    s = LLVMBuildFMul(b, f, LLVMBuildFSub(b, K(coef[i]), s, ""), "");
  LLVMValueRef r = LLVMBuildFAdd(b, acc, zy_math1(b, "log", x), "");
  r = LLVMBuildFSub(b, r, LLVMBuildFDiv(b, K(0.5), x, ""), "");
  r = LLVMBuildFSub(b, r, s, "");
  LLVMBuildRet(b, r);
#undef K
  LLVMDisposeBuilder(b);
  return fn;
}

LLVMValueRef zy_digamma(LLVMBuilderRef b, LLVMValueRef x) {
  LLVMModuleRef m = zy_builder_module(b);
  LLVMTypeRef t = LLVMTypeOf(x);
  char *tn = LLVMPrintTypeToString(t);
  char name[96];
  snprintf(name, sizeof name, "__zymase_digamma.%s", tn);
  LLVMDisposeMessage(tn);
  LLVMValueRef fn = LLVMGetNamedFunction(m, name);
  if (!fn)
    fn = build_digamma(m, t, name);
  return LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, &x, 1, "");
}

int zy_device_module(LLVMModuleRef m) {
  const char *t = LLVMGetTarget(m);
  return t && (!strncmp(t, "nvptx", 5) || !strncmp(t, "amdgcn", 6));
}

void zy_set_optnone(LLVMValueRef fn, int on) {
  static const char *const attrs[] = {"optnone", "noinline"};
  LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
  if (on) /* incompatible with noinline */
    LLVMRemoveEnumAttributeAtIndex(
        fn, LLVMAttributeFunctionIndex,
        LLVMGetEnumAttributeKindForName("alwaysinline", 12));
  for (int i = 0; i < 2; i++) {
    unsigned kind = LLVMGetEnumAttributeKindForName(attrs[i], strlen(attrs[i]));
    if (on)
      LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                              LLVMCreateEnumAttribute(c, kind, 0));
    else
      LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, kind);
  }
}

LLVMValueRef zy_runtime_fn(LLVMModuleRef m, const char *name, LLVMTypeRef fty) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, name);
  if (!fn) {
    fn = LLVMAddFunction(m, name, fty);
    zy_llvm_infer_libfunc_attrs(fn);
  }
  return fn;
}

LLVMValueRef zy_call_malloc(LLVMBuilderRef b, LLVMValueRef bytes,
                            const char *name) {
  LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(bytes));
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef fty = LLVMFunctionType(LLVMPointerTypeInContext(c, 0), &i64, 1, 0);
  LLVMValueRef n = LLVMBuildZExtOrBitCast(b, bytes, i64, "");
  return LLVMBuildCall2(b, fty, zy_runtime_fn(zy_builder_module(b), "malloc", fty),
                        &n, 1, name);
}

LLVMValueRef zy_call_usable_size(LLVMBuilderRef b, LLVMValueRef p) {
  LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(p));
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef fty =
      LLVMFunctionType(LLVMInt64TypeInContext(c), &ptr, 1, 0);
  return LLVMBuildCall2(
      b, fty, zy_runtime_fn(zy_builder_module(b), "malloc_usable_size", fty),
      &p, 1, "usable");
}

void zy_call_free(LLVMBuilderRef b, const char *fn, LLVMValueRef p) {
  LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(p));
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(c), &ptr, 1, 0);
  LLVMBuildCall2(b, fty, zy_runtime_fn(zy_builder_module(b), fn, fty), &p, 1,
                 "");
}

static LLVMValueRef copy_helper(LLVMModuleRef m, LLVMTypeRef t) {
  char *tn = LLVMPrintTypeToString(t), name[96];
  snprintf(name, sizeof name, "__zymase_copy.%s", tn);
  LLVMDisposeMessage(tn);
  LLVMValueRef fn = LLVMGetNamedFunction(m, name);
  if (fn)
    return fn;
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef i64t = LLVMInt64TypeInContext(c);
  LLVMTypeRef params[3] = {ptr, ptr, i64t};
  fn = LLVMAddFunction(
      m, name, LLVMFunctionType(LLVMVoidTypeInContext(c), params, 3, 0));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c, fn, "entry");
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(c, fn, "loop");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, fn, "done");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMValueRef size =
      LLVMConstInt(i64t, LLVMABISizeOfType(LLVMGetModuleDataLayout(m), t), 0);
  LLVMValueRef dst = LLVMGetParam(fn, 0), src = LLVMGetParam(fn, 1);
  LLVMValueRef bytes = LLVMGetParam(fn, 2), zero = LLVMConstInt(i64t, 0, 0);
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef count = LLVMBuildUDiv(b, bytes, size, "count");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, count, zero, ""), done, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef k = LLVMBuildPhi(b, i64t, "k");
  LLVMValueRef v =
      LLVMBuildLoad2(b, t, LLVMBuildGEP2(b, t, src, &k, 1, ""), "");
  LLVMBuildStore(b, v, LLVMBuildGEP2(b, t, dst, &k, 1, ""));
  LLVMValueRef k1 = LLVMBuildAdd(b, k, LLVMConstInt(i64t, 1, 0), "");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, k1, count, ""), done, loop);
  LLVMValueRef kin[2] = {zero, k1};
  LLVMBasicBlockRef kfrom[2] = {entry, loop};
  LLVMAddIncoming(k, kin, kfrom, 2);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMValueRef whole = LLVMBuildMul(b, count, size, "");
  LLVMValueRef rest = LLVMBuildGEP2(b, LLVMInt8TypeInContext(c), dst, &whole,
                                    1, "");
  LLVMBuildMemSet(b, rest, LLVMConstInt(LLVMInt8TypeInContext(c), 0, 0),
                  LLVMBuildSub(b, bytes, whole, ""), 1);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}

void zy_typed_copy(LLVMBuilderRef b, LLVMTypeRef t, LLVMValueRef dst,
                   LLVMValueRef src, LLVMValueRef bytes) {
  LLVMValueRef fn = copy_helper(zy_builder_module(b), t);
  LLVMValueRef args[3] = {dst, src, bytes};
  LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, 3, "");
}

LLVMValueRef zy_const_gep_on(LLVMValueRef c, LLVMValueRef base) {
  LLVMValueRef idx[16];
  unsigned n = (unsigned)LLVMGetNumOperands(c) - 1;
  if (n > 16)
    return NULL;
  for (unsigned k = 0; k < n; k++)
    idx[k] = LLVMGetOperand(c, k + 1);
  LLVMTypeRef t = LLVMGetGEPSourceElementType(c);
  return LLVMIsInBounds(c) ? LLVMConstInBoundsGEP2(t, base, idx, n)
                           : LLVMConstGEP2(t, base, idx, n);
}
