/* mpi_types.c - run-time MPI handles in differentiated code: datatypes
 * made by MPI_Type_contiguous (or MPI_Type_dup) of MPI_DOUBLE/MPI_FLOAT,
 * rewritten to count * k base elements before the sweeps, the check
 * that an active call's communicator is not an intercommunicator, and the
 * duplicate of each communicator that the adjoint communication uses.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "mpi_call.h"

#include "ir/irutil.h"

#include <stdio.h>
#include <string.h>

/* "'MPI_Send' in f (file.c:12)", for run-time messages. */
static void describe(ZyGen *g, LLVMValueRef call, char *buf, size_t n) {
  unsigned len = 0;
  const char *file = LLVMGetDebugLocFilename(call, &len);
  unsigned line = LLVMGetDebugLocLine(call);
  const char *callee = LLVMGetValueName(LLVMGetCalledValue(call));
  const char *fn = LLVMGetValueName(g->user);
  if (file && len && line)
    snprintf(buf, n, "'%s' in '%s' (%.*s:%u)", callee, fn, (int)len, file,
             line);
  else
    snprintf(buf, n, "'%s' in '%s'", callee, fn);
}

static LLVMValueRef slot(ZyMpiCall *c, LLVMTypeRef t, const char *name) {
  return LLVMBuildAlloca(c->b, t, name);
}

/* Prints `msg` (a parameter) on stderr and aborts. */
static void fail(ZyMpiCall *c, LLVMValueRef msg) {
  LLVMTypeRef pp[2] = {c->ptr, c->ptr};
  LLVMTypeRef fputs_ty = LLVMFunctionType(c->i32, pp, 2, 0);
  LLVMValueRef err = LLVMGetNamedGlobal(c->mod, "stderr");
  if (!err)
    err = LLVMAddGlobal(c->mod, c->ptr, "stderr");
  LLVMValueRef a[2] = {msg, LLVMBuildLoad2(c->b, c->ptr, err, "")};
  LLVMBuildCall2(c->b, fputs_ty, zy_runtime_fn(c->mod, "fputs", fputs_ty), a, 2,
                 "");
  LLVMTypeRef vty = LLVMFunctionType(LLVMVoidTypeInContext(c->ctx), NULL, 0, 0);
  LLVMBuildCall2(c->b, vty, zy_runtime_fn(c->mod, "abort", vty), NULL, 0, "");
  LLVMBuildUnreachable(c->b);
}

/* A helper function of the module, internal, without derivatives; NULL
 * when it has a body already (*fn is it then). */
static LLVMValueRef helper(ZyMpiCall *c, const char *name, LLVMTypeRef ret,
                           LLVMTypeRef *params, unsigned n, LLVMValueRef *fn) {
  *fn = LLVMGetNamedFunction(c->mod, name);
  if (*fn)
    return NULL;
  *fn = LLVMAddFunction(c->mod, name, LLVMFunctionType(ret, params, n, 0));
  LLVMSetLinkage(*fn, LLVMInternalLinkage);
  LLVMAddAttributeAtIndex(
      *fn, LLVMAttributeFunctionIndex,
      LLVMCreateStringAttribute(c->ctx, "enzyme_inactive", 15, "", 0));
  return *fn;
}

/* i32 k(h dt, ptr msg): the number of `base` elements in one element of
 * dt, following MPI_Type_contiguous and MPI_Type_dup down to `base`
 * (MPI_Type_get_envelope/get_contents: the type's own record, whoever
 * made it); 0 for MPI_DATATYPE_NULL (a root-only argument elsewhere);
 * anything else prints msg and aborts. */
static LLVMValueRef elements_fn(ZyMpiCall *c, ZyMpiElem el) {
  char name[64];
  snprintf(name, sizeof name, "zymase.%s.elements.%s", c->pmpi ? "pmpi" : "mpi",
           el == ZY_MPI_EL_FLOAT ? "float" : "double");
  LLVMTypeRef params[2] = {c->h, c->ptr};
  LLVMValueRef fn;
  if (!helper(c, name, c->i32, params, 2, &fn))
    return fn;
  LLVMBuilderRef saved = c->b;
  c->b = LLVMCreateBuilderInContext(c->ctx);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c->ctx, fn, "entry"),
                    loop = LLVMAppendBasicBlockInContext(c->ctx, fn, "loop"),
                    yes = LLVMAppendBasicBlockInContext(c->ctx, fn, "base"),
                    other = LLVMAppendBasicBlockInContext(c->ctx, fn, "other"),
                    null = LLVMAppendBasicBlockInContext(c->ctx, fn, "null"),
                    env = LLVMAppendBasicBlockInContext(c->ctx, fn, "envelope"),
                    bad = LLVMAppendBasicBlockInContext(c->ctx, fn, "refused"),
                    next = LLVMAppendBasicBlockInContext(c->ctx, fn, "next");
  LLVMPositionBuilderAtEnd(c->b, entry);
  LLVMValueRef ni = slot(c, c->i32, "ni"), na = slot(c, c->i32, "na"),
               nd = slot(c, c->i32, "nd"), comb = slot(c, c->i32, "combiner"),
               cnt = slot(c, c->i32, "count"), addr = slot(c, c->i64, "addr"),
               old = slot(c, c->h, "old");
  LLVMBuildBr(c->b, loop);
  LLVMPositionBuilderAtEnd(c->b, loop);
  LLVMValueRef dt = LLVMBuildPhi(c->b, c->h, "dt"),
               k = LLVMBuildPhi(c->b, c->i32, "k");
  LLVMValueRef base = el == ZY_MPI_EL_FLOAT
                          ? zy_mpi_handle(c, "ompi_mpi_float", 0x4c00040a)
                          : zy_mpi_handle(c, "ompi_mpi_double", 0x4c00080b);
  LLVMValueRef dnull = zy_mpi_handle(c, "ompi_mpi_datatype_null", 0x0c000000);
  LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntEQ, dt, base, ""), yes,
                  other);
  LLVMPositionBuilderAtEnd(c->b, yes);
  LLVMBuildRet(c->b, k);
  LLVMPositionBuilderAtEnd(c->b, other);
  LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntEQ, dt, dnull, ""), null,
                  env);
  LLVMPositionBuilderAtEnd(c->b, null);
  LLVMBuildRet(c->b, LLVMConstInt(c->i32, 0, 0));
  LLVMPositionBuilderAtEnd(c->b, env);
  LLVMValueRef a[7] = {dt, ni, na, nd, comb};
  zy_mpi_emit(c, "Type_get_envelope", "hpppp", a);
  /* Combiners: Open MPI's NAMED 0, DUP 1, CONTIGUOUS 2; MPICH's 1, 2, 3. */
  unsigned dup = c->mpich ? 2 : 1, contig = c->mpich ? 3 : 2;
  LLVMValueRef cb = LLVMBuildLoad2(c->b, c->i32, comb, "");
  LLVMValueRef is_contig =
      LLVMBuildICmp(c->b, LLVMIntEQ, cb, LLVMConstInt(c->i32, contig, 0), "");
  LLVMValueRef is_dup =
      LLVMBuildICmp(c->b, LLVMIntEQ, cb, LLVMConstInt(c->i32, dup, 0), "");
  LLVMBuildCondBr(c->b, LLVMBuildOr(c->b, is_contig, is_dup, ""), next, bad);
  LLVMPositionBuilderAtEnd(c->b, bad);
  fail(c, LLVMGetParam(fn, 1));
  LLVMPositionBuilderAtEnd(c->b, next);
  LLVMBuildStore(c->b, LLVMConstInt(c->i32, 1, 0), cnt);
  LLVMValueRef b[7] = {dt,
                       LLVMBuildSelect(c->b, is_contig,
                                       LLVMConstInt(c->i32, 1, 0),
                                       LLVMConstInt(c->i32, 0, 0), ""),
                       LLVMConstInt(c->i32, 0, 0),
                       LLVMConstInt(c->i32, 1, 0),
                       cnt,
                       addr,
                       old};
  zy_mpi_emit(c, "Type_get_contents", "hiiippp", b);
  LLVMValueRef k2 =
      LLVMBuildMul(c->b, k, LLVMBuildLoad2(c->b, c->i32, cnt, ""), "");
  LLVMValueRef old_dt = LLVMBuildLoad2(c->b, c->h, old, "");
  LLVMBuildBr(c->b, loop);
  LLVMValueRef dts[2] = {LLVMGetParam(fn, 0), old_dt},
               ks[2] = {LLVMConstInt(c->i32, 1, 0), k2};
  LLVMBasicBlockRef from[2] = {entry, next};
  LLVMAddIncoming(dt, dts, from, 2);
  LLVMAddIncoming(k, ks, from, 2);
  LLVMDisposeBuilder(c->b);
  c->b = saved;
  return fn;
}

/* ptr scale(ptr counts, h comm, i32 k, i32 root): `counts` (or
 * displacements, one per rank) times k in a new heap array; `counts`
 * itself when k is 1 or this rank is not `root` (root -1: every rank
 * reads them). */
static LLVMValueRef scale_fn(ZyMpiCall *c) {
  char name[64];
  snprintf(name, sizeof name, "zymase.%s.scale", c->pmpi ? "pmpi" : "mpi");
  LLVMTypeRef params[4] = {c->ptr, c->h, c->i32, c->i32};
  LLVMValueRef fn;
  if (!helper(c, name, c->ptr, params, 4, &fn))
    return fn;
  LLVMBuilderRef saved = c->b;
  c->b = LLVMCreateBuilderInContext(c->ctx);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c->ctx, fn, "entry"),
                    same = LLVMAppendBasicBlockInContext(c->ctx, fn, "same"),
                    rooted =
                        LLVMAppendBasicBlockInContext(c->ctx, fn, "rooted"),
                    go = LLVMAppendBasicBlockInContext(c->ctx, fn, "scale"),
                    loop = LLVMAppendBasicBlockInContext(c->ctx, fn, "loop"),
                    done = LLVMAppendBasicBlockInContext(c->ctx, fn, "done");
  LLVMValueRef arr = LLVMGetParam(fn, 0), comm = LLVMGetParam(fn, 1),
               k = LLVMGetParam(fn, 2), root = LLVMGetParam(fn, 3);
  LLVMValueRef zero = LLVMConstInt(c->i32, 0, 0);
  LLVMPositionBuilderAtEnd(c->b, entry);
  LLVMValueRef rank = slot(c, c->i32, "rank"), size = slot(c, c->i32, "size");
  LLVMValueRef one =
      LLVMBuildICmp(c->b, LLVMIntEQ, k, LLVMConstInt(c->i32, 1, 0), "");
  LLVMValueRef all = LLVMBuildICmp(c->b, LLVMIntSLT, root, zero, "");
  LLVMBasicBlockRef notone = LLVMAppendBasicBlockInContext(c->ctx, fn, "k");
  LLVMBuildCondBr(c->b, one, same, notone);
  LLVMPositionBuilderAtEnd(c->b, notone);
  LLVMBuildCondBr(c->b, all, go, rooted);
  LLVMPositionBuilderAtEnd(c->b, rooted);
  LLVMValueRef a[2] = {comm, rank};
  zy_mpi_emit(c, "Comm_rank", "hp", a);
  LLVMBuildCondBr(c->b,
                  LLVMBuildICmp(c->b, LLVMIntEQ,
                                LLVMBuildLoad2(c->b, c->i32, rank, ""), root,
                                ""),
                  go, same);
  LLVMPositionBuilderAtEnd(c->b, same);
  LLVMBuildRet(c->b, arr);
  LLVMPositionBuilderAtEnd(c->b, go);
  a[1] = size;
  zy_mpi_emit(c, "Comm_size", "hp", a);
  LLVMValueRef n =
      LLVMBuildSExt(c->b, LLVMBuildLoad2(c->b, c->i32, size, ""), c->i64, "");
  LLVMValueRef p = zy_call_malloc(
      c->b, LLVMBuildMul(c->b, n, LLVMConstInt(c->i64, 4, 0), ""), "scaled");
  LLVMBuildBr(c->b, loop);
  LLVMPositionBuilderAtEnd(c->b, loop);
  LLVMValueRef i = LLVMBuildPhi(c->b, c->i64, "i");
  LLVMValueRef v = LLVMBuildLoad2(
      c->b, c->i32, LLVMBuildGEP2(c->b, c->i32, arr, &i, 1, ""), "");
  LLVMBuildStore(c->b, LLVMBuildMul(c->b, v, k, ""),
                 LLVMBuildGEP2(c->b, c->i32, p, &i, 1, ""));
  LLVMValueRef i1 = LLVMBuildAdd(c->b, i, LLVMConstInt(c->i64, 1, 0), "");
  LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntSLT, i1, n, ""), loop, done);
  LLVMValueRef iv[2] = {LLVMConstInt(c->i64, 0, 0), i1};
  LLVMBasicBlockRef from[2] = {go, loop};
  LLVMAddIncoming(i, iv, from, 2);
  LLVMPositionBuilderAtEnd(c->b, done);
  LLVMBuildRet(c->b, p);
  LLVMDisposeBuilder(c->b);
  c->b = saved;
  return fn;
}

/* void unscale(ptr scaled, ptr counts): frees what scale made. */
static LLVMValueRef unscale_fn(ZyMpiCall *c) {
  LLVMTypeRef params[2] = {c->ptr, c->ptr};
  LLVMValueRef fn;
  if (!helper(c, "zymase.mpi.unscale", LLVMVoidTypeInContext(c->ctx), params, 2,
              &fn))
    return fn;
  LLVMBuilderRef saved = c->b;
  c->b = LLVMCreateBuilderInContext(c->ctx);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c->ctx, fn, "entry"),
                    fr = LLVMAppendBasicBlockInContext(c->ctx, fn, "free"),
                    done = LLVMAppendBasicBlockInContext(c->ctx, fn, "done");
  LLVMPositionBuilderAtEnd(c->b, entry);
  LLVMBuildCondBr(c->b,
                  LLVMBuildICmp(c->b, LLVMIntEQ, LLVMGetParam(fn, 0),
                                LLVMGetParam(fn, 1), ""),
                  done, fr);
  LLVMPositionBuilderAtEnd(c->b, fr);
  zy_call_free(c->b, "free", LLVMGetParam(fn, 0));
  LLVMBuildBr(c->b, done);
  LLVMPositionBuilderAtEnd(c->b, done);
  LLVMBuildRetVoid(c->b);
  LLVMDisposeBuilder(c->b);
  c->b = saved;
  return fn;
}

/* Counts and displacements `at`, `at + 1` of the call, in units of a
 * datatype of k base elements: replaced by arrays times k, freed after
 * the call. */
static void scale_arrays(ZyMpiCall *c, int at, LLVMValueRef k) {
  LLVMValueRef sfn = scale_fn(c), ufn = unscale_fn(c);
  LLVMValueRef root = zy_mpi_arg(c, 'R', 0);
  LLVMValueRef args[4] = {NULL, zy_mpi_arg(c, 'c', 0), k,
                          root ? root : LLVMConstInt(c->i32, -1, 1)};
  LLVMValueRef made[2], old[2];
  for (int j = 0; j < 2; j++) {
    LLVMPositionBuilderBefore(c->b, c->call);
    old[j] = args[0] = LLVMGetOperand(c->call, (unsigned)(at + j));
    made[j] = LLVMBuildCall2(c->b, LLVMGlobalGetValueType(sfn), sfn, args, 4,
                             j ? "mpi.displs" : "mpi.counts");
    LLVMSetOperand(c->call, (unsigned)(at + j), made[j]);
  }
  LLVMPositionBuilderBefore(c->b, LLVMGetNextInstruction(c->call));
  for (int j = 0; j < 2; j++) {
    LLVMValueRef a[2] = {made[j], old[j]};
    LLVMBuildCall2(c->b, LLVMGlobalGetValueType(ufn), ufn, a, 2, "");
  }
}

/* The count letter ('n' or 'N') and its index that datatype `t` (the
 * `nth` 't') applies to: the nearest count before it in the row. */
static int count_of(const ZyMpiRow *r, int t, char *letter) {
  for (int k = t - 1; k >= 0; k--)
    if (r->args[k] == 'n' || r->args[k] == 'N') {
      *letter = r->args[k];
      return k;
    }
  return -1;
}

/* The element type the buffers of datatype `nth` hold, from the type
 * analysis (double or float), or NONE. */
static ZyMpiElem held(ZyMpiCall *c, int nth) {
  int bufs = 0;
  for (int k = 0; c->row->args[k]; k++)
    bufs += strchr("brB", c->row->args[k]) != NULL;
  int ntypes = 0;
  while (zy_mpi_index(c->row, 't', ntypes) >= 0)
    ntypes++;
  /* One datatype for two buffers (Reduce, Allreduce, Scan...): either. */
  for (int b = 0; b < bufs; b++) {
    if (ntypes > 1 && b != nth)
      continue;
    LLVMValueRef p = zy_mpi_buffer(c, b);
    if (!p || zy_mpi_in_place(c, p) || LLVMIsAConstantPointerNull(p))
      continue;
    ZyTy t = zy_types_memory(c->g->types, p, 0);
    if (t == ZY_TY_DOUBLE)
      return ZY_MPI_EL_DOUBLE;
    if (t == ZY_TY_FLOAT)
      return ZY_MPI_EL_FLOAT;
  }
  return ZY_MPI_EL_NONE;
}

/* Where a run-time datatype comes from: the variable it is loaded from,
 * else itself (calls with the same source hold the same elements). */
static LLVMValueRef source(LLVMValueRef dt) {
  return LLVMIsALoadInst(dt) ? LLVMGetOperand(dt, 0) : dt;
}

/* The run-time datatype operand `nth` of the call and its count, or -1
 * when it is not one this file rewrites. */
static int runtime_type(ZyMpiCall *c, int nth, int *n) {
  int t = zy_mpi_index(c->row, 't', nth);
  if (t < 0)
    return -1;
  LLVMValueRef dt = LLVMGetOperand(c->call, (unsigned)t);
  char letter = 0;
  *n = count_of(c->row, t, &letter);
  if (zy_mpi_type_ignored(c, nth) || zy_mpi_elem(dt) != ZY_MPI_EL_UNKNOWN ||
      *n < 0 || LLVMIsAConstant(dt) ||
      (letter == 'N' && c->row->args[*n + 1] != 'D'))
    return -2; /* the check step refuses what is left unknown */
  return t;
}

/* One call: each run-time datatype with a scalar count becomes its base
 * type (from the buffer's elements, else from another call with the
 * same datatype variable, else double: checked at run time), the count
 * times k.  With `learn`, only records what buffers tell in `seen`. */
static int retype_call(ZyGen *g, LLVMValueRef call, LLVMBuilderRef b,
                       ZyMap *seen, int learn) {
  ZyMpiCall c;
  zy_mpi_init(&c, g, call);
  c.b = b;
  int changed = 0;
  for (int nth = 0;; nth++) {
    int n = -1, t = runtime_type(&c, nth, &n);
    if (t == -1)
      return changed;
    if (t < 0)
      continue;
    LLVMValueRef dt = LLVMGetOperand(call, (unsigned)t);
    ZyMpiElem el = held(&c, nth);
    if (learn) {
      if (el != ZY_MPI_EL_NONE)
        zy_map_put(seen, source(dt), (void *)(size_t)el);
      continue;
    }
    if (el == ZY_MPI_EL_NONE)
      el = (ZyMpiElem)(size_t)zy_map_get(seen, source(dt));
    if (el == ZY_MPI_EL_NONE) {
      ZyTy ty = zy_types_memory(g->types, zy_mpi_buffer(&c, nth), 0);
      if (ty == ZY_TY_INT || ty == ZY_TY_PTR)
        continue; /* integers: refused by the check step */
      el = ZY_MPI_EL_DOUBLE;
    }
    char what[512], msg[768];
    describe(g, call, what, sizeof what);
    snprintf(msg, sizeof msg,
             "zymase: %s: the datatype (argument %d) is not %s nor a "
             "contiguous datatype of it (MPI_Type_contiguous); other "
             "derived datatypes are not differentiated\n",
             what, t + 1, el == ZY_MPI_EL_FLOAT ? "MPI_FLOAT" : "MPI_DOUBLE");
    LLVMValueRef fn = elements_fn(&c, el);
    LLVMPositionBuilderBefore(b, call);
    LLVMValueRef a[2] = {dt, LLVMBuildGlobalStringPtr(b, msg, "mpi.msg")};
    LLVMValueRef k =
        LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, a, 2, "mpi.elements");
    if (c.row->args[n] == 'N') {
      scale_arrays(&c, n, k);
    } else {
      LLVMValueRef cnt = LLVMGetOperand(call, (unsigned)n);
      LLVMSetOperand(call, (unsigned)n, LLVMBuildMul(b, cnt, k, "mpi.count"));
    }
    LLVMSetOperand(call, (unsigned)t,
                   el == ZY_MPI_EL_FLOAT
                       ? zy_mpi_handle(&c, "ompi_mpi_float", 0x4c00040a)
                       : zy_mpi_handle(&c, "ompi_mpi_double", 0x4c00080b));
    changed = 1;
  }
}

int zy_mpi_retype(ZyGen *g) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(g->zm->ctx);
  ZyMap seen = {0};
  int changed = 0;
  for (int learn = 1; learn >= 0; learn--)
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i)) {
        if (!LLVMIsACallInst(i))
          continue;
        const ZyMpiRow *r = zy_mpi_row(LLVMGetCalledValue(i));
        if (r && r->kind != ZY_MPI_INACTIVE && r->kind != ZY_MPI_REFUSED)
          changed |= retype_call(g, i, b, &seen, learn);
      }
  zy_map_free(&seen);
  LLVMDisposeBuilder(b);
  return changed;
}

/* void intra(h comm, ptr msg): aborts with msg when comm is an
 * intercommunicator. */
static LLVMValueRef intra_fn(ZyMpiCall *c) {
  char name[64];
  snprintf(name, sizeof name, "zymase.%s.intra", c->pmpi ? "pmpi" : "mpi");
  LLVMTypeRef params[2] = {c->h, c->ptr};
  LLVMValueRef fn;
  if (!helper(c, name, LLVMVoidTypeInContext(c->ctx), params, 2, &fn))
    return fn;
  LLVMBuilderRef saved = c->b;
  c->b = LLVMCreateBuilderInContext(c->ctx);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c->ctx, fn, "entry"),
                    bad = LLVMAppendBasicBlockInContext(c->ctx, fn, "inter"),
                    ok = LLVMAppendBasicBlockInContext(c->ctx, fn, "intra");
  LLVMPositionBuilderAtEnd(c->b, entry);
  LLVMValueRef flag = slot(c, c->i32, "flag");
  LLVMBuildStore(c->b, LLVMConstInt(c->i32, 0, 0), flag);
  LLVMValueRef a[2] = {LLVMGetParam(fn, 0), flag};
  zy_mpi_emit(c, "Comm_test_inter", "hp", a);
  LLVMValueRef f = LLVMBuildLoad2(c->b, c->i32, flag, "");
  LLVMBuildCondBr(c->b, LLVMBuildIsNotNull(c->b, f, ""), bad, ok);
  LLVMPositionBuilderAtEnd(c->b, bad);
  fail(c, LLVMGetParam(fn, 1));
  LLVMPositionBuilderAtEnd(c->b, ok);
  LLVMBuildRetVoid(c->b);
  LLVMDisposeBuilder(c->b);
  c->b = saved;
  return fn;
}

int zy_mpi_check_intra(ZyMpiCall *c) {
  LLVMValueRef comm = zy_mpi_arg(c, 'c', 0);
  if (!comm)
    return 0;
  LLVMValueRef m = zy_map_get(&c->g->vmap, comm);
  char what[512], msg[768];
  describe(c->g, c->call, what, sizeof what);
  snprintf(msg, sizeof msg,
           "zymase: %s: the communicator is an intercommunicator; "
           "communication with derivatives is differentiated on "
           "intracommunicators only\n",
           what);
  LLVMValueRef fn = intra_fn(c);
  LLVMValueRef a[2] = {m ? m : comm,
                       LLVMBuildGlobalStringPtr(c->b, msg, "mpi.msg")};
  LLVMBuildCall2(c->b, LLVMGlobalGetValueType(fn), fn, a, 2, "");
  return 0;
}

/* --- Adjoint communicators ------------------------------------------------ */

/* An i32 of the program shared by its modules (the keyval of the adjoint
 * communicators, and whether it was made), zero at the start. */
static LLVMValueRef shared_i32(ZyMpiCall *c, const char *name) {
  LLVMValueRef gv = LLVMGetNamedGlobal(c->mod, name);
  if (gv)
    return gv;
  gv = LLVMAddGlobal(c->mod, c->i32, name);
  LLVMSetInitializer(gv, LLVMConstInt(c->i32, 0, 0));
  LLVMSetLinkage(gv, LLVMLinkOnceODRLinkage);
  LLVMSetVisibility(gv, LLVMHiddenVisibility);
  return gv;
}

static LLVMValueRef to_handle(ZyMpiCall *c, LLVMValueRef p) {
  return c->mpich ? LLVMBuildPtrToInt(c->b, p, c->i32, "") : p;
}

static LLVMValueRef to_pointer(ZyMpiCall *c, LLVMValueRef h) {
  return c->mpich ? LLVMBuildIntToPtr(c->b, h, c->ptr, "") : h;
}

/* int copy(h comm, i32 keyval, ptr extra, ptr in, ptr out, ptr flag): a
 * duplicate of the communicator gets no adjoint communicator of its own
 * (MPI_COMM_NULL_COPY_FN; it makes its own when used). */
static LLVMValueRef comm_copy_fn(ZyMpiCall *c, const char *prefix) {
  char name[64];
  snprintf(name, sizeof name, "zymase.%s.comm.copy", prefix);
  LLVMTypeRef params[6] = {c->h, c->i32, c->ptr, c->ptr, c->ptr, c->ptr};
  LLVMValueRef fn;
  if (!helper(c, name, c->i32, params, 6, &fn))
    return fn;
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c->ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c->ctx, fn, ""));
  LLVMBuildStore(b, LLVMConstInt(c->i32, 0, 0), LLVMGetParam(fn, 5));
  LLVMBuildRet(b, LLVMConstInt(c->i32, 0, 0));
  LLVMDisposeBuilder(b);
  return fn;
}

/* int delete(h comm, i32 keyval, ptr value, ptr extra): the
 * communicator is freed, its adjoint communicator (the value) too, unless
 * MPI is finalized already (Open MPI deletes MPI_COMM_WORLD's attributes
 * in MPI_Finalize). */
static LLVMValueRef comm_delete_fn(ZyMpiCall *c, const char *prefix) {
  char name[64];
  snprintf(name, sizeof name, "zymase.%s.comm.delete", prefix);
  LLVMTypeRef params[4] = {c->h, c->i32, c->ptr, c->ptr};
  LLVMValueRef fn;
  if (!helper(c, name, c->i32, params, 4, &fn))
    return fn;
  LLVMBuilderRef saved = c->b;
  c->b = LLVMCreateBuilderInContext(c->ctx);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c->ctx, fn, "entry"),
                    live = LLVMAppendBasicBlockInContext(c->ctx, fn, "free"),
                    done = LLVMAppendBasicBlockInContext(c->ctx, fn, "done");
  LLVMPositionBuilderAtEnd(c->b, entry);
  LLVMValueRef fin = slot(c, c->i32, "finalized"), dup = slot(c, c->h, "dup");
  LLVMBuildStore(c->b, LLVMConstInt(c->i32, 0, 0), fin);
  zy_mpi_emit(c, "Finalized", "p", &fin);
  LLVMValueRef f = LLVMBuildLoad2(c->b, c->i32, fin, "");
  LLVMBuildCondBr(c->b, LLVMBuildIsNotNull(c->b, f, ""), done, live);
  LLVMPositionBuilderAtEnd(c->b, live);
  LLVMBuildStore(c->b, to_handle(c, LLVMGetParam(fn, 2)), dup);
  zy_mpi_emit(c, "Comm_free", "p", &dup);
  LLVMBuildBr(c->b, done);
  LLVMPositionBuilderAtEnd(c->b, done);
  LLVMBuildRet(c->b, LLVMConstInt(c->i32, 0, 0));
  LLVMDisposeBuilder(c->b);
  c->b = saved;
  return fn;
}

/* h comm(h comm): the adjoint communicator of `comm`, a duplicate made
 * (MPI_Comm_dup, collective) the first time and kept as an attribute of
 * `comm`, freed with it; the keyval is made once per program. */
static LLVMValueRef comm_fn(ZyMpiCall *c) {
  const char *prefix = c->pmpi ? "pmpi" : "mpi";
  char name[64];
  snprintf(name, sizeof name, "zymase.%s.comm", prefix);
  LLVMValueRef fn;
  if (!helper(c, name, c->h, &c->h, 1, &fn))
    return fn;
  LLVMValueRef copy = comm_copy_fn(c, prefix), del = comm_delete_fn(c, prefix);
  LLVMValueRef keyval = shared_i32(c, "zymase.mpi.keyval"),
               made = shared_i32(c, "zymase.mpi.keyval.made");
  LLVMBuilderRef saved = c->b;
  c->b = LLVMCreateBuilderInContext(c->ctx);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c->ctx, fn, "entry"),
                    create =
                        LLVMAppendBasicBlockInContext(c->ctx, fn, "keyval"),
                    look = LLVMAppendBasicBlockInContext(c->ctx, fn, "look"),
                    found = LLVMAppendBasicBlockInContext(c->ctx, fn, "found"),
                    dup = LLVMAppendBasicBlockInContext(c->ctx, fn, "dup");
  LLVMPositionBuilderAtEnd(c->b, entry);
  LLVMValueRef val = slot(c, c->ptr, "value"), flag = slot(c, c->i32, "flag"),
               out = slot(c, c->h, "dup");
  LLVMValueRef m = LLVMBuildLoad2(c->b, c->i32, made, "");
  LLVMBuildCondBr(c->b, LLVMBuildIsNotNull(c->b, m, ""), look, create);
  LLVMPositionBuilderAtEnd(c->b, create);
  LLVMValueRef k[4] = {copy, del, keyval, LLVMConstNull(c->ptr)};
  zy_mpi_emit(c, "Comm_create_keyval", "pppp", k);
  LLVMBuildStore(c->b, LLVMConstInt(c->i32, 1, 0), made);
  LLVMBuildBr(c->b, look);
  LLVMPositionBuilderAtEnd(c->b, look);
  LLVMValueRef comm = LLVMGetParam(fn, 0);
  LLVMValueRef kv = LLVMBuildLoad2(c->b, c->i32, keyval, "keyval");
  LLVMBuildStore(c->b, LLVMConstInt(c->i32, 0, 0), flag);
  LLVMValueRef g[4] = {comm, kv, val, flag};
  zy_mpi_emit(c, "Comm_get_attr", "hipp", g);
  LLVMValueRef has = LLVMBuildLoad2(c->b, c->i32, flag, "");
  LLVMBuildCondBr(c->b, LLVMBuildIsNotNull(c->b, has, ""), found, dup);
  LLVMPositionBuilderAtEnd(c->b, found);
  LLVMBuildRet(c->b, to_handle(c, LLVMBuildLoad2(c->b, c->ptr, val, "")));
  LLVMPositionBuilderAtEnd(c->b, dup);
  LLVMValueRef d[2] = {comm, out};
  zy_mpi_emit(c, "Comm_dup", "hp", d);
  LLVMValueRef made_dup = LLVMBuildLoad2(c->b, c->h, out, "");
  LLVMValueRef s[3] = {comm, kv, to_pointer(c, made_dup)};
  zy_mpi_emit(c, "Comm_set_attr", "hip", s);
  LLVMBuildRet(c->b, made_dup);
  LLVMDisposeBuilder(c->b);
  c->b = saved;
  return fn;
}

LLVMValueRef zy_mpi_comm(ZyMpiCall *c) {
  LLVMValueRef comm = zy_mpi_arg(c, 'c', 0);
  if (!comm)
    return NULL;
  if (c->forward) {
    LLVMValueRef m = zy_map_get(&c->g->vmap, comm);
    comm = m ? m : comm;
  } else {
    comm = zy_lookup(c->g, comm);
  }
  LLVMValueRef fn = comm_fn(c);
  return LLVMBuildCall2(c->b, LLVMGlobalGetValueType(fn), fn, &comm, 1,
                        "mpi.comm");
}
