/* gpu_accumulate.c - adding adjoints to shadow memory in device code: a
 * plain add where the thread owns the location (its address is injective
 * in the grid's thread number), a warp-shuffle and shared-memory
 * reduction and one atomic per block where every thread adds to the same
 * address, atomic otherwise.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "parallel.h"

#include "ad/ad.h"
#include "ad/cache.h"
#include "ir/rules.h"

#include <stdio.h>
#include <string.h>

enum { SITES_OTHER = 1, SITES_UNIFORM = 2, SITES_CONVERGENT = 3 };

static const ZyGpuTarget *target(ZyGen *g) { return zy_gpu_target(g->zm->mod); }

/* Whether `call` calls a function whose (maybe mangled) name holds
 * `part`. */
static int callee_named(LLVMValueRef call, const char *part) {
  LLVMValueRef f = LLVMGetCalledValue(call);
  return f && LLVMIsAFunction(f) && strstr(LLVMGetValueName(f), part);
}

static int is_kernel(LLVMValueRef f) {
  unsigned cc = LLVMGetFunctionCallConv(f);
  return cc == 71 /* ptx_kernel */ || cc == 91 /* amdgpu_kernel */;
}

/* The global variable behind `p` through address-space casts. */
static LLVMValueRef global_of(LLVMValueRef p) {
  while (LLVMIsAConstantExpr(p) && LLVMGetConstOpcode(p) == LLVMAddrSpaceCast)
    p = LLVMGetOperand(p, 0);
  return LLVMIsAGlobalVariable(p) ? p : NULL;
}

/* Whether `p` is a local of the function: an alloca, or (HIP at -O0) the
 * generic-pointer cast of one, its only use. */
static int private_local(LLVMValueRef p) {
  if (LLVMIsAAllocaInst(p))
    return 1;
  if (!LLVMIsAAddrSpaceCastInst(p))
    return 0;
  LLVMValueRef a = LLVMGetOperand(p, 0);
  LLVMUseRef u = LLVMGetFirstUse(a);
  return LLVMIsAAllocaInst(a) && u && !LLVMGetNextUse(u);
}

/* Whether `p`, reached from a by-value argument through GEPs of constant
 * indices, is only loaded from. */
static int only_loaded(LLVMValueRef p, int depth) {
  for (LLVMUseRef u = LLVMGetFirstUse(p); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef i = LLVMGetUser(u);
    if (LLVMIsALoadInst(i))
      continue;
    if (!LLVMIsAGetElementPtrInst(i) || LLVMGetOperand(i, 0) != p ||
        depth > 4 || !LLVMIsConstant(LLVMGetOperand(i, 1)) ||
        !only_loaded(i, depth + 1))
      return 0;
  }
  return 1;
}

/* Whether `p` points into a by-value argument of kernel `k` (a struct
 * of the kernel's parameters, the same bytes in every thread: XSBench's
 * and RSBench's data) that the kernel only loads from. */
static int uniform_byval(LLVMValueRef p, LLVMValueRef k) {
  for (int d = 0; LLVMIsAGetElementPtrInst(p); d++) {
    for (int o = 1; o < LLVMGetNumOperands(p); o++)
      if (!LLVMIsAConstantInt(LLVMGetOperand(p, o)) || d > 4)
        return 0;
    p = LLVMGetOperand(p, 0);
  }
  if (!LLVMIsAArgument(p) || LLVMGetParamParent(p) != k)
    return 0;
  unsigned idx = 1;
  for (LLVMValueRef a = LLVMGetFirstParam(k); a != p; a = LLVMGetNextParam(a))
    idx++;
  unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
  return LLVMGetEnumAttributeAtIndex(k, idx, byval) && only_loaded(p, 0);
}

/* Whether operand `v` of a call in kernel `k` has the same value in every
 * thread: a constant, a global, an argument of the kernel, a load from a
 * by-value argument of the kernel that it only reads, a marker read
 * (Enzyme's `enzyme_*` globals), or (-O0) a load of a local of the kernel
 * into which only such values are stored; or a cast of one (HIP passes
 * its kernel's pointers through ptrtoint/inttoptr or addrspacecast). */
static int uniform_operand(LLVMValueRef v, LLVMValueRef k, int depth) {
  if (LLVMIsAConstant(v))
    return 1;
  if (LLVMIsACastInst(v)) /* HIP: a kernel argument as a generic pointer */
    return uniform_operand(LLVMGetOperand(v, 0), k, depth);
  if (LLVMIsAArgument(v))
    return LLVMGetParamParent(v) == k;
  if (!LLVMIsALoadInst(v) || depth > 1)
    return 0;
  LLVMValueRef p = LLVMGetOperand(v, 0), gv = global_of(p);
  if (gv)
    return !strncmp(LLVMGetValueName(gv), "enzyme_", 7);
  if (uniform_byval(p, k))
    return 1;
  if (!private_local(p))
    return 0;
  for (LLVMUseRef u = LLVMGetFirstUse(p); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef i = LLVMGetUser(u);
    if (LLVMIsALoadInst(i))
      continue;
    if (!LLVMIsAStoreInst(i) || LLVMGetOperand(i, 1) != p ||
        !uniform_operand(LLVMGetOperand(i, 0), k, depth + 1))
      return 0;
  }
  return 1;
}

/* Whether function `f` (a kernel), or a function it calls, makes a
 * gradient call other than `c` (or a call that cannot be followed). */
static int other_gradient_call(LLVMValueRef f, LLVMValueRef c, int depth) {
  if (depth > 6)
    return 1;
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b;
       b = LLVMGetNextBasicBlock(b))
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); i;
         i = LLVMGetNextInstruction(i)) {
      if (!LLVMIsACallInst(i) || i == c)
        continue;
      LLVMValueRef callee = LLVMGetCalledValue(i);
      if (!callee || !LLVMIsAFunction(callee))
        return 1; /* an indirect call */
      if (callee_named(i, "__enzyme_") || callee_named(i, "__zymase_"))
        return 1;
      if (LLVMGetFirstBasicBlock(callee) && callee != f &&
          other_gradient_call(callee, c, depth + 1))
        return 1;
    }
  return 0;
}

/* How the gradient being built is called: SITES_UNIFORM when every use of
 * the user's function is the function operand of an `__enzyme_autodiff`
 * call in a kernel, with every other operand uniform, each kernel making
 * no other gradient call (no other code of the kernel adds to the same
 * shadows at the same time); SITES_CONVERGENT when moreover each such
 * call is in its kernel's entry block (every thread of the kernel makes
 * it); SITES_OTHER otherwise. */
static int call_sites(ZyGen *g) {
  int entry = 1, any = 0;
  for (LLVMUseRef u = LLVMGetFirstUse(g->user); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef c = LLVMGetUser(u);
    if (!LLVMIsACallInst(c) || !callee_named(c, "__enzyme_autodiff") ||
        LLVMGetOperand(c, 0) != g->user)
      return SITES_OTHER;
    LLVMBasicBlockRef bb = LLVMGetInstructionParent(c);
    LLVMValueRef k = LLVMGetBasicBlockParent(bb);
    if (!is_kernel(k))
      return SITES_OTHER;
    for (unsigned a = 1; a < LLVMGetNumArgOperands(c); a++)
      if (!uniform_operand(LLVMGetOperand(c, a), k, 0))
        return SITES_OTHER;
    if (other_gradient_call(k, c, 0))
      return SITES_OTHER;
    entry &= bb == LLVMGetEntryBasicBlock(k);
    any = 1;
  }
  return !any ? SITES_OTHER : entry ? SITES_CONVERGENT : SITES_UNIFORM;
}

/* Values of the primal with the same value in every thread: constants,
 * globals, the block and grid sizes, and (calls passing uniform operands
 * only) the function's arguments. */
static int uniform_value(LLVMValueRef v, void *ctx) {
  ZyGen *g = ctx;
  if (LLVMIsAConstant(v) || LLVMIsAGlobalValue(v))
    return 1;
  if (LLVMIsAArgument(v))
    return LLVMGetParamParent(v) == g->primal && g->gpu_sites >= SITES_UNIFORM;
  return target(g)->uniform(v);
}

static LLVMValueRef i32c(ZyGen *g, long long v) {
  return LLVMConstInt(LLVMInt32TypeInContext(g->zm->ctx), (unsigned long long)v,
                      1);
}

/* The primal block whose reverse the builder is in, or NULL when it is in
 * a block made on the way (other than by this file). */
LLVMBasicBlockRef zy_gpu_reversed_block(ZyGen *g) {
  LLVMBasicBlockRef at = LLVMGetInsertBlock(g->b);
  LLVMBasicBlockRef pbb = zy_map_get(&g->gpu_join, at);
  if (pbb)
    return pbb;
  for (size_t k = 0; k < g->order.len; k++)
    if (zy_map_get(&g->rblock, g->order.data[k]) == at)
      return g->order.data[k];
  return NULL;
}

/* Whether every thread that calls the gradient runs the reverse block the
 * builder is in, with all lanes of a warp together: the gradient is
 * called from kernels' entry blocks, and the block dominates every return
 * and is in no loop. */
static int convergent_here(ZyGen *g) {
  LLVMBasicBlockRef pbb = zy_gpu_reversed_block(g);
  return g->gpu_sites == SITES_CONVERGENT && pbb &&
         zy_map_has(&g->domrets, pbb) && !zy_loop_of(g, pbb);
}

/* Opens blocks `yes` and `no` on condition `c` and returns their join. */
static LLVMBasicBlockRef fork(ZyGen *g, LLVMValueRef c, const char *what,
                              LLVMBasicBlockRef *yes, LLVMBasicBlockRef *no) {
  LLVMContextRef ctx = g->zm->ctx;
  LLVMBasicBlockRef pbb = zy_gpu_reversed_block(g);
  char name[64];
  snprintf(name, sizeof name, "zymase.%s", what);
  *yes = LLVMAppendBasicBlockInContext(ctx, g->grad, name);
  *no = LLVMAppendBasicBlockInContext(ctx, g->grad, "zymase.atomic");
  LLVMBasicBlockRef join =
      LLVMAppendBasicBlockInContext(ctx, g->grad, "zymase.acc.join");
  if (pbb)
    zy_map_put(&g->gpu_join, join, pbb);
  LLVMBuildCondBr(g->b, c, *yes, *no);
  return join;
}

/* Lane `lane` + `off`'s `v` (a float or a double, as one or two i32),
 * among the lanes of `mask`. */
static LLVMValueRef shuffle_down(ZyGen *g, LLVMValueRef mask, LLVMValueRef lane,
                                 LLVMValueRef v, int off) {
  LLVMContextRef c = g->zm->ctx;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c), i64 = LLVMInt64TypeInContext(c);
  const ZyGpuTarget *t = target(g);
  LLVMModuleRef m = g->zm->mod;
  if (LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMFloatTypeKind) {
    LLVMValueRef w = LLVMBuildBitCast(g->b, v, i32, "");
    w = t->down(g->b, m, mask, lane, w, off);
    return LLVMBuildBitCast(g->b, w, LLVMTypeOf(v), "");
  }
  LLVMValueRef bits = LLVMBuildBitCast(g->b, v, i64, "");
  LLVMValueRef half[2] = {
      LLVMBuildTrunc(g->b, bits, i32, ""),
      LLVMBuildTrunc(g->b,
                     LLVMBuildLShr(g->b, bits, LLVMConstInt(i64, 32, 0), ""),
                     i32, "")};
  for (int k = 0; k < 2; k++)
    half[k] = LLVMBuildZExt(g->b, t->down(g->b, m, mask, lane, half[k], off),
                            i64, "");
  LLVMValueRef hi = LLVMBuildShl(g->b, half[1], LLVMConstInt(i64, 32, 0), "");
  return LLVMBuildBitCast(g->b, LLVMBuildOr(g->b, half[0], hi, ""),
                          LLVMTypeOf(v), "");
}

static void barrier(ZyGen *g) { target(g)->barrier(g->b, g->zm->mod); }

/* The block's shared buffer of one partial sum per 32 threads (1024
 * threads at most), of type `t`. */
static LLVMValueRef warp_sums(ZyGen *g, LLVMTypeRef t) {
  const char *name = LLVMGetTypeKind(t) == LLVMFloatTypeKind
                         ? "zymase.warp.sums.f32"
                         : "zymase.warp.sums.f64";
  LLVMValueRef gv = LLVMGetNamedGlobal(g->zm->mod, name);
  if (!gv) {
    LLVMTypeRef at = LLVMArrayType2(t, 32);
    gv = LLVMAddGlobalInAddressSpace(g->zm->mod, at, name, 3);
    LLVMSetLinkage(gv, LLVMInternalLinkage);
    LLVMSetInitializer(gv, LLVMGetUndef(at));
    LLVMSetAlignment(gv, 8);
  }
  return gv;
}

static LLVMBasicBlockRef new_block(ZyGen *g, const char *name,
                                   LLVMBasicBlockRef pbb) {
  LLVMBasicBlockRef bb =
      LLVMAppendBasicBlockInContext(g->zm->ctx, g->grad, name);
  if (pbb)
    zy_map_put(&g->gpu_join, bb, pbb);
  return bb;
}

/* The thread's number in its block and the block's count of 32-thread
 * slots. */
static LLVMValueRef linear_tid(ZyGen *g, LLVMValueRef *warps) {
  const ZyGpuTarget *t = target(g);
  LLVMModuleRef m = g->zm->mod;
  LLVMValueRef x = t->thread(g->b, m, 0, 0), y = t->thread(g->b, m, 0, 1);
  LLVMValueRef z = t->thread(g->b, m, 0, 2), nx = t->thread(g->b, m, 1, 0);
  LLVMValueRef ny = t->thread(g->b, m, 1, 1), nz = t->thread(g->b, m, 1, 2);
  LLVMValueRef n = LLVMBuildMul(g->b, LLVMBuildMul(g->b, nx, ny, ""), nz, "");
  *warps = LLVMBuildLShr(g->b, LLVMBuildAdd(g->b, n, i32c(g, 31), ""),
                         i32c(g, 5), "");
  LLVMValueRef zy = LLVMBuildAdd(g->b, y, LLVMBuildMul(g->b, ny, z, ""), "");
  return LLVMBuildAdd(g->b, x, LLVMBuildMul(g->b, nx, zy, ""), "");
}

/* The warp's sum of `delta` at lane 0 where the lanes of the warp are
 * present together from lane 0 (the mask of those present, `activemask`
 * or amdgcn's exec mask, is lanes 0..k-1: a full warp, or the block's
 * last, partial one): shuffles down the warp, lanes past k adding 0.
 * Otherwise (lanes diverged) each lane adds atomically and the warp's
 * sum is 0. */
static LLVMValueRef warp_sum(ZyGen *g, LLVMValueRef shadow, LLVMValueRef delta,
                             LLVMBasicBlockRef pbb) {
  const ZyGpuTarget *tg = target(g);
  LLVMTypeRef t = LLVMTypeOf(delta);
  LLVMValueRef mask = tg->present(g->b, g->zm->mod);
  LLVMTypeRef mt = LLVMTypeOf(mask), i32 = LLVMInt32TypeInContext(g->zm->ctx);
  LLVMValueRef low = LLVMBuildICmp(
      g->b, LLVMIntEQ,
      LLVMBuildAnd(g->b, mask,
                   LLVMBuildAdd(g->b, mask, LLVMConstInt(mt, 1, 0), ""), ""),
      LLVMConstNull(mt), "");
  LLVMBasicBlockRef warp = new_block(g, "zymase.warp", pbb);
  LLVMBasicBlockRef lane = new_block(g, "zymase.atomic", pbb);
  LLVMBasicBlockRef file = new_block(g, "zymase.warp.file", pbb);
  LLVMBuildCondBr(g->b, low, warp, lane);
  LLVMPositionBuilderAtEnd(g->b, lane);
  zy_accumulate(g, shadow, delta, ZY_ACC_ATOMIC);
  LLVMBuildBr(g->b, file);
  LLVMPositionBuilderAtEnd(g->b, warp);
  LLVMValueRef popc = LLVMGetIntrinsicDeclaration(
      g->zm->mod, LLVMLookupIntrinsicID("llvm.ctpop", 10), &mt, 1);
  LLVMValueRef k =
      LLVMBuildCall2(g->b, LLVMGlobalGetValueType(popc), popc, &mask, 1, "");
  k = LLVMBuildIntCast2(g->b, k, i32, 0, "");
  LLVMValueRef me = tg->lane(g->b, g->zm->mod);
  LLVMValueRef v = delta;
  for (int off = 1 << (tg->warp_log2 - 1); off >= 1; off /= 2) {
    LLVMValueRef from = LLVMBuildICmp(
        g->b, LLVMIntULT, LLVMBuildAdd(g->b, me, i32c(g, off), ""), k, "");
    LLVMValueRef got = LLVMBuildSelect(
        g->b, from, shuffle_down(g, mask, me, v, off), LLVMConstNull(t), "");
    v = LLVMBuildFAdd(g->b, v, got, "");
  }
  LLVMBuildBr(g->b, file);
  LLVMPositionBuilderAtEnd(g->b, file);
  LLVMValueRef sum = LLVMBuildPhi(g->b, t, "");
  LLVMValueRef in[2] = {v, LLVMConstNull(t)};
  LLVMBasicBlockRef from[2] = {warp, lane};
  LLVMAddIncoming(sum, in, from, 2);
  return sum;
}

/* Same address in every thread of the block, all of them here: each
 * warp's sum (warp_sum) is filed in shared memory, one slot per 32
 * threads (thread t & 31 == 0 files its warp's sum if it is lane 0, else
 * 0: one layout for warps of 32 and wavefronts of 32 or 64); after a
 * barrier thread 0 adds the slots and makes the block's one atomic add;
 * a second barrier lets the buffer be reused, unless `last` (the
 * gradient's last use of it, just before it returns: the kernel makes no
 * other gradient call, SITES_CONVERGENT). */
static void block_reduce(ZyGen *g, LLVMValueRef shadow, LLVMValueRef delta,
                         int last) {
  LLVMTypeRef t = LLVMTypeOf(delta), i32 = LLVMInt32TypeInContext(g->zm->ctx);
  LLVMBasicBlockRef pbb = zy_gpu_reversed_block(g);
  LLVMValueRef sum = warp_sum(g, shadow, delta, pbb);
  LLVMValueRef warps, tid = linear_tid(g, &warps);
  LLVMValueRef buf = warp_sums(g, t);
  LLVMBasicBlockRef put = new_block(g, "zymase.warp.put", pbb);
  LLVMBasicBlockRef sync = new_block(g, "zymase.block.sync", pbb);
  LLVMValueRef first =
      LLVMBuildICmp(g->b, LLVMIntEQ, LLVMBuildAnd(g->b, tid, i32c(g, 31), ""),
                    i32c(g, 0), "");
  LLVMBuildCondBr(g->b, first, put, sync);
  LLVMPositionBuilderAtEnd(g->b, put);
  LLVMValueRef lane0 = LLVMBuildICmp(
      g->b, LLVMIntEQ, target(g)->lane(g->b, g->zm->mod), i32c(g, 0), "");
  LLVMValueRef at = LLVMBuildGEP2(
      g->b, t, buf, (LLVMValueRef[]){LLVMBuildLShr(g->b, tid, i32c(g, 5), "")},
      1, "");
  LLVMBuildStore(g->b, LLVMBuildSelect(g->b, lane0, sum, LLVMConstNull(t), ""),
                 at);
  LLVMBuildBr(g->b, sync);
  LLVMPositionBuilderAtEnd(g->b, sync);
  barrier(g);
  /* Thread 0: for (w = 0; w < warps; w++) s += buf[w]; one atomic. */
  LLVMBasicBlockRef head = new_block(g, "zymase.block.sum", pbb);
  LLVMBasicBlockRef loop = new_block(g, "zymase.block.loop", pbb);
  LLVMBasicBlockRef add = new_block(g, "zymase.block.add", pbb);
  LLVMBasicBlockRef done = new_block(g, "zymase.block.done", pbb);
  LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, tid, i32c(g, 0), ""),
                  head, done);
  LLVMPositionBuilderAtEnd(g->b, head);
  LLVMBuildBr(g->b, loop);
  LLVMPositionBuilderAtEnd(g->b, loop);
  LLVMValueRef w = LLVMBuildPhi(g->b, i32, ""), s = LLVMBuildPhi(g->b, t, "");
  LLVMValueRef x =
      LLVMBuildLoad2(g->b, t, LLVMBuildGEP2(g->b, t, buf, &w, 1, ""), "");
  LLVMValueRef s2 = LLVMBuildFAdd(g->b, s, x, "");
  LLVMValueRef w2 = LLVMBuildAdd(g->b, w, i32c(g, 1), "");
  LLVMValueRef w0 = i32c(g, 0), s0 = LLVMConstNull(t);
  LLVMAddIncoming(w, (LLVMValueRef[]){w0, w2},
                  (LLVMBasicBlockRef[]){head, loop}, 2);
  LLVMAddIncoming(s, (LLVMValueRef[]){s0, s2},
                  (LLVMBasicBlockRef[]){head, loop}, 2);
  LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntULT, w2, warps, ""), loop,
                  add);
  LLVMPositionBuilderAtEnd(g->b, add);
  zy_accumulate(g, shadow, s2, ZY_ACC_ATOMIC);
  LLVMBuildBr(g->b, done);
  LLVMPositionBuilderAtEnd(g->b, done);
  if (!last)
    barrier(g);
}

/* The thread's own element: plain where the launch is one-dimensional
 * (threads differing only in y or z would share it), atomic otherwise. */
static void owned_add(ZyGen *g, LLVMValueRef shadow, LLVMValueRef delta) {
  LLVMValueRef one = target(g)->one_dim(g->b, g->zm->mod);
  LLVMBasicBlockRef plain, atomic,
      join = fork(g, one, "owned", &plain, &atomic);
  LLVMPositionBuilderAtEnd(g->b, atomic);
  zy_accumulate(g, shadow, delta, ZY_ACC_ATOMIC);
  LLVMBuildBr(g->b, join);
  LLVMPositionBuilderAtEnd(g->b, plain);
  zy_accumulate(g, shadow, delta, ZY_ACC_PLAIN);
  LLVMBuildBr(g->b, join);
  LLVMPositionBuilderAtEnd(g->b, join);
}

/* Whether primal pointer `p` can be had where the gradient returns: a
 * constant, an argument, a value of a block every return passes, or a
 * GEP with constant indices from such a pointer (made again there). */
static int known_at_return(ZyGen *g, LLVMValueRef p, int depth) {
  if (LLVMIsAConstant(p) || LLVMIsAArgument(p))
    return 1;
  if (!LLVMIsAInstruction(p) || depth > 4)
    return 0;
  if (zy_map_has(&g->domrets, LLVMGetInstructionParent(p)))
    return 1;
  if (!LLVMIsAGetElementPtrInst(p))
    return 0;
  if (LLVMGetNumOperands(p) > 9)
    return 0;
  for (int k = 1; k < LLVMGetNumOperands(p); k++)
    if (!LLVMIsAConstantInt(LLVMGetOperand(p, k)))
      return 0;
  return known_at_return(g, LLVMGetOperand(p, 0), depth + 1);
}

/* The shadow of `p` (known_at_return) at the builder's position, there. */
static LLVMValueRef shadow_at_return(ZyGen *g, LLVMValueRef p) {
  if (!LLVMIsAInstruction(p) ||
      zy_map_has(&g->domrets, LLVMGetInstructionParent(p)))
    return zy_shadow_lookup(g, p);
  LLVMValueRef idx[8];
  unsigned n = (unsigned)LLVMGetNumOperands(p) - 1;
  if (n > 8)
    return zy_shadow_lookup(g, p); /* not reached: known_at_return */
  for (unsigned k = 0; k < n; k++)
    idx[k] = LLVMGetOperand(p, k + 1);
  return LLVMBuildGEP2(g->b, LLVMGetGEPSourceElementType(p),
                       shadow_at_return(g, LLVMGetOperand(p, 0)), idx, n, "");
}

/* Math calls with a rule write at most errno (libdevice's and ocml's
 * not even that), never user memory. */
static int math_call(LLVMValueRef call, void *ctx) {
  (void)ctx;
  return zy_rule_call(call);
}

/* Whether the adjoints of the load being reversed (of uniform address
 * `p`) may be summed in a slot of the thread and added to the shadow
 * when the gradient returns: nothing in the function writes that memory
 * (the reverse of a write would read the shadow before the sum is
 * added), and `p` is known where the gradient returns. */
static int deferrable(ZyGen *g, LLVMValueRef p) {
  LLVMValueRef i = g->cur;
  if (g->split || !i || !LLVMIsALoadInst(i) || LLVMGetOperand(i, 0) != p)
    return 0;
  if (!known_at_return(g, p, 0))
    return 0;
  return !zy_llvm_alias_load_clobbered(g->alias, i, 0, math_call, NULL);
}

static void defer(ZyGen *g, LLVMValueRef p, LLVMValueRef delta) {
  LLVMValueRef slot = zy_map_get(&g->gpu_sum, p);
  if (!slot) {
    slot = zy_new_slot(g, LLVMTypeOf(delta), "zymase.sum", 1);
    zy_map_put(&g->gpu_sum, p, slot);
    zy_vec_push(&g->gpu_deferred, p);
  }
  zy_accumulate(g, slot, delta, ZY_ACC_PLAIN);
}

void zy_gpu_finish(ZyGen *g) {
  if (!g->gpu_deferred.len)
    return;
  LLVMValueRef ret = g->retinst;
  LLVMBasicBlockRef bb = LLVMGetInstructionParent(ret);
  LLVMInstructionRemoveFromParent(ret);
  LLVMPositionBuilderAtEnd(g->b, bb);
  for (size_t k = 0; k < g->gpu_deferred.len; k++) {
    LLVMValueRef p = g->gpu_deferred.data[k];
    LLVMValueRef slot = zy_map_get(&g->gpu_sum, p);
    LLVMTypeRef t = LLVMGetAllocatedType(slot);
    LLVMValueRef v = LLVMBuildLoad2(g->b, t, slot, "");
    LLVMValueRef shadow = shadow_at_return(g, p);
    if (g->gpu_sites == SITES_CONVERGENT) {
      block_reduce(g, shadow, v, k + 1 == g->gpu_deferred.len);
      continue;
    }
    /* One atomic per thread that has something to add. */
    LLVMBasicBlockRef add = new_block(g, "zymase.sum.add", NULL);
    LLVMBasicBlockRef done = new_block(g, "zymase.sum.done", NULL);
    LLVMBuildCondBr(g->b,
                    LLVMBuildFCmp(g->b, LLVMRealUNE, v, LLVMConstNull(t), ""),
                    add, done);
    LLVMPositionBuilderAtEnd(g->b, add);
    zy_accumulate(g, shadow, v, ZY_ACC_ATOMIC);
    LLVMBuildBr(g->b, done);
    LLVMPositionBuilderAtEnd(g->b, done);
  }
  LLVMInsertIntoBuilder(g->b, ret);
}

/* An atomic add of a float or double adjoint, skipped when it is zero:
 * a value loaded in a loop and used after it (GVN reuses the last
 * iteration's load of a binary search) has a zero adjoint in every other
 * iteration, which would make as many atomics of nothing. */
static void nonzero_atomic(ZyGen *g, LLVMValueRef shadow, LLVMValueRef delta) {
  LLVMBasicBlockRef pbb = zy_gpu_reversed_block(g);
  LLVMBasicBlockRef add = new_block(g, "zymase.atomic.nonzero", pbb);
  LLVMBasicBlockRef done = new_block(g, "zymase.atomic.done", pbb);
  LLVMValueRef nz = LLVMBuildFCmp(g->b, LLVMRealUNE, delta,
                                  LLVMConstNull(LLVMTypeOf(delta)), "");
  LLVMBuildCondBr(g->b, nz, add, done);
  LLVMPositionBuilderAtEnd(g->b, add);
  zy_accumulate(g, shadow, delta, ZY_ACC_ATOMIC);
  LLVMBuildBr(g->b, done);
  LLVMPositionBuilderAtEnd(g->b, done);
}

/* A line of the cache report (-zymase-print-cache), once per pointer. */
static void report(ZyGen *g, LLVMValueRef p, const char *how) {
  if (zy_map_has(&g->reported, p))
    return;
  zy_map_put(&g->reported, p, p);
  char line[256];
  snprintf(line, sizeof line, "its adjoints added to the shadow %s", how);
  zy_loops_report_note(g, p, line);
}

int zy_gpu_acc_applies(ZyGen *g, LLVMValueRef p, LLVMValueRef delta) {
  (void)p, (void)delta;
  return target(g) != NULL;
}

void zy_gpu_accumulate(ZyGen *g, LLVMValueRef p, LLVMValueRef shadow,
                       LLVMValueRef delta) {
  ZY_ASSERT(target(g));
  if (zy_parallel_acc_kind(g, p) == ZY_ACC_PLAIN) {
    report(g, p, "plainly (the thread's own stack or heap)");
    zy_accumulate(g, shadow, delta, ZY_ACC_PLAIN);
    return;
  }
  if (!g->gpu_sites)
    g->gpu_sites = zy_opt_gpu_all_atomic() ? SITES_OTHER : call_sites(g);
  int where = 0;
  if (g->gpu_sites >= SITES_UNIFORM) {
    if (!g->alias)
      g->alias = zy_llvm_alias_new(g->primal);
    where = zy_llvm_alias_gpu_address(g->alias, p, uniform_value, g);
  }
  LLVMTypeKind k = LLVMGetTypeKind(LLVMTypeOf(delta));
  int scalar = k == LLVMDoubleTypeKind || k == LLVMFloatTypeKind;
  if (where == 1 && scalar && deferrable(g, p)) {
    report(g, p,
           g->gpu_sites == SITES_CONVERGENT
               ? "summed per thread, then at the return by warp and "
                 "block sums and one atomic add per block"
               : "summed per thread, then at the return one atomic "
                 "add per thread");
    defer(g, p, delta);
  } else if (where == 2 && zy_parallel_sole_reader(g, p)) {
    report(g, p,
           "plainly (an element only this thread reads, in a "
           "one-dimensional launch; atomically otherwise)");
    owned_add(g, shadow, delta);
  } else if (where == 1 && scalar && convergent_here(g)) {
    report(g, p, "by warp and block sums, then one atomic add per block");
    block_reduce(g, shadow, delta, 0);
  } else if (scalar && !zy_opt_gpu_all_atomic()) {
    report(g, p, "atomically, when not zero");
    nonzero_atomic(g, shadow, delta);
  } else {
    report(g, p, "atomically");
    zy_accumulate(g, shadow, delta, ZY_ACC_ATOMIC);
  }
}
