/* openmp.c - OpenMP as clang emits it for libomp (the table of its runtime
 * calls is calls/omp_calls.c): the rewrites of the clone to
 * differentiate (regions as calls, sum reductions as atomic adds, other
 * reductions as critical sections, sequence numbers for locks), and the
 * code of regions, barriers and locks in the forward and reverse sweeps.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "parallel.h"

#include "ad/ad.h"
#include "analysis/activity.h"
#include "ir/irutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- Helpers ------------------------------------------------------------- */

static LLVMContextRef ctx_of(LLVMValueRef v) {
  return LLVMGetTypeContext(LLVMTypeOf(v));
}

static LLVMTypeRef ptr_t(LLVMContextRef c) {
  return LLVMPointerTypeInContext(c, 0);
}

LLVMValueRef zy_omp_rt_call(LLVMBuilderRef b, const char *name,
                            LLVMTypeRef ret, LLVMValueRef *args, unsigned n) {
  LLVMTypeRef ts[8];
  ZY_ASSERT(n <= 8);
  for (unsigned k = 0; k < n; k++)
    ts[k] = LLVMTypeOf(args[k]);
  LLVMTypeRef fty = LLVMFunctionType(ret, ts, n, 0);
  LLVMValueRef f = zy_runtime_fn(zy_builder_module(b), name, fty);
  return LLVMBuildCall2(b, fty, f, args, n, "");
}

LLVMValueRef zy_omp_gtid(LLVMBuilderRef b, LLVMValueRef loc) {
  return zy_omp_rt_call(b, "__kmpc_global_thread_num",
                        LLVMInt32TypeInContext(ctx_of(loc)), &loc, 1);
}

static LLVMValueRef i32c(LLVMContextRef c, long long v) {
  return LLVMConstInt(LLVMInt32TypeInContext(c), v, 0);
}

static LLVMValueRef i64c(LLVMContextRef c, long long v) {
  return LLVMConstInt(LLVMInt64TypeInContext(c), v, 0);
}

static void barrier(LLVMBuilderRef b, LLVMValueRef loc, LLVMValueRef tid) {
  LLVMValueRef args[2] = {loc, tid};
  zy_omp_rt_call(b, "__kmpc_barrier", LLVMVoidTypeInContext(ctx_of(loc)), args, 2);
}

/* The slot counting the releases of lock `lock`: one of 64 in a table
 * shared by the program (locks may share a slot; their releases are then
 * numbered in one sequence, which still orders each lock's). */
LLVMValueRef zy_omp_slot(LLVMBuilderRef b, LLVMValueRef lock) {
  LLVMModuleRef m = zy_builder_module(b);
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef at = LLVMArrayType2(i64, 64);
  LLVMValueRef t = LLVMGetNamedGlobal(m, "zymase.omp.order");
  if (!t) {
    t = LLVMAddGlobal(m, at, "zymase.omp.order");
    LLVMSetInitializer(t, LLVMConstNull(at));
    LLVMSetLinkage(t, LLVMLinkOnceODRLinkage);
    LLVMSetVisibility(t, LLVMHiddenVisibility);
  }
  LLVMValueRef bits = LLVMBuildPtrToInt(b, lock, i64, "");
  bits = LLVMBuildLShr(b, bits, i64c(c, 6), "");
  LLVMValueRef idx[2] = {i64c(c, 0), LLVMBuildAnd(b, bits, i64c(c, 63), "")};
  return LLVMBuildGEP2(b, at, t, idx, 2, "zymase.omp.slot");
}

int zy_omp_order_slot(LLVMValueRef p) {
  LLVMValueRef o = zy_llvm_underlying_object(p);
  return o && LLVMIsAGlobalVariable(o) &&
         !strcmp(LLVMGetValueName(o), "zymase.omp.order");
}

/* --- Rewrites of the clone ------------------------------------------------ */

static unsigned region_kind(LLVMContextRef c) {
  return LLVMGetMDKindIDInContext(c, "zymase.omp.region", 17);
}

static LLVMValueRef strip_casts(LLVMValueRef v) {
  while (LLVMIsAConstantExpr(v) && LLVMGetConstOpcode(v) == LLVMBitCast)
    v = LLVMGetOperand(v, 0);
  return v;
}

/* Marks `call` as a region: !zymase.omp.region !{loc, body as forked}. */
static void mark_region(LLVMValueRef call, LLVMValueRef loc,
                        LLVMValueRef forked) {
  LLVMContextRef c = ctx_of(call);
  LLVMMetadataRef md[2] = {LLVMValueAsMetadata(loc),
                           LLVMValueAsMetadata(forked)};
  LLVMSetMetadata(call, region_kind(c),
                  LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, md, 2)));
}

static LLVMValueRef region_md(LLVMValueRef call, unsigned k) {
  LLVMValueRef md = LLVMGetMetadata(call, region_kind(ctx_of(call)));
  LLVMValueRef ops[2] = {NULL, NULL};
  if (md && LLVMGetMDNodeNumOperands(md) == 2)
    LLVMGetMDNodeOperands(md, ops);
  return ops[k];
}

LLVMValueRef zy_omp_region_loc(LLVMValueRef call) {
  LLVMValueRef loc = region_md(call, 0);
  return loc && LLVMIsAConstant(loc) ? loc : LLVMConstNull(ptr_t(ctx_of(call)));
}

LLVMValueRef zy_omp_region_forked(LLVMValueRef call) {
  return region_md(call, 1);
}

/* Whether the uses of `a`, a local variable of the function calling
 * region body `body`, only read it, write it, or pass it to `body`: then
 * nothing else in the body can reach it (it is not captured). */
static int only_passed_to(LLVMValueRef a, LLVMValueRef body) {
  if (!LLVMIsAAllocaInst(a))
    return 0;
  for (LLVMUseRef u = LLVMGetFirstUse(a); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef i = LLVMGetUser(u);
    if (LLVMIsALoadInst(i) ||
        (LLVMIsAStoreInst(i) && LLVMGetOperand(i, 0) != a))
      continue;
    if (!LLVMIsACallInst(i))
      return 0;
    LLVMValueRef f = strip_casts(LLVMGetCalledValue(i));
    const char *name = LLVMIsAFunction(f) ? LLVMGetValueName(f) : "";
    if (f == body || !strncmp(name, "llvm.lifetime.", 14) ||
        !strncmp(name, "llvm.dbg.", 9))
      continue;
    if (!strcmp(name, "__kmpc_fork_call") &&
        strip_casts(LLVMGetOperand(i, 2)) == body) {
      for (unsigned k = 0; k < 3; k++)
        if (LLVMGetOperand(i, k) == a)
          return 0;
      continue;
    }
    return 0;
  }
  return 1;
}

/* The argument that call or fork `site` passes for parameter k of the
 * body, or NULL. */
static LLVMValueRef site_arg(LLVMValueRef site, LLVMValueRef body,
                             unsigned k) {
  if (!LLVMIsACallInst(site))
    return NULL;
  if (LLVMGetCalledValue(site) == body)
    return k < LLVMGetNumArgOperands(site) ? LLVMGetOperand(site, k) : NULL;
  LLVMValueRef f = LLVMGetCalledValue(site);
  if (LLVMIsAFunction(f) && !strcmp(LLVMGetValueName(f), "__kmpc_fork_call") &&
      strip_casts(LLVMGetOperand(site, 2)) == body &&
      k + 1 < LLVMGetNumArgOperands(site))
    return LLVMGetOperand(site, k + 1);
  return NULL;
}

/* Whether parameter k of region body `body` is the address of a local
 * variable of every caller that nothing else can reach: each call or fork
 * of the body passes such a local (not twice).  The variable is shared by
 * the threads of the region, yet no other pointer the body receives or
 * loads can point to it. */
int zy_omp_unreachable_param(LLVMValueRef body, unsigned k) {
  unsigned np = LLVMCountParams(body);
  if (k < 2 || k >= np ||
      LLVMGetTypeKind(LLVMTypeOf(LLVMGetParam(body, k))) != LLVMPointerTypeKind)
    return 0;
  int sites = 0;
  for (LLVMUseRef u = LLVMGetFirstUse(body); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef site = LLVMGetUser(u);
    while (LLVMIsAConstantExpr(site) && LLVMGetFirstUse(site))
      site = LLVMGetUser(LLVMGetFirstUse(site));
    LLVMValueRef a = site_arg(site, body, k);
    if (!a || !only_passed_to(a, body))
      return 0;
    for (unsigned j = 2; j < np; j++) /* not passed twice */
      if (j != k && site_arg(site, body, j) == a)
        return 0;
    sites++;
  }
  return sites > 0;
}

/* Whether `v` (a parameter, or a GEP of it) is only read through. */
static int only_read(LLVMValueRef v, int depth) {
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef i = LLVMGetUser(u);
    if (LLVMIsALoadInst(i))
      continue;
    if (LLVMIsAGetElementPtrInst(i) && LLVMGetOperand(i, 0) == v &&
        depth < 4 && only_read(i, depth + 1))
      continue;
    return 0;
  }
  return 1;
}

/* A shared variable that only the region receives and that the body only
 * reads is `noalias` in the body: nothing modifies it while the region
 * runs (the caller waits at the fork, the threads only read it), which is
 * what the attribute asks.  The optimizer may then keep it in a register
 * across the loop, and the adjoint is added to its shadow once per thread
 * instead of once per iteration. */
static void mark_read_only_shared(LLVMValueRef body) {
  unsigned kind = LLVMGetEnumAttributeKindForName("noalias", 7);
  for (unsigned k = 2; k < LLVMCountParams(body); k++)
    if (zy_omp_unreachable_param(body, k) &&
        only_read(LLVMGetParam(body, k), 0))
      LLVMAddAttributeAtIndex(body, k + 1,
                              LLVMCreateEnumAttribute(ctx_of(body), kind, 0));
}

/* The region body the gradient calls: a copy of the program's outlined
 * function (`body.zymase.region`, made once), which the rewrites here may
 * mark; the program's own stays as it was. */
static LLVMValueRef own_body(LLVMValueRef body) {
  char name[512];
  const char *own = LLVMGetValueName(body);
  if (strstr(own, ".zymase.region"))
    return body;
  snprintf(name, sizeof name, "%s.zymase.region", own);
  LLVMValueRef copy = LLVMGetNamedFunction(LLVMGetGlobalParent(body), name);
  return copy ? copy : zy_llvm_clone_function(body, name);
}

/* fork(loc, n, body, a...) -> body(null, null, a...) marked with loc. */
static void make_region(LLVMBuilderRef b, LLVMValueRef fork) {
  unsigned n = LLVMGetNumArgOperands(fork);
  LLVMValueRef body = strip_casts(LLVMGetOperand(fork, 2));
  if (n < 3 || !LLVMIsAFunction(body) || LLVMIsDeclaration(body))
    return; /* refused by zy_omp_check */
  LLVMTypeRef fty = LLVMGlobalGetValueType(body);
  unsigned np = LLVMCountParamTypes(fty);
  if (np != n - 1 || LLVMIsFunctionVarArg(fty))
    return;
  body = own_body(body);
  LLVMSetOperand(fork, 2, body); /* its one site, which marking reads */
  mark_read_only_shared(body);
  LLVMTypeRef *ts = calloc(np, sizeof *ts);
  LLVMValueRef *args = calloc(np, sizeof *args);
  LLVMGetParamTypes(fty, ts);
  int ok = 1;
  LLVMContextRef c = ctx_of(fork);
  args[0] = args[1] = LLVMConstNull(ptr_t(c));
  for (unsigned k = 2; k < np; k++) {
    args[k] = LLVMGetOperand(fork, k + 1);
    ok &= LLVMTypeOf(args[k]) == ts[k];
  }
  if (ok) {
    LLVMPositionBuilderBefore(b, fork);
    LLVMValueRef call = LLVMBuildCall2(b, fty, body, args, np, "");
    mark_region(call, LLVMGetOperand(fork, 0), body);
    LLVMInstructionEraseFromParent(fork);
  }
  free(ts);
  free(args);
}

/* __kmpc_reduce*(loc, tid, n, size, list, combine, lock) -> a critical
 * section under `lock`, in which every thread takes the first branch (it
 * combines its partial result into the shared variable): the runtime
 * would otherwise choose atomics or a tree combine it runs itself. */
static void reduce_as_critical(LLVMBuilderRef b, LLVMValueRef call,
                               const ZyOmpCall *row) {
  LLVMContextRef c = ctx_of(call);
  LLVMPositionBuilderBefore(b, call);
  LLVMValueRef args[3] = {LLVMGetOperand(call, 0), LLVMGetOperand(call, 1),
                          LLVMGetOperand(call, row->lock)};
  const char *name = LLVMGetValueName(LLVMGetCalledValue(call));
  if (row->kind == ZY_OMP_REDUCE) {
    zy_omp_rt_call(b, "__kmpc_critical", LLVMVoidTypeInContext(c), args, 3);
    LLVMReplaceAllUsesWith(call, i32c(c, 1));
  } else {
    zy_omp_rt_call(b, "__kmpc_end_critical", LLVMVoidTypeInContext(c), args, 3);
    if (!strcmp(name, "__kmpc_end_reduce")) /* ends with a barrier */
      barrier(b, args[0], args[1]);
  }
  LLVMInstructionEraseFromParent(call);
}

/* --- Sum reductions as atomic adds -------------------------------------- */

/* Whether `i`, in the atomic branch of a reduction, keeps that branch a
 * sum: an atomic add or subtract of a float (or an integer's atomic
 * update) whose old value is unused, the loads and address arithmetic
 * around it, the end of the reduction. */
static int sum_inst(LLVMValueRef i, int *floats) {
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMPHI:
  case LLVMGetElementPtr:
  case LLVMLoad:
  case LLVMICmp:
  case LLVMBr:
  case LLVMBitCast:
  case LLVMSExt:
  case LLVMZExt:
  case LLVMTrunc:
    return 1;
  case LLVMAtomicRMW: {
    LLVMTypeRef t = LLVMTypeOf(LLVMGetOperand(i, 1));
    LLVMAtomicRMWBinOp op = LLVMGetAtomicRMWBinOp(i);
    if (LLVMGetFirstUse(i))
      return 0;
    if (LLVMGetTypeKind(t) == LLVMIntegerTypeKind)
      return 1; /* no derivative: any update the branch makes */
    *floats += 1;
    return (LLVMGetTypeKind(t) == LLVMDoubleTypeKind ||
            LLVMGetTypeKind(t) == LLVMFloatTypeKind) &&
           (op == LLVMAtomicRMWBinOpFAdd || op == LLVMAtomicRMWBinOpFSub);
  }
  case LLVMCall: {
    LLVMValueRef f = LLVMGetCalledValue(i);
    const ZyOmpCall *row = zy_omp_call(f);
    const char *name = LLVMIsAFunction(f) ? LLVMGetValueName(f) : "";
    return (row && row->kind == ZY_OMP_END_REDUCE) ||
           !strncmp(name, "llvm.dbg.", 9) ||
           !strncmp(name, "llvm.lifetime.", 14);
  }
  default:
    return 0;
  }
}

/* The blocks from `from` to `join` (not included) into `out`; 0 when one
 * holds something `keep` refuses or there are more than 64. */
static int branch_blocks(LLVMBasicBlockRef from, LLVMBasicBlockRef join,
                         int (*keep)(LLVMValueRef, int *), int *floats,
                         ZyVec *out) {
  zy_vec_push(out, LLVMBasicBlockAsValue(from));
  for (size_t k = 0; k < out->len; k++) {
    LLVMBasicBlockRef bb = LLVMValueAsBasicBlock(out->data[k]);
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (keep && !keep(i, floats))
        return 0;
    LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
    if (!term || LLVMGetInstructionOpcode(term) != LLVMBr)
      return 0;
    for (unsigned s = 0; s < LLVMGetNumSuccessors(term); s++) {
      LLVMValueRef v = LLVMBasicBlockAsValue(LLVMGetSuccessor(term, s));
      int seen = LLVMValueAsBasicBlock(v) == join;
      for (size_t j = 0; j < out->len && !seen; j++)
        seen = out->data[j] == v;
      if (!seen)
        zy_vec_push(out, v);
    }
    if (out->len > 64)
      return 0;
  }
  return 1;
}

/* Removes the reduction's end calls in `blocks`; a blocking reduction's
 * (__kmpc_end_reduce) becomes the barrier it ends with when `barrier_too`. */
static void drop_end_calls(LLVMBuilderRef b, ZyVec *blocks, int barrier_too) {
  for (size_t k = 0; k < blocks->len; k++) {
    LLVMBasicBlockRef bb = LLVMValueAsBasicBlock(blocks->data[k]);
    LLVMValueRef i = LLVMGetFirstInstruction(bb);
    while (i) {
      LLVMValueRef next = LLVMGetNextInstruction(i);
      const ZyOmpCall *row =
          LLVMIsACallInst(i) ? zy_omp_call(LLVMGetCalledValue(i)) : NULL;
      if (row && row->kind == ZY_OMP_END_REDUCE) {
        const char *name = LLVMGetValueName(LLVMGetCalledValue(i));
        if (barrier_too && !strcmp(name, "__kmpc_end_reduce")) {
          LLVMPositionBuilderBefore(b, i);
          barrier(b, LLVMGetOperand(i, 0), LLVMGetOperand(i, 1));
        }
        LLVMInstructionEraseFromParent(i);
      }
      i = next;
    }
  }
}

/* __kmpc_reduce*(...) whose atomic branch (case 2 of the switch on its
 * result, which clang emits beside the combining one) only adds floats
 * atomically into the shared variables (+ and - reductions): every
 * thread takes that branch.  Its reverse is then a broadcast: each
 * partial gets the adjoint of the shared variable, which keeps it (the
 * adjoint of `atomicrmw fadd`), read after the barrier that mirrors the
 * reduction's end, with no lock and no order among the threads.  Other
 * reductions (*, max, min: a compare-and-swap loop) stay critical
 * sections.  Returns whether `call` was rewritten. */
static int reduce_as_atomics(LLVMBuilderRef b, LLVMValueRef call) {
  LLVMUseRef u = LLVMGetFirstUse(call);
  LLVMValueRef sw = u ? LLVMGetUser(u) : NULL;
  if (!sw || LLVMGetNextUse(u) || !LLVMIsASwitchInst(sw) ||
      LLVMGetOperand(sw, 0) != call)
    return 0;
  LLVMBasicBlockRef join = LLVMGetSwitchDefaultDest(sw);
  LLVMBasicBlockRef one = zy_llvm_switch_dest(sw, 1);
  LLVMBasicBlockRef two = zy_llvm_switch_dest(sw, 2);
  ZyVec ones = {0}, twos = {0};
  int floats = 0;
  int ok = one && two && one != join && two != join &&
           branch_blocks(two, join, sum_inst, &floats, &twos) && floats &&
           branch_blocks(one, join, NULL, NULL, &ones);
  for (size_t k = 0; ok && k < twos.len; k++) /* two branches apart */
    for (size_t j = 0; j < ones.len; j++)
      ok &= twos.data[k] != ones.data[j];
  if (ok) {
    LLVMReplaceAllUsesWith(call, i32c(ctx_of(call), 2));
    LLVMInstructionEraseFromParent(call);
    drop_end_calls(b, &ones, 0); /* no longer reached */
    drop_end_calls(b, &twos, 1);
  }
  zy_vec_free(&ones);
  zy_vec_free(&twos);
  return ok;
}

static void reductions_as_atomics(LLVMBuilderRef b, LLVMValueRef p) {
  ZyVec calls = {0};
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(p); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      const ZyOmpCall *row =
          LLVMIsACallInst(i) ? zy_omp_call(LLVMGetCalledValue(i)) : NULL;
      if (row && row->kind == ZY_OMP_REDUCE)
        zy_vec_push(&calls, i);
    }
  for (size_t k = 0; k < calls.len; k++)
    reduce_as_atomics(b, calls.data[k]);
  zy_vec_free(&calls);
}

/* __kmpc_dispatch_init_*(loc, gtid, schedule, lb, ub, st, chunk) with the
 * monotonic modifier instead of the nonmonotonic one (what clang gives
 * schedule(dynamic) since OpenMP 5): libomp runs nonmonotonic:dynamic as
 * work stealing, which sometimes gives no thread the last chunk's flag
 * (lastprivate then keeps the value from before the loop) or aborts
 * (llvm/llvm-project#86995).  Each thread of the gradient reverses the
 * iterations it ran whatever the schedule, so the clone may ask for the
 * monotonic one; the program's own loops keep theirs. */
enum { SCH_MONOTONIC = 1 << 29, SCH_NONMONOTONIC = 1 << 30 };

static void monotonic_schedule(LLVMValueRef call) {
  const char *name = LLVMGetValueName(LLVMGetCalledValue(call));
  LLVMValueRef sched =
      LLVMGetNumArgOperands(call) > 2 ? LLVMGetOperand(call, 2) : NULL;
  if (strncmp(name, "__kmpc_dispatch_init_", 21) || !sched ||
      !LLVMIsAConstantInt(sched))
    return;
  unsigned long long v = LLVMConstIntGetZExtValue(sched);
  v = (v & ~(unsigned long long)SCH_NONMONOTONIC) | SCH_MONOTONIC;
  LLVMSetOperand(call, 2, LLVMConstInt(LLVMTypeOf(sched), v, 0));
}

static void calls_of(LLVMValueRef p, ZyVec *out) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(p); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMIsACallInst(i) && zy_omp_call(LLVMGetCalledValue(i)))
        zy_vec_push(out, i);
}

/* Whether release `call` already takes a sequence number: a function made
 * from a prepared clone (a tangent function, differentiated again in
 * reverse over forward) keeps its copy, which must not count twice. */
static int numbered(LLVMValueRef call) {
  for (LLVMValueRef i = LLVMGetPreviousInstruction(call); i;
       i = LLVMGetPreviousInstruction(i)) {
    if (LLVMGetInstructionOpcode(i) == LLVMAtomicRMW &&
        zy_omp_order_slot(LLVMGetOperand(i, 0)))
      return 1;
    if (LLVMIsACallInst(i) && zy_omp_call(LLVMGetCalledValue(i)))
      return 0;
  }
  return 0;
}

void zy_omp_prepare(LLVMValueRef p) {
  ZyVec calls = {0};
  calls_of(p, &calls);
  if (!calls.len)
    return;
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx_of(p));
  reductions_as_atomics(b, p);
  calls.len = 0;
  calls_of(p, &calls);
  for (size_t k = 0; k < calls.len; k++) {
    LLVMValueRef call = calls.data[k];
    const ZyOmpCall *row = zy_omp_call(LLVMGetCalledValue(call));
    monotonic_schedule(call);
    if (row->kind == ZY_OMP_FORK)
      make_region(b, call);
    else if (row->kind == ZY_OMP_REDUCE || row->kind == ZY_OMP_END_REDUCE)
      reduce_as_critical(b, call, row);
  }
  calls.len = 0;
  calls_of(p, &calls);
  /* Each release numbers itself in its lock's sequence (still holding
   * the lock): the reverse sweep takes the lock again in the opposite
   * order of the releases, so updates that do not commute (s = s * x,
   * a running maximum) are reversed in the order they were made. */
  for (size_t k = 0; k < calls.len; k++) {
    LLVMValueRef call = calls.data[k];
    const ZyOmpCall *row = zy_omp_call(LLVMGetCalledValue(call));
    if (row->kind != ZY_OMP_EXIT || numbered(call))
      continue;
    LLVMPositionBuilderBefore(b, call);
    LLVMValueRef slot = zy_omp_slot(b, LLVMGetOperand(call, row->lock));
    LLVMValueRef seq = LLVMBuildAtomicRMW(
        b, LLVMAtomicRMWBinOpAdd, slot, i64c(ctx_of(p), 1),
        LLVMAtomicOrderingSequentiallyConsistent, 0);
    LLVMSetValueName(seq, "zymase.omp.seq");
  }
  LLVMDisposeBuilder(b);
  zy_vec_free(&calls);
}

/* Firstprivate floats reach the body as integer bits (the fork passes
 * pointer-sized words): a region whose argument is `bitcast float %v` gets
 * a body taking %v itself, so that its derivative flows (the forked
 * wrappers pass the bits and convert them back). */
static void type_region(LLVMValueRef call) {
  LLVMValueRef body = LLVMGetCalledValue(call);
  LLVMTypeRef fty = LLVMGlobalGetValueType(body);
  unsigned np = LLVMCountParamTypes(fty);
  LLVMTypeRef *ts = calloc(np, sizeof *ts);
  LLVMValueRef *args = calloc(np, sizeof *args);
  LLVMGetParamTypes(fty, ts);
  int any = 0;
  for (unsigned k = 0; k < np; k++) {
    args[k] = LLVMGetOperand(call, k);
    if (k >= 2 && LLVMIsABitCastInst(args[k]) &&
        LLVMGetTypeKind(ts[k]) == LLVMIntegerTypeKind &&
        zy_type_differentiable(LLVMTypeOf(LLVMGetOperand(args[k], 0)))) {
      args[k] = LLVMGetOperand(args[k], 0);
      ts[k] = LLVMTypeOf(args[k]);
      any = 1;
    }
  }
  if (any) {
    char name[512];
    snprintf(name, sizeof name, "%s.zymase.typed", LLVMGetValueName(body));
    LLVMModuleRef m = LLVMGetGlobalParent(body);
    LLVMContextRef c = ctx_of(call);
    LLVMValueRef t = LLVMAddFunction(
        m, name, LLVMFunctionType(LLVMVoidTypeInContext(c), ts, np, 0));
    LLVMSetLinkage(t, LLVMInternalLinkage);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, t, "entry"));
    LLVMValueRef *bits = calloc(np, sizeof *bits);
    LLVMTypeRef *orig = calloc(np, sizeof *orig);
    LLVMGetParamTypes(fty, orig);
    for (unsigned k = 0; k < np; k++)
      bits[k] = ts[k] == orig[k]
                    ? LLVMGetParam(t, k)
                    : LLVMBuildBitCast(b, LLVMGetParam(t, k), orig[k], "");
    LLVMValueRef inner = LLVMBuildCall2(b, fty, body, bits, np, "");
    LLVMBuildRetVoid(b);
    zy_llvm_inline_call(inner);
    LLVMPositionBuilderBefore(b, call);
    LLVMValueRef typed = LLVMBuildCall2(
        b, LLVMGlobalGetValueType(t), t, args, np, "");
    mark_region(typed, region_md(call, 0), region_md(call, 1));
    LLVMInstructionEraseFromParent(call);
    LLVMDisposeBuilder(b);
    free(bits);
    free(orig);
  }
  free(ts);
  free(args);
}

void zy_omp_type_regions(LLVMValueRef p) {
  ZyVec calls = {0};
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(p); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (zy_omp_is_region(i))
        zy_vec_push(&calls, i);
  for (size_t k = 0; k < calls.len; k++)
    type_region(calls.data[k]);
  zy_vec_free(&calls);
}

int zy_omp_is_region(LLVMValueRef call) {
  return LLVMIsACallInst(call) &&
         LLVMGetMetadata(call, region_kind(ctx_of(call))) != NULL;
}

/* Whether module `m` is device code (nvptx, amdgcn): every function may
 * run in many GPU threads at once. */
static int device_module(LLVMModuleRef m) {
  const char *t = LLVMGetTarget(m);
  return t && (!strncmp(t, "nvptx", 5) || !strncmp(t, "amdgcn", 6));
}

int zy_parallel_context(const ZyGen *g) {
  return g->sig.parallel || device_module(g->zm->mod);
}

/* --- Checks ---------------------------------------------------------------- */

/* Whether integer `v` holds bits of a varied float (through casts and
 * bit operations). */
static int varied_bits(ZyGen *g, LLVMValueRef v, int depth) {
  if (depth > 8 || !LLVMIsAInstruction(v))
    return 0;
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMBitCast:
  case LLVMZExt:
  case LLVMSExt:
  case LLVMTrunc:
  case LLVMOr:
  case LLVMAnd:
  case LLVMShl:
  case LLVMLShr:
    for (int k = 0; k < LLVMGetNumOperands(v); k++) {
      LLVMValueRef op = LLVMGetOperand(v, k);
      if (zy_activity_varied(g->act, op) || varied_bits(g, op, depth + 1))
        return 1;
    }
    return 0;
  default:
    return 0;
  }
}

/* A region given the bits of a float with a derivative that
 * zy_omp_type_regions could not turn back into the float. */
static int check_region_args(ZyGen *g, LLVMValueRef call) {
  for (unsigned k = 2; k < LLVMGetNumArgOperands(call); k++)
    if (varied_bits(g, LLVMGetOperand(call, k), 0))
      return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                          "make the variable shared (the default), or "
                          "firstprivate double",
                          "a floating-point variable with a derivative is "
                          "passed into an OpenMP parallel region as integer "
                          "bits Zymase cannot follow (a firstprivate float?)");
  return 0;
}

/* A taskloop's runtime calls in `fn` (it also allocates tasks in a task
 * group): the construct to name when one is there. */
static LLVMValueRef taskloop_call(LLVMValueRef fn) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      const ZyOmpCall *r =
          LLVMIsACallInst(i) ? zy_omp_call(LLVMGetCalledValue(i)) : NULL;
      if (r && r->construct && !strcmp(r->construct, "taskloop"))
        return i;
    }
  return NULL;
}

int zy_omp_check(ZyGen *g) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      if (!LLVMIsACallInst(i) && !LLVMIsAInvokeInst(i))
        continue;
      LLVMValueRef f = LLVMGetCalledValue(i);
      const char *name = f && LLVMIsAFunction(f) ? LLVMGetValueName(f) : "";
      const ZyOmpCall *row = zy_omp_call(f);
      g->cur = i;
      if (zy_omp_is_region(i) && check_region_args(g, i))
        return -1;
      if (!row || (row->kind != ZY_OMP_REFUSED && row->kind != ZY_OMP_FORK))
        continue;
      LLVMValueRef loop = taskloop_call(g->primal);
      if (loop && loop != i) { /* name the taskloop, not its tasks */
        i = loop;
        f = LLVMGetCalledValue(i);
        name = LLVMGetValueName(f);
        row = zy_omp_call(f);
        g->cur = i;
      }
      if (row->kind == ZY_OMP_FORK)
        return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                            "an OpenMP parallel region whose body is not a "
                            "function of this module is not differentiated");
      if (row->construct)
        return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                            "the OpenMP construct '%s' (a call to '%s') is "
                            "not differentiated yet",
                            row->construct, name);
      return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                          "the OpenMP runtime call '%s' is not known to "
                          "Zymase; its derivative cannot be formed",
                          name);
    }
  return 0;
}
