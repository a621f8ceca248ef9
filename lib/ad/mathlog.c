/* mathlog.c - math library calls of loop iterations (exp, sin, ...) that
 * the cache plan computes again in the reverse sweep, logged on the way.
 *
 * Caching a call's value per iteration is faster while the caches fit in
 * the processor's (LSE's and LSTM's exp at the medium size); beyond that,
 * writing and reading back the values costs more than computing them
 * again, and the memory grows with the problem (BA's cos and sin at the
 * large size; Enzyme recomputes them).  So the plan treats these calls
 * as recomputable, and the forward sweep also stores each value in a log
 * (log.c) while the call's iterations of its loop fit in
 * -zymase-math-log-mb per loop; the reverse reads it from the log when
 * they all fitted, else calls the function again.  The choice is one
 * branch per value on a flag that is the same for every iteration.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "cache.h"

#include "ir/irutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Entry {
  ZyLog *lg;
  size_t k;
  ZyLoop *l;
} Entry;

int zy_mathlog_mode(ZyGen *g) {
  return zy_opt_math_log_mb() && !zy_recompute_math(g) && !g->split &&
         !g->zm->nested_ad && !zy_gpu_device_kind(g->zm->mod);
}

/* if (on) log[idx] = fv, as a store to a stack slot when off (no branch
 * in the forward sweep). */
static void store(ZyGen *g, LLVMValueRef fv, ZyLoop *l, ZyLog *lg, size_t k) {
  LLVMContextRef c = g->zm->ctx;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c),
              ptr = LLVMPointerTypeInContext(c, 0), t = LLVMTypeOf(fv);
  LLVMValueRef off = zy_new_slot(g, t, "zymase.math.log.off", 0);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  zy_position_after(g, b, fv);
  LLVMValueRef on =
      LLVMBuildICmp(b, LLVMIntNE, LLVMBuildLoad2(b, i64, lg->on, ""),
                    LLVMConstInt(i64, 0, 0), "zymase.log.on");
  LLVMValueRef buf = LLVMBuildLoad2(b, ptr, lg->slots.data[k], "");
  LLVMValueRef at = LLVMBuildGEP2(b, t, buf, &l->idx, 1, "");
  zy_cache_access(g,
                  LLVMBuildStore(b, fv, LLVMBuildSelect(b, on, at, off, "")));
  LLVMDisposeBuilder(b);
}

void zy_mathlog_emit(ZyGen *g, int (*planned)(ZyGen *, LLVMValueRef)) {
  if (!zy_mathlog_mode(g))
    return;
  for (unsigned n = 0; n < g->nloops; n++) {
    ZyLoop *l = &g->loops[n];
    ZyVec vals = {0};
    for (size_t k = 0; k < g->plan.order.len; k++) {
      LLVMValueRef v = g->plan.order.data[k];
      if (LLVMIsACallInst(v) && zy_math_call(g, v) && !zy_arith_intrinsic(v) &&
          planned(g, v) && zy_loop_of(g, LLVMGetInstructionParent(v)) == l)
        zy_vec_push(&vals, v);
    }
    ZyLog *lg = calloc(1, sizeof *lg);
    if (!vals.len || !zy_log_new(g, l, &vals, zy_opt_math_log_mb(),
                                 "zymase.math.log", lg, NULL)) {
      free(lg);
      zy_vec_free(&vals);
      continue;
    }
    zy_vec_push(&g->mathlogs, lg);
    for (size_t k = 0; k < vals.len; k++) {
      Entry *e = malloc(sizeof *e);
      *e = (Entry){lg, k, l};
      zy_map_put(&g->mathlog, vals.data[k], e);
      store(g, zy_map_get(&g->vmap, vals.data[k]), l, lg, k);
    }
    zy_vec_free(&vals);
  }
}

/* The metadata kind marking the helpers' loads of a log, found again in
 * the gradient once they are inlined. */
static unsigned log_kind(LLVMContextRef c) {
  return LLVMGetMDKindIDInContext(c, "zymase.log", 10);
}

/* ty zymase.logged.<f>(i1 held, ptr at, args...): held ? *at : f(args);
 * inlined into the gradient by zy_mathlog_free. */
static LLVMValueRef helper(ZyGen *g, LLVMValueRef fv) {
  LLVMContextRef c = g->zm->ctx;
  LLVMValueRef callee = LLVMGetCalledValue(fv);
  LLVMTypeRef fty = LLVMGetCalledFunctionType(fv);
  char name[256];
  snprintf(name, sizeof name, "zymase.logged.%s", LLVMGetValueName(callee));
  LLVMValueRef h = LLVMGetNamedFunction(g->zm->mod, name);
  if (h)
    return h;
  unsigned n = LLVMCountParamTypes(fty);
  LLVMTypeRef ps[n + 2];
  ps[0] = LLVMInt1TypeInContext(c);
  ps[1] = LLVMPointerTypeInContext(c, 0);
  LLVMGetParamTypes(fty, ps + 2);
  LLVMTypeRef t = LLVMGetReturnType(fty);
  h = LLVMAddFunction(g->zm->mod, name, LLVMFunctionType(t, ps, n + 2, 0));
  LLVMSetLinkage(h, LLVMInternalLinkage);
  unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
  LLVMAddAttributeAtIndex(h, LLVMAttributeFunctionIndex,
                          LLVMCreateEnumAttribute(c, always, 0));
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c, h, "entry");
  LLVMBasicBlockRef read = LLVMAppendBasicBlockInContext(c, h, "read");
  LLVMBasicBlockRef again = LLVMAppendBasicBlockInContext(c, h, "again");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMBuildCondBr(b, LLVMGetParam(h, 0), read, again);
  LLVMPositionBuilderAtEnd(b, read);
  LLVMValueRef ld = LLVMBuildLoad2(b, t, LLVMGetParam(h, 1), "");
  LLVMSetMetadata(ld, log_kind(c),
                  LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, NULL, 0)));
  LLVMBuildRet(b, ld);
  LLVMPositionBuilderAtEnd(b, again);
  LLVMValueRef args[n ? n : 1];
  for (unsigned k = 0; k < n; k++)
    args[k] = LLVMGetParam(h, k + 2);
  LLVMBuildRet(b, LLVMBuildCall2(b, fty, callee, args, n, ""));
  LLVMDisposeBuilder(b);
  return h;
}

LLVMValueRef zy_mathlog_read(ZyGen *g, LLVMValueRef v) {
  Entry *e = zy_map_get(&g->mathlog, v);
  if (!e)
    return NULL;
  LLVMContextRef c = g->zm->ctx;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c),
              ptr = LLVMPointerTypeInContext(c, 0);
  LLVMValueRef fv = zy_map_get(&g->vmap, v), h = helper(g, fv);
  unsigned n = LLVMGetNumArgOperands(v);
  LLVMValueRef args[n + 2];
  args[0] = zy_log_held(g, e->lg);
  LLVMValueRef idx =
      LLVMBuildSub(g->b, LLVMBuildLoad2(g->b, i64, e->l->count, ""),
                   LLVMConstInt(i64, 1, 0), "");
  LLVMValueRef buf = LLVMBuildLoad2(g->b, ptr, e->lg->slots.data[e->k], "");
  args[1] = LLVMBuildGEP2(g->b, LLVMTypeOf(fv), buf, &idx, 1, "");
  for (unsigned k = 0; k < n; k++) {
    LLVMValueRef op = LLVMGetOperand(v, k);
    args[k + 2] = LLVMIsAInstruction(op) || LLVMIsAArgument(op)
                      ? zy_plan_value(g, op)
                      : op;
  }
  return LLVMBuildCall2(g->b, LLVMGlobalGetValueType(h), h, args, n + 2, "");
}

/* Inlines the calls of the helpers in the gradient; their loads of the
 * logs are cache accesses (scopes.c). */
static void inline_helpers(ZyGen *g) {
  ZyVec calls = {0};
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->grad); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      LLVMValueRef f = LLVMIsACallInst(i) ? LLVMGetCalledValue(i) : NULL;
      if (f && LLVMIsAFunction(f) &&
          !strncmp(LLVMGetValueName(f), "zymase.logged.", 14))
        zy_vec_push(&calls, i);
    }
  for (size_t k = 0; k < calls.len; k++)
    zy_llvm_inline_call(calls.data[k]);
  zy_vec_free(&calls);
  unsigned kind = log_kind(g->zm->ctx);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->grad); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMIsALoadInst(i) && LLVMGetMetadata(i, kind)) {
        LLVMSetMetadata(i, kind, NULL);
        zy_cache_access(g, i);
      }
}

void zy_mathlog_free(ZyGen *g) {
  if (g->mathlogs.len)
    inline_helpers(g);
  for (size_t k = 0; k < g->mathlogs.len; k++) {
    zy_log_free(g, g->mathlogs.data[k]);
    free(g->mathlogs.data[k]);
  }
  zy_vec_free(&g->mathlogs);
  for (size_t k = 0; k < g->mathlog.order.len; k++)
    free(zy_map_get(&g->mathlog, g->mathlog.order.data[k]));
  zy_map_free(&g->mathlog);
}
