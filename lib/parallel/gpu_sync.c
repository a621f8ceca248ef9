/* gpu_sync.c - `__shared__` memory and barriers in differentiated device
 * code: the shadow of a `__shared__` variable is itself `__shared__` (one
 * per block; dynamic shared memory's is in the device heap, see
 * gpu_dynamic_shared.c), zeroed by the block's threads between two
 * barriers where the gradient starts; each `__syncthreads` / `__syncwarp`
 * of the primal is called again at the mirrored point of the reverse
 * sweep, so that the adjoints the other threads add before it are
 * complete after it.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "parallel.h"

#include "ad/ad.h"

#include <llvm-c/Target.h>
#include <stdio.h>
#include <string.h>

enum { AS_SHARED = 3 };

/* Whether `f` is one of the barrier intrinsics (block or warp; amdgcn's
 * s_barrier, which HIP's __syncthreads calls between two fences). */
static int barrier_fn(LLVMValueRef f) {
  if (!f || !LLVMIsAFunction(f))
    return 0;
  const char *n = LLVMGetValueName(f);
  return !strncmp(n, "llvm.nvvm.barrier", 17) ||
         !strcmp(n, "llvm.nvvm.bar.warp.sync") ||
         !strcmp(n, "llvm.amdgcn.s.barrier");
}

int zy_gpu_reverse_needed(LLVMValueRef inst) {
  return LLVMIsACallInst(inst) && barrier_fn(LLVMGetCalledValue(inst));
}

/* The same barrier, its operands (a barrier number, a thread count, a
 * mask, a predicate of the counting forms) as in the forward. */
int zy_gpu_reverse_sync(ZyGen *g, LLVMValueRef call) {
  LLVMValueRef f = LLVMGetCalledValue(call);
  if (!strcmp(LLVMGetValueName(f), "llvm.amdgcn.s.barrier")) {
    /* With the fences of __syncthreads around it: the adjoints stored
     * before it are seen after it. */
    zy_gpu_target(g->zm->mod)->barrier(g->b, g->zm->mod);
    return 0;
  }
  unsigned n = LLVMGetNumArgOperands(call);
  LLVMValueRef args[4];
  if (n > 4)
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                        "internal: a barrier with %u operands", n);
  for (unsigned k = 0; k < n; k++)
    args[k] = zy_lookup(g, LLVMGetOperand(call, k));
  LLVMBuildCall2(g->b, LLVMGlobalGetValueType(f), f, args, n, "");
  return 0;
}

int zy_gpu_shared_lanes(LLVMValueRef gv) {
  return LLVMGetPointerAddressSpace(LLVMTypeOf(gv)) == AS_SHARED;
}

int zy_gpu_shared_shadow(ZyGen *g, LLVMValueRef gv, LLVMValueRef *shadow) {
  *shadow = NULL;
  if (LLVMGetPointerAddressSpace(LLVMTypeOf(gv)) != AS_SHARED)
    return 0;
  int dynamic = zy_gpu_dynamic_shared(gv);
  if (dynamic && g->gpu_dyn) {
    *shadow = g->gpu_dyn; /* checked when it was made */
    return 0;
  }
  int barrier = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb && !barrier;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && !barrier;
         i = LLVMGetNextInstruction(i))
      barrier = zy_gpu_reverse_needed(i) &&
                strcmp(LLVMGetValueName(LLVMGetCalledValue(i)),
                       "llvm.nvvm.bar.warp.sync");
  if (!barrier || g->split)
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                        "differentiate a function that calls __syncthreads "
                        "(every thread of the block calls it)",
                        "the __shared__ variable '%s' holds derivatives in %s; "
                        "its shadow is zeroed by the whole block, which needs "
                        "a function calling __syncthreads",
                        LLVMGetValueName(gv),
                        g->split ? "a split (augmented/reverse) gradient"
                                 : "a function without __syncthreads");
  if (dynamic && g->lanes)
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                        "use a static __shared__ array (its shadow is one "
                        "per direction), or width 1",
                        "vector forward mode (enzyme_width %u): the dynamic "
                        "(extern) __shared__ array '%s' holds derivatives; "
                        "its one shadow cannot hold several directions",
                        g->width, LLVMGetValueName(gv));
  if (dynamic && zy_opt_gpu_no_device_malloc())
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                        "use a static __shared__ array (its shadow is "
                        "__shared__ too), or drop "
                        "-zymase-gpu-no-device-malloc",
                        "the dynamic (extern) __shared__ array '%s' holds "
                        "derivatives; its shadow, as big as the launch's "
                        "dynamic shared memory, would come from device "
                        "malloc, which is turned off",
                        LLVMGetValueName(gv));
  if (dynamic) {
    *shadow = zy_gpu_dynamic_shadow(g, gv);
    return 0;
  }
  char name[256]; /* vector forward mode: one per lane (direction) */
  if (g->lanes && g->lane)
    snprintf(name, sizeof name, "%s.zymase_shadow.%u", LLVMGetValueName(gv),
             g->lane);
  else
    snprintf(name, sizeof name, "%s.zymase_shadow", LLVMGetValueName(gv));
  LLVMTypeRef t = LLVMGlobalGetValueType(gv);
  LLVMValueRef s = LLVMGetNamedGlobal(g->zm->mod, name);
  if (!s) {
    s = LLVMAddGlobalInAddressSpace(g->zm->mod, t, name, AS_SHARED);
    LLVMSetInitializer(s, LLVMGetUndef(t));
    LLVMSetLinkage(s, LLVMInternalLinkage);
    LLVMSetAlignment(s, LLVMGetAlignment(gv) ? LLVMGetAlignment(gv) : 8);
  }
  for (size_t k = 0; k < g->gpu_shared.len; k++)
    if (g->gpu_shared.data[k] == s)
      s = NULL;
  if (s)
    zy_vec_push(&g->gpu_shared, s);
  *shadow = LLVMGetNamedGlobal(g->zm->mod, name);
  return 0;
}

/* At the builder: thread `me` of `n` zeroes `count` values of type `t`
 * from `p`, striding by `n`. */
static void zero_strided(ZyGen *g, LLVMBuilderRef b, LLVMValueRef p,
                         LLVMTypeRef t, LLVMValueRef count, LLVMValueRef me,
                         LLVMValueRef n) {
  LLVMContextRef c = g->zm->ctx;
  LLVMTypeRef it = LLVMTypeOf(count);
  me = LLVMBuildZExtOrBitCast(b, me, it, "");
  n = LLVMBuildZExtOrBitCast(b, n, it, "");
  LLVMBasicBlockRef from = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef loop =
      LLVMAppendBasicBlockInContext(c, g->grad, "zymase.zero.shared");
  LLVMBasicBlockRef body =
      LLVMAppendBasicBlockInContext(c, g->grad, "zymase.zero.byte");
  LLVMBasicBlockRef done =
      LLVMAppendBasicBlockInContext(c, g->grad, "zymase.zero.done");
  LLVMBuildBr(b, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef at = LLVMBuildPhi(b, it, "");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, at, count, ""), body, done);
  LLVMPositionBuilderAtEnd(b, body);
  LLVMBuildStore(b, LLVMConstNull(t), LLVMBuildGEP2(b, t, p, &at, 1, ""));
  LLVMValueRef step = LLVMBuildAdd(b, at, n, "");
  LLVMBuildBr(b, loop);
  LLVMAddIncoming(at, (LLVMValueRef[]){me, step},
                  (LLVMBasicBlockRef[]){from, body}, 2);
  LLVMPositionBuilderAtEnd(b, done);
}

/* At the end of the gradient's entry block (builder `b`): a barrier (the
 * shadows may still be read by a previous call); the dynamic shared
 * memory's shadow allocated by thread 0, a barrier; the block's threads
 * zeroing the shared shadows byte by byte (the dynamic one by 8-byte
 * words) from their thread number by the block size, a barrier; then on
 * to `next`. */
void zy_gpu_zero_shared(ZyGen *g, LLVMBuilderRef b, LLVMBasicBlockRef next) {
  if (!g->gpu_shared.len && !g->gpu_dyn) {
    LLVMBuildBr(b, next);
    return;
  }
  LLVMModuleRef m = g->zm->mod;
  LLVMContextRef c = g->zm->ctx;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c), i8 = LLVMInt8TypeInContext(c);
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
  const ZyGpuTarget *t = zy_gpu_target(m);
  t->barrier(b, m);
  LLVMValueRef nx = t->thread(b, m, 1, 0), ny = t->thread(b, m, 1, 1);
  LLVMValueRef nz = t->thread(b, m, 1, 2), x = t->thread(b, m, 0, 0);
  LLVMValueRef y = t->thread(b, m, 0, 1), z = t->thread(b, m, 0, 2);
  LLVMValueRef n = LLVMBuildMul(b, LLVMBuildMul(b, nx, ny, ""), nz, "");
  LLVMValueRef me = LLVMBuildAdd(
      b, x,
      LLVMBuildMul(b, nx, LLVMBuildAdd(b, y, LLVMBuildMul(b, ny, z, ""), ""),
                   ""),
      "");
  LLVMValueRef words = g->gpu_dyn ? zy_gpu_dynamic_alloc(g, b) : NULL;
  for (size_t k = 0; k < g->gpu_shared.len; k++) {
    LLVMValueRef s = g->gpu_shared.data[k];
    unsigned long long size = LLVMABISizeOfType(td, LLVMGlobalGetValueType(s));
    zero_strided(g, b, s, i8, LLVMConstInt(i32, size, 0), me, n);
  }
  if (words)
    zero_strided(g, b, g->gpu_dyn, LLVMInt64TypeInContext(c), words, me, n);
  t->barrier(b, m);
  LLVMBuildBr(b, next);
}
