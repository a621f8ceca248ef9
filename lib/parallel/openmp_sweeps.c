/* openmp_sweeps.c - OpenMP in the sweeps.  A parallel region whose body
 * touches derivatives forks the body's augmented forward, each thread
 * keeping its tape in a per-region table (slot = thread number); the
 * reverse sweep forks the body's reverse with as many threads, each
 * reading its own tape, so every thread reverses exactly the work it did.
 * Barriers are replayed at the mirrored point; locks are taken again in
 * the opposite order of their forward releases.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "parallel.h"

#include "ad/ad.h"
#include "ir/irutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static LLVMTypeRef ptr_t(LLVMContextRef c) {
  return LLVMPointerTypeInContext(c, 0);
}

static LLVMValueRef call0(LLVMBuilderRef b, const char *name, LLVMTypeRef ret) {
  return zy_omp_rt_call(b, name, ret, NULL, 0);
}

static LLVMTypeRef fork_type(LLVMContextRef c) {
  LLVMTypeRef ps[3] = {ptr_t(c), LLVMInt32TypeInContext(c), ptr_t(c)};
  return LLVMFunctionType(LLVMVoidTypeInContext(c), ps, 3, 1);
}

/* __kmpc_fork_call(loc, n, fn, args...). */
static void fork(LLVMBuilderRef b, LLVMValueRef loc, LLVMValueRef fn,
                 LLVMValueRef *args, unsigned n) {
  LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(loc));
  LLVMValueRef *all = calloc(n + 3, sizeof *all);
  all[0] = loc;
  all[1] = LLVMConstInt(LLVMInt32TypeInContext(c), n, 0);
  all[2] = fn;
  memcpy(all + 3, args, n * sizeof *args);
  LLVMTypeRef fty = fork_type(c);
  LLVMBuildCall2(b, fty,
                 zy_runtime_fn(zy_builder_module(b), "__kmpc_fork_call", fty),
                 all, n + 3, "");
  free(all);
}

/* parallel.h. */
LLVMTypeRef zy_omp_fork_word(LLVMTypeRef t) {
  LLVMContextRef c = LLVMGetTypeContext(t);
  switch (LLVMGetTypeKind(t)) {
  case LLVMDoubleTypeKind:
    return LLVMInt64TypeInContext(c);
  case LLVMFloatTypeKind:
    return LLVMInt32TypeInContext(c);
  default:
    return t;
  }
}

LLVMValueRef zy_omp_bitcast_to(LLVMBuilderRef b, LLVMValueRef v,
                               LLVMTypeRef t) {
  return LLVMTypeOf(v) == t ? v : LLVMBuildBitCast(b, v, t, "");
}

/* The tape table of a region: { i64 threads, ptr tapes[threads], then
 * one 8-byte slot per active parameter: the sum over the threads of its
 * adjoint }. */
static LLVMValueRef table_field(LLVMBuilderRef b, LLVMValueRef t, int k) {
  LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(t));
  LLVMValueRef off = LLVMConstInt(LLVMInt64TypeInContext(c), 8 * k, 0);
  return LLVMBuildGEP2(b, LLVMInt8TypeInContext(c), t, &off, 1, "");
}

/* A wrapper forked for the region: (gtid*, btid*, the body's other
 * parameters, the shadows, the tape table).  `fwd`: thread 0 sizes the
 * table, a barrier, then each thread runs `aug` and files its tape;
 * otherwise each thread runs `rev` on its tape. */
static LLVMValueRef wrapper(ZyGen *g, LLVMValueRef body, LLVMValueRef fn,
                            unsigned nsh, LLVMValueRef loc, int fwd) {
  char name[512];
  snprintf(name, sizeof name, "%s.omp.%s", LLVMGetValueName(fn),
           fwd ? "fwd" : "rev");
  LLVMModuleRef m = g->zm->mod;
  LLVMValueRef w = LLVMGetNamedFunction(m, name);
  if (w)
    return w;
  LLVMContextRef c = g->zm->ctx;
  LLVMTypeRef bt = LLVMGlobalGetValueType(body);
  unsigned np = LLVMCountParamTypes(bt), nw = np + nsh + 1;
  LLVMTypeRef *ps = calloc(nw, sizeof *ps);
  LLVMGetParamTypes(bt, ps);
  for (unsigned k = 0; k < np; k++)
    ps[k] = zy_omp_fork_word(ps[k]);
  for (unsigned k = np; k < nw; k++)
    ps[k] = ptr_t(c);
  w = LLVMAddFunction(m, name,
                      LLVMFunctionType(LLVMVoidTypeInContext(c), ps, nw, 0));
  free(ps);
  LLVMSetLinkage(w, LLVMInternalLinkage);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c), i64 = LLVMInt64TypeInContext(c);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c, w, "entry");
  LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(c, w, "go");
  LLVMBasicBlockRef other = LLVMAppendBasicBlockInContext(c, w, "first");
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef table = LLVMGetParam(w, nw - 1);
  LLVMValueRef t = call0(b, "omp_get_thread_num", i32);
  LLVMValueRef nt = LLVMBuildZExt(b, call0(b, "omp_get_num_threads", i32),
                                  i64, "");
  if (fwd) {
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, t,
                                     LLVMConstInt(i32, 0, 0), ""),
                    other, go);
    LLVMPositionBuilderAtEnd(b, other);
    LLVMBuildStore(b, nt, table);
    LLVMValueRef bytes = LLVMBuildMul(b, nt, LLVMConstInt(i64, 8, 0), "");
    LLVMBuildStore(b, zy_call_malloc(b, bytes, "tapes"),
                   table_field(b, table, 1));
    LLVMBuildBr(b, go);
  } else { /* the forward's number of threads, or stop */
    LLVMValueRef n = LLVMBuildLoad2(b, i64, table, "");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, n, nt, ""), go, other);
    LLVMPositionBuilderAtEnd(b, other);
    static const char msg[] =
        "zymase: the reverse of an OpenMP parallel region got another number "
        "of threads than its forward\n";
    LLVMValueRef args[3] = {LLVMConstInt(i32, 2, 0),
                            LLVMBuildGlobalStringPtr(b, msg, "zymase.msg"),
                            LLVMConstInt(i64, sizeof msg - 1, 0)};
    zy_omp_rt_call(b, "write", i64, args, 3);
    call0(b, "abort", LLVMVoidTypeInContext(c));
    LLVMBuildUnreachable(b);
  }
  LLVMPositionBuilderAtEnd(b, go);
  LLVMTypeRef ft = LLVMGlobalGetValueType(fn);
  unsigned nf = LLVMCountParamTypes(ft);
  LLVMValueRef *args = calloc(nf, sizeof *args);
  LLVMTypeRef *fts = calloc(nf, sizeof *fts);
  LLVMGetParamTypes(ft, fts);
  for (unsigned k = 0; k < np + nsh; k++)
    args[k] = zy_omp_bitcast_to(b, LLVMGetParam(w, k), fts[k]);
  free(fts);
  LLVMValueRef r = NULL;
  if (fwd) { /* the table is ready once every thread is past the barrier */
    LLVMValueRef tid = LLVMBuildLoad2(b, i32, LLVMGetParam(w, 0), "");
    LLVMValueRef bargs[2] = {loc, tid};
    zy_omp_rt_call(b, "__kmpc_barrier", LLVMVoidTypeInContext(c), bargs, 2);
    r = LLVMBuildCall2(b, ft, fn, args, nf, "");
  }
  LLVMValueRef tapes =
      LLVMBuildLoad2(b, ptr_t(c), table_field(b, table, 1), "");
  LLVMValueRef slot = LLVMBuildGEP2(b, ptr_t(c), tapes, &t, 1, "");
  if (fwd) {
    unsigned last = LLVMCountStructElementTypes(LLVMTypeOf(r)) - 1;
    LLVMBuildStore(b, LLVMBuildExtractValue(b, r, last, "tape"), slot);
  } else { /* each thread's adjoints of the parameters, summed */
    args[nf - 1] = LLVMBuildLoad2(b, ptr_t(c), slot, "tape");
    LLVMValueRef d = LLVMBuildCall2(b, ft, fn, args, nf, "");
    LLVMTypeRef dt = LLVMTypeOf(d);
    unsigned nd = LLVMGetTypeKind(dt) == LLVMStructTypeKind
                      ? LLVMCountStructElementTypes(dt)
                      : 0;
    for (unsigned j = 0; j < nd; j++)
      LLVMBuildAtomicRMW(b, LLVMAtomicRMWBinOpFAdd,
                         table_field(b, table, 2 + j),
                         LLVMBuildExtractValue(b, d, j, ""),
                         LLVMAtomicOrderingMonotonic, 0);
  }
  LLVMBuildRetVoid(b);
  free(args);
  LLVMDisposeBuilder(b);
  return w;
}

static LLVMValueRef forward_value(ZyGen *g, LLVMValueRef v) {
  LLVMValueRef m = zy_map_get(&g->vmap, v);
  return m ? m : v;
}

/* The body's arguments after gtid and btid (through `get`), then the
 * shadows of the dup ones (through `shadow`); returns how many. */
static unsigned region_args(ZyGen *g, LLVMValueRef call, ZySig sig,
                            LLVMValueRef (*get)(ZyGen *, LLVMValueRef),
                            LLVMValueRef (*shadow)(ZyGen *, LLVMValueRef),
                            LLVMValueRef *args) {
  unsigned n = LLVMGetNumArgOperands(call), k = 0;
  for (unsigned j = 2; j < n; j++) {
    LLVMValueRef a = get(g, LLVMGetOperand(call, j));
    args[k++] = zy_omp_bitcast_to(g->b, a, zy_omp_fork_word(LLVMTypeOf(a)));
  }
  for (unsigned j = 0; j < n; j++)
    if (sig.dup_args >> j & 1)
      args[k++] = shadow(g, LLVMGetOperand(call, j));
  return k;
}

static int nshadows(ZySig sig) {
  return __builtin_popcountll(sig.dup_args);
}

int zy_omp_forward_region(ZyGen *g, LLVMValueRef call) {
  LLVMValueRef body = LLVMGetCalledValue(call), loc = zy_omp_region_loc(call);
  unsigned n = LLVMGetNumArgOperands(call);
  LLVMValueRef *args = calloc(2 * n + 2, sizeof *args);
  if (zy_call_mode(g, call) != ZY_CALL_SPLIT) { /* the region as it was */
    unsigned k = region_args(g, call, (ZySig){0}, forward_value, NULL, args);
    fork(g->b, loc, zy_omp_region_forked(call), args, k);
    free(args);
    return 0;
  }
  ZySig sig = zy_call_sig(g, call);
  LLVMValueRef aug, rev;
  ZyTT *seeds = zy_call_seeds(g, call);
  int err = zy_gradient_split(g->zm, body, sig, seeds, &aug, &rev);
  zy_free_call_seeds(seeds, n);
  if (err) {
    free(args);
    return -1;
  }
  LLVMValueRef w = wrapper(g, body, aug, nshadows(sig), loc, 1);
  LLVMContextRef c = g->zm->ctx;
  unsigned nact = __builtin_popcountll(sig.active_args);
  LLVMValueRef table = zy_call_malloc(
      g->b, LLVMConstInt(LLVMInt64TypeInContext(c), 16 + 8 * nact, 0),
      "zymase.omp.tapes");
  for (unsigned j = 0; j < nact; j++) /* sums of the parameters' adjoints */
    LLVMBuildStore(g->b, LLVMConstInt(LLVMInt64TypeInContext(c), 0, 0),
                   table_field(g->b, table, 2 + j));
  unsigned k = region_args(g, call, sig, forward_value, zy_shadow_forward_of,
                           args);
  args[k++] = table;
  fork(g->b, loc, w, args, k);
  zy_map_put(&g->tapes, call, table);
  free(args);
  return 0;
}

int zy_omp_reverse_region(ZyGen *g, LLVMValueRef call) {
  LLVMValueRef body = LLVMGetCalledValue(call), loc = zy_omp_region_loc(call);
  ZySig sig = zy_call_sig(g, call);
  LLVMValueRef aug, rev;
  if (zy_gradient_split(g->zm, body, sig, NULL, &aug, &rev))
    return -1;
  LLVMContextRef c = g->zm->ctx;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c), i64 = LLVMInt64TypeInContext(c);
  LLVMValueRef table = zy_reload(g, zy_map_get(&g->tapes, call),
                                 LLVMGetInstructionParent(call));
  /* As many threads as the forward had (the wrapper checks it). */
  LLVMValueRef nt = LLVMBuildTrunc(g->b, LLVMBuildLoad2(g->b, i64, table, ""),
                                   i32, "");
  LLVMValueRef tid = zy_omp_gtid(g->b, loc);
  LLVMValueRef pargs[3] = {loc, tid, nt};
  zy_omp_rt_call(g->b, "__kmpc_push_num_threads", LLVMVoidTypeInContext(c), pargs, 3);
  unsigned n = LLVMGetNumArgOperands(call);
  LLVMValueRef *args = calloc(2 * n + 2, sizeof *args);
  unsigned k = region_args(g, call, sig, zy_lookup, zy_shadow_lookup, args);
  args[k++] = table;
  fork(g->b, loc, wrapper(g, body, rev, nshadows(sig), loc, 0), args, k);
  free(args);
  for (unsigned j = 2, a = 0; j < n; j++) /* firstprivate floats */
    if (sig.active_args >> j & 1) {
      LLVMValueRef v = LLVMGetOperand(call, j);
      zy_add_adjoint(g, v,
                     LLVMBuildLoad2(g->b, LLVMTypeOf(v),
                                    table_field(g->b, table, 2 + a++), ""));
    }
  zy_call_free(g->b, "free",
               LLVMBuildLoad2(g->b, ptr_t(c), table_field(g->b, table, 1), ""));
  zy_call_free(g->b, "free", table);
  return 0;
}

/* --- Barriers and locks in the reverse sweep ----------------------------- */

int zy_omp_reverse_needed(LLVMValueRef inst) {
  if (!LLVMIsACallInst(inst))
    return 0;
  const ZyOmpCall *row = zy_omp_call(LLVMGetCalledValue(inst));
  return row && (row->kind == ZY_OMP_BARRIER || row->kind == ZY_OMP_ENTER ||
                 row->kind == ZY_OMP_EXIT);
}

/* zymase.omp.wait(slot, v): spins (yielding) until *slot == v. */
static LLVMValueRef wait_fn(ZyGen *g) {
  LLVMModuleRef m = g->zm->mod;
  LLVMValueRef f = LLVMGetNamedFunction(m, "zymase.omp.wait");
  if (f)
    return f;
  LLVMContextRef c = g->zm->ctx;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef ps[2] = {ptr_t(c), i64};
  f = LLVMAddFunction(m, "zymase.omp.wait",
                      LLVMFunctionType(LLVMVoidTypeInContext(c), ps, 2, 0));
  LLVMSetLinkage(f, LLVMInternalLinkage);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c, f, "entry");
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(c, f, "loop");
  LLVMBasicBlockRef spin = LLVMAppendBasicBlockInContext(c, f, "spin");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, f, "done");
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMBuildBr(b, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef v = LLVMBuildLoad2(b, i64, LLVMGetParam(f, 0), "");
  LLVMSetOrdering(v, LLVMAtomicOrderingAcquire);
  LLVMSetAlignment(v, 8);
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, v, LLVMGetParam(f, 1), ""),
                  done, spin);
  LLVMPositionBuilderAtEnd(b, spin);
  call0(b, "sched_yield", LLVMInt32TypeInContext(c));
  LLVMBuildBr(b, loop);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return f;
}

/* The sequence number zy_omp_prepare took before release `call`. */
static LLVMValueRef release_seq(LLVMValueRef call) {
  for (LLVMValueRef i = LLVMGetPreviousInstruction(call); i;
       i = LLVMGetPreviousInstruction(i)) {
    if (LLVMGetInstructionOpcode(i) == LLVMAtomicRMW &&
        zy_omp_order_slot(LLVMGetOperand(i, 0)))
      return i;
    if (LLVMIsACallInst(i) && zy_omp_call(LLVMGetCalledValue(i)))
      break;
  }
  return NULL;
}

/* Takes (enter) or releases the lock of `call` (a row ENTER or EXIT). */
static void lock_op(ZyGen *g, LLVMValueRef call, const ZyOmpCall *row,
                    LLVMValueRef lock, int enter) {
  LLVMContextRef c = g->zm->ctx;
  const char *name = LLVMGetValueName(LLVMGetCalledValue(call));
  LLVMTypeRef v = LLVMVoidTypeInContext(c);
  if (!strncmp(name, "omp_", 4)) {
    int nest = strstr(name, "nest") != NULL;
    zy_omp_rt_call(g->b, enter ? (nest ? "omp_set_nest_lock" : "omp_set_lock")
                      : (nest ? "omp_unset_nest_lock" : "omp_unset_lock"),
          v, &lock, 1);
    return;
  }
  (void)row;
  LLVMValueRef loc = zy_lookup(g, LLVMGetOperand(call, 0));
  LLVMValueRef args[3] = {loc, zy_omp_gtid(g->b, loc), lock};
  zy_omp_rt_call(g->b, enter ? "__kmpc_critical" : "__kmpc_end_critical", v, args, 3);
}

int zy_omp_reverse_sync(ZyGen *g, LLVMValueRef call) {
  const ZyOmpCall *row = zy_omp_call(LLVMGetCalledValue(call));
  LLVMContextRef c = g->zm->ctx;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  if (row->kind == ZY_OMP_BARRIER) {
    LLVMValueRef loc = zy_lookup(g, LLVMGetOperand(call, 0));
    LLVMValueRef args[2] = {loc, zy_omp_gtid(g->b, loc)};
    zy_omp_rt_call(g->b, "__kmpc_barrier", LLVMVoidTypeInContext(c), args, 2);
    return 0;
  }
  LLVMValueRef lock = zy_lookup(g, LLVMGetOperand(call, row->lock));
  LLVMValueRef slot = zy_omp_slot(g->b, lock);
  if (row->kind == ZY_OMP_EXIT) { /* wait for the later releases first */
    LLVMValueRef seq = release_seq(call);
    if (!seq)
      return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                          "internal: the release of an OpenMP lock lost its "
                          "sequence number");
    LLVMValueRef args[2] = {
        slot, LLVMBuildAdd(g->b, zy_lookup(g, seq), LLVMConstInt(i64, 1, 0),
                           "")};
    LLVMValueRef w = wait_fn(g);
    LLVMBuildCall2(g->b, LLVMGlobalGetValueType(w), w, args, 2, "");
    lock_op(g, call, row, lock, 1);
    return 0;
  }
  LLVMBuildAtomicRMW(g->b, LLVMAtomicRMWBinOpSub, slot, LLVMConstInt(i64, 1, 0),
                     LLVMAtomicOrderingSequentiallyConsistent, 0);
  lock_op(g, call, row, lock, 0);
  return 0;
}
