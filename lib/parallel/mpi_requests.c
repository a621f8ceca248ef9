/* mpi_requests.c - nonblocking MPI calls.  The forward sweep keeps a
 * heap record per Isend/Irecv with floating-point data (what the reverse
 * must post: the kind, the buffer's shadow, count, datatype, peer, tag,
 * communicator) in a table keyed by the address of the request; a Wait
 * (or a Test that finds the request complete) takes the record out (an Irecv's
 * record learns the actual source and tag from the status).  In the reverse
 * sweep, the reverse of the Wait posts the opposite operation (an Irecv of the
 * adjoint into a temporary for an Isend, an Isend of the shadow for an Irecv)
 * on a request kept in the record, and the reverse of the Isend/Irecv waits for
 * it, adds the temporary into the shadow or zeroes the shadow, and frees the
 * record. SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "mpi_record.h"

#include "ir/irutil.h"

#include <stdio.h>
#include <string.h>

LLVMTypeRef zy_mpi_rec_type(ZyMpiCall *c) {
  LLVMTypeRef f[R_N] = {c->i32, c->i32, c->ptr, c->i32, c->i64, c->i32, c->i32,
                        c->i64, c->ptr, c->i64, c->i64, c->i32, c->ptr};
  return LLVMStructTypeInContext(c->ctx, f, R_N, 0);
}

LLVMValueRef zy_mpi_rec_field(ZyMpiCall *c, LLVMValueRef rec, unsigned k) {
  return LLVMBuildStructGEP2(c->b, zy_mpi_rec_type(c), rec, k, "");
}
LLVMValueRef zy_mpi_rec_get(ZyMpiCall *c, LLVMValueRef rec, unsigned k) {
  return LLVMBuildLoad2(c->b, LLVMStructGetTypeAtIndex(zy_mpi_rec_type(c), k),
                        zy_mpi_rec_field(c, rec, k), "");
}
void zy_mpi_rec_set(ZyMpiCall *c, LLVMValueRef rec, unsigned k,
                    LLVMValueRef v) {
  LLVMBuildStore(c->b, v, zy_mpi_rec_field(c, rec, k));
}

/* Handles kept as i64 bits, whatever the ABI. */
LLVMValueRef zy_mpi_rec_to_bits(ZyMpiCall *c, LLVMValueRef h) {
  return c->mpich ? LLVMBuildSExt(c->b, h, c->i64, "")
                  : LLVMBuildPtrToInt(c->b, h, c->i64, "");
}
LLVMValueRef zy_mpi_rec_from_bits(ZyMpiCall *c, LLVMValueRef v) {
  return c->mpich ? LLVMBuildTrunc(c->b, v, c->i32, "")
                  : LLVMBuildIntToPtr(c->b, v, c->ptr, "");
}

LLVMValueRef zy_mpi_rec_request_null(ZyMpiCall *c) {
  return c->mpich ? LLVMConstInt(c->i64, 0x2c000000, 0)
                  : LLVMConstPtrToInt(zy_mpi_handle(c, "ompi_request_null", 0),
                                      c->i64);
}

static LLVMValueRef global(ZyMpiCall *c, const char *name, LLVMTypeRef t,
                           LLVMValueRef init) {
  LLVMValueRef gv = LLVMGetNamedGlobal(c->mod, name);
  if (!gv) {
    gv = LLVMAddGlobal(c->mod, t, name);
    LLVMSetLinkage(gv, LLVMInternalLinkage);
    LLVMSetInitializer(gv, init ? init : LLVMConstNull(t));
  }
  return gv;
}

/* mpi_record.h. */
int zy_mpi_helper_begin(ZyMpiCall *c, const char *name, LLVMTypeRef fty,
                        LLVMValueRef *fn, LLVMBuilderRef *saved) {
  *fn = LLVMGetNamedFunction(c->mod, name);
  if (*fn)
    return 0;
  *fn = LLVMAddFunction(c->mod, name, fty);
  LLVMSetLinkage(*fn, LLVMInternalLinkage);
  *saved = c->b;
  c->b = LLVMCreateBuilderInContext(c->ctx);
  LLVMPositionBuilderAtEnd(c->b,
                           LLVMAppendBasicBlockInContext(c->ctx, *fn, "entry"));
  return 1;
}

void zy_mpi_helper_end(ZyMpiCall *c, LLVMBuilderRef saved) {
  LLVMDisposeBuilder(c->b);
  c->b = saved;
}

static LLVMBasicBlockRef block(ZyMpiCall *c, LLVMValueRef fn, const char *n) {
  return LLVMAppendBasicBlockInContext(c->ctx, fn, n);
}

/* --- The table: pairs {request address, record}, searched from the end -- */

static LLVMTypeRef pair_type(ZyMpiCall *c) {
  LLVMTypeRef f[2] = {c->ptr, c->ptr};
  return LLVMStructTypeInContext(c->ctx, f, 2, 0);
}

/* void put(ptr key, ptr rec) */
/* The name `t` + `what` (t: the table's prefix). */
static const char *named(char *buf, size_t n, const char *t, const char *what) {
  snprintf(buf, n, "%s.%s", t, what);
  return buf;
}

static LLVMValueRef put_fn(ZyMpiCall *c, const char *t) {
  LLVMTypeRef p[2] = {c->ptr, c->ptr};
  LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(c->ctx), p, 2, 0);
  LLVMValueRef fn;
  LLVMBuilderRef saved;
  char name[64];
  if (!zy_mpi_helper_begin(c, named(name, sizeof name, t, "put"), fty, &fn,
                           &saved))
    return fn;
  LLVMValueRef tab =
      global(c, named(name, sizeof name, t, "table"), c->ptr, NULL);
  LLVMValueRef cnt =
      global(c, named(name, sizeof name, t, "count"), c->i64, NULL);
  LLVMValueRef cap =
      global(c, named(name, sizeof name, t, "cap"), c->i64, NULL);
  LLVMBasicBlockRef entry = LLVMGetInsertBlock(c->b);
  LLVMBasicBlockRef grow = block(c, fn, "grow"), add = block(c, fn, "add");
  LLVMValueRef n = LLVMBuildLoad2(c->b, c->i64, cnt, "n");
  LLVMValueRef k = LLVMBuildLoad2(c->b, c->i64, cap, "cap");
  LLVMValueRef a = LLVMBuildLoad2(c->b, c->ptr, tab, "a");
  LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntEQ, n, k, ""), grow, add);
  LLVMPositionBuilderAtEnd(c->b, grow);
  LLVMValueRef nk =
      LLVMBuildAdd(c->b, LLVMBuildMul(c->b, k, LLVMConstInt(c->i64, 2, 0), ""),
                   LLVMConstInt(c->i64, 8, 0), "");
  LLVMTypeRef rp[2] = {c->ptr, c->i64};
  LLVMTypeRef rty = LLVMFunctionType(c->ptr, rp, 2, 0);
  LLVMValueRef ra[2] = {
      a, LLVMBuildMul(c->b, nk, LLVMConstInt(c->i64, 16, 0), "")};
  LLVMValueRef na = LLVMBuildCall2(
      c->b, rty, zy_runtime_fn(c->mod, "realloc", rty), ra, 2, "");
  LLVMBuildStore(c->b, na, tab);
  LLVMBuildStore(c->b, nk, cap);
  LLVMBuildBr(c->b, add);
  LLVMPositionBuilderAtEnd(c->b, add);
  LLVMValueRef arr = LLVMBuildPhi(c->b, c->ptr, "");
  LLVMAddIncoming(arr, &a, &entry, 1);
  LLVMAddIncoming(arr, &na, &grow, 1);
  LLVMValueRef e = LLVMBuildGEP2(c->b, pair_type(c), arr, &n, 1, "");
  LLVMBuildStore(c->b, LLVMGetParam(fn, 0),
                 LLVMBuildStructGEP2(c->b, pair_type(c), e, 0, ""));
  LLVMBuildStore(c->b, LLVMGetParam(fn, 1),
                 LLVMBuildStructGEP2(c->b, pair_type(c), e, 1, ""));
  LLVMBuildStore(c->b, LLVMBuildAdd(c->b, n, LLVMConstInt(c->i64, 1, 0), ""),
                 cnt);
  LLVMBuildRetVoid(c->b);
  zy_mpi_helper_end(c, saved);
  return fn;
}

/* ptr take(ptr key): the latest record put with `key`, removed from the
 * table; a record of kind K_NONE when there is none (a request without
 * derivatives, or MPI_REQUEST_NULL). */
static LLVMValueRef take_fn(ZyMpiCall *c, const char *t) {
  LLVMTypeRef fty = LLVMFunctionType(c->ptr, &c->ptr, 1, 0);
  LLVMValueRef fn;
  LLVMBuilderRef saved;
  char name[64];
  if (!zy_mpi_helper_begin(c, named(name, sizeof name, t, "take"), fty, &fn,
                           &saved))
    return fn;
  LLVMValueRef tab =
      global(c, named(name, sizeof name, t, "table"), c->ptr, NULL);
  LLVMValueRef cnt =
      global(c, named(name, sizeof name, t, "count"), c->i64, NULL);
  LLVMTypeRef rt = zy_mpi_rec_type(c);
  LLVMValueRef init[R_N];
  for (unsigned k = 0; k < R_N; k++)
    init[k] = LLVMConstNull(LLVMStructGetTypeAtIndex(rt, k));
  init[R_KIND] = LLVMConstInt(c->i32, K_NONE, 0);
  LLVMValueRef none = global(c, named(name, sizeof name, t, "none"), rt,
                             LLVMConstStructInContext(c->ctx, init, R_N, 0));
  LLVMBasicBlockRef entry = LLVMGetInsertBlock(c->b);
  LLVMBasicBlockRef head = block(c, fn, "head"), body = block(c, fn, "body");
  LLVMBasicBlockRef found = block(c, fn, "found"), miss = block(c, fn, "none");
  LLVMValueRef n = LLVMBuildLoad2(c->b, c->i64, cnt, "n");
  LLVMValueRef a = LLVMBuildLoad2(c->b, c->ptr, tab, "a");
  LLVMBuildBr(c->b, head);
  LLVMPositionBuilderAtEnd(c->b, head);
  LLVMValueRef i = LLVMBuildPhi(c->b, c->i64, "i");
  LLVMBuildCondBr(
      c->b, LLVMBuildICmp(c->b, LLVMIntEQ, i, LLVMConstInt(c->i64, 0, 0), ""),
      miss, body);
  LLVMPositionBuilderAtEnd(c->b, body);
  LLVMValueRef im = LLVMBuildSub(c->b, i, LLVMConstInt(c->i64, 1, 0), "");
  LLVMValueRef e = LLVMBuildGEP2(c->b, pair_type(c), a, &im, 1, "");
  LLVMValueRef key = LLVMBuildLoad2(
      c->b, c->ptr, LLVMBuildStructGEP2(c->b, pair_type(c), e, 0, ""), "");
  LLVMBuildCondBr(c->b,
                  LLVMBuildICmp(c->b, LLVMIntEQ, key, LLVMGetParam(fn, 0), ""),
                  found, head);
  LLVMAddIncoming(i, &n, &entry, 1);
  LLVMAddIncoming(i, &im, &body, 1);
  LLVMPositionBuilderAtEnd(c->b, found);
  LLVMValueRef r = LLVMBuildLoad2(
      c->b, c->ptr, LLVMBuildStructGEP2(c->b, pair_type(c), e, 1, ""), "");
  LLVMValueRef nm = LLVMBuildSub(c->b, n, LLVMConstInt(c->i64, 1, 0), "");
  LLVMValueRef last = LLVMBuildGEP2(c->b, pair_type(c), a, &nm, 1, "");
  LLVMBuildStore(c->b, LLVMBuildLoad2(c->b, pair_type(c), last, ""), e);
  LLVMBuildStore(c->b, nm, cnt);
  LLVMBuildRet(c->b, r);
  LLVMPositionBuilderAtEnd(c->b, miss);
  LLVMBuildRet(c->b, none);
  zy_mpi_helper_end(c, saved);
  return fn;
}

LLVMValueRef zy_mpi_table_put(ZyMpiCall *c, const char *table, LLVMValueRef key,
                              LLVMValueRef rec) {
  LLVMValueRef fn = put_fn(c, table), a[2] = {key, rec};
  return LLVMBuildCall2(c->b, LLVMGlobalGetValueType(fn), fn, a, 2, "");
}

LLVMValueRef zy_mpi_table_take(ZyMpiCall *c, const char *table,
                               LLVMValueRef key) {
  LLVMValueRef fn = take_fn(c, table);
  return LLVMBuildCall2(c->b, LLVMGlobalGetValueType(fn), fn, &key, 1,
                        "mpi.record");
}

LLVMValueRef zy_mpi_rec_put(ZyMpiCall *c, LLVMValueRef key, LLVMValueRef rec) {
  return zy_mpi_table_put(c, "__zymase_mpi", key, rec);
}

static LLVMValueRef call_take(ZyMpiCall *c, LLVMValueRef key) {
  return zy_mpi_table_take(c, "__zymase_mpi", key);
}

/* void unwait(ptr rec): the reverse of completing the request: posts the
 * opposite operation on the record's own request. */
static LLVMValueRef unwait_fn(ZyMpiCall *c) {
  LLVMTypeRef fty =
      LLVMFunctionType(LLVMVoidTypeInContext(c->ctx), &c->ptr, 1, 0);
  LLVMValueRef fn;
  LLVMBuilderRef saved;
  if (!zy_mpi_helper_begin(c, "__zymase_mpi.unwait", fty, &fn, &saved))
    return fn;
  LLVMValueRef rec = LLVMGetParam(fn, 0);
  LLVMBasicBlockRef send = block(c, fn, "send"), recv = block(c, fn, "recv"),
                    out = block(c, fn, "out");
  LLVMValueRef sw =
      LLVMBuildSwitch(c->b, zy_mpi_rec_get(c, rec, R_KIND), out, 5);
  LLVMAddCase(sw, LLVMConstInt(c->i32, K_SEND, 0), send);
  LLVMAddCase(sw, LLVMConstInt(c->i32, K_RECV, 0), recv);
  zy_mpi_unwait_collectives(c, rec, sw, out);
  for (int k = 0; k < 2; k++) {
    LLVMPositionBuilderAtEnd(c->b, k ? recv : send);
    LLVMValueRef bytes = zy_mpi_rec_get(c, rec, R_BYTES), buf;
    if (k) { /* Isend of the shadow (zeros when there is none) */
      LLVMValueRef sh = zy_mpi_rec_get(c, rec, R_SHADOW);
      LLVMValueRef none = LLVMBuildIsNull(c->b, sh, "");
      LLVMValueRef z =
          zy_mpi_zeroed(c, LLVMBuildSelect(c->b, none, bytes,
                                           LLVMConstInt(c->i64, 0, 0), ""));
      zy_mpi_rec_set(c, rec, R_TMP, z);
      buf = LLVMBuildSelect(c->b, none, z, sh, "");
    } else { /* Irecv of the adjoint */
      buf = zy_mpi_zeroed(c, bytes);
      zy_mpi_rec_set(c, rec, R_TMP, buf);
    }
    LLVMValueRef a[7] = {
        buf,
        zy_mpi_rec_get(c, rec, R_COUNT),
        zy_mpi_rec_from_bits(c, zy_mpi_rec_get(c, rec, R_TYPE)),
        zy_mpi_rec_get(c, rec, R_PEER),
        zy_mpi_rec_get(c, rec, R_TAG),
        zy_mpi_rec_from_bits(c, zy_mpi_rec_get(c, rec, R_COMM)),
        zy_mpi_rec_field(c, rec, R_REQ)};
    zy_mpi_emit(c, k ? "Isend" : "Irecv", "pihiihp", a);
    LLVMBuildBr(c->b, out);
  }
  LLVMPositionBuilderAtEnd(c->b, out);
  LLVMBuildRetVoid(c->b);
  zy_mpi_helper_end(c, saved);
  return fn;
}

static void call_unwait(ZyMpiCall *c, LLVMValueRef rec) {
  LLVMValueRef fn = unwait_fn(c);
  LLVMBuildCall2(c->b, LLVMGlobalGetValueType(fn), fn, &rec, 1, "");
}

/* Prints `msg` and aborts unless `ok`. */
void zy_mpi_rec_require(ZyMpiCall *c, LLVMValueRef ok, const char *msg) {
  LLVMValueRef fn = zy_builder_function(c->b);
  LLVMBasicBlockRef bad = block(c, fn, "mpi.fail"),
                    good = block(c, fn, "mpi.ok");
  LLVMBuildCondBr(c->b, ok, good, bad);
  LLVMPositionBuilderAtEnd(c->b, bad);
  LLVMTypeRef pp[2] = {c->ptr, c->ptr};
  LLVMTypeRef fputs_ty = LLVMFunctionType(c->i32, pp, 2, 0);
  LLVMValueRef err = LLVMGetNamedGlobal(c->mod, "stderr");
  if (!err)
    err = LLVMAddGlobal(c->mod, c->ptr, "stderr");
  LLVMValueRef a[2] = {LLVMBuildGlobalStringPtr(c->b, msg, "mpi.msg"),
                       LLVMBuildLoad2(c->b, c->ptr, err, "")};
  LLVMBuildCall2(c->b, fputs_ty, zy_runtime_fn(c->mod, "fputs", fputs_ty), a, 2,
                 "");
  LLVMTypeRef vty = LLVMFunctionType(LLVMVoidTypeInContext(c->ctx), NULL, 0, 0);
  LLVMBuildCall2(c->b, vty, zy_runtime_fn(c->mod, "abort", vty), NULL, 0, "");
  LLVMBuildUnreachable(c->b);
  LLVMPositionBuilderAtEnd(c->b, good);
}

/* --- Forward ------------------------------------------------------------ */

static LLVMValueRef fwd(ZyMpiCall *c, LLVMValueRef v) {
  LLVMValueRef m = zy_map_get(&c->g->vmap, v);
  return m ? m : v;
}

static LLVMValueRef fwd_arg(ZyMpiCall *c, char letter) {
  return fwd(c, zy_mpi_arg(c, letter, 0));
}

/* Isend/Irecv: the record, put under the request's address.  Send_init/
 * Recv_init: the template of the persistent request, put under the
 * address + 1 (never a request's address), copied by each Start. */
static int forward_post(ZyMpiCall *c) {
  ZyMpiElem el = zy_mpi_elem(zy_mpi_arg(c, 't', 0));
  int persistent =
      c->row->kind == ZY_MPI_SEND_INIT || c->row->kind == ZY_MPI_RECV_INIT;
  LLVMValueRef buf = zy_mpi_buffer(c, 0);
  LLVMValueRef rec =
      zy_call_malloc(c->b, LLVMSizeOf(zy_mpi_rec_type(c)), "mpi.record");
  LLVMValueRef n = fwd_arg(c, 'n');
  int recv = c->row->kind == ZY_MPI_IRECV || c->row->kind == ZY_MPI_RECV_INIT;
  zy_mpi_rec_set(c, rec, R_KIND,
                 LLVMConstInt(c->i32, recv ? K_RECV : K_SEND, 0));
  zy_mpi_rec_set(c, rec, R_STATE, LLVMConstInt(c->i32, S_POSTED, 0));
  zy_mpi_rec_set(c, rec, R_SHADOW,
                 zy_activity_shadowed(c->g->act, buf)
                     ? zy_shadow_forward_of(c->g, buf)
                     : LLVMConstNull(c->ptr));
  zy_mpi_rec_set(c, rec, R_COUNT, n);
  zy_mpi_rec_set(c, rec, R_TYPE, zy_mpi_rec_to_bits(c, fwd_arg(c, 't')));
  zy_mpi_rec_set(c, rec, R_PEER, fwd_arg(c, 'p'));
  zy_mpi_rec_set(c, rec, R_TAG, fwd_arg(c, 'g'));
  zy_mpi_rec_set(c, rec, R_COMM, zy_mpi_rec_to_bits(c, zy_mpi_comm(c)));
  zy_mpi_rec_set(c, rec, R_TMP, LLVMConstNull(c->ptr));
  zy_mpi_rec_set(c, rec, R_REQ, zy_mpi_rec_request_null(c));
  zy_mpi_rec_set(c, rec, R_BYTES,
                 LLVMBuildMul(c->b, zy_mpi_i64(c, n),
                              LLVMConstInt(c->i64, zy_mpi_el_size(el), 0), ""));
  zy_mpi_rec_set(c, rec, R_FLOAT,
                 LLVMConstInt(c->i32, el == ZY_MPI_EL_FLOAT, 0));
  zy_mpi_rec_set(c, rec, R_TMP2, LLVMConstNull(c->ptr));
  LLVMValueRef key = fwd_arg(c, 'q'), one = LLVMConstInt(c->i64, 1, 0);
  if (persistent)
    key = LLVMBuildGEP2(c->b, c->i8, key, &one, 1, "mpi.template");
  zy_mpi_rec_put(c, key, rec);
  if (!persistent)
    zy_map_put(&c->g->tapes, c->call, rec);
  return 0;
}

/* The request at `key` is complete, its status at `st`: its record,
 * marked waited; an Irecv's record gets the actual source and tag. */
static LLVMValueRef complete(ZyMpiCall *c, LLVMValueRef key, LLVMValueRef st) {
  LLVMValueRef rec = call_take(c, key);
  zy_mpi_rec_set(c, rec, R_STATE, LLVMConstInt(c->i32, S_WAITED, 0));
  LLVMValueRef recv =
      LLVMBuildICmp(c->b, LLVMIntEQ, zy_mpi_rec_get(c, rec, R_KIND),
                    LLVMConstInt(c->i32, K_RECV, 0), "");
  LLVMValueRef src = zy_mpi_rec_get(c, rec, R_PEER),
               tag = zy_mpi_rec_get(c, rec, R_TAG);
  zy_mpi_actual_source(c, st, &src, &tag);
  zy_mpi_rec_set(
      c, rec, R_PEER,
      LLVMBuildSelect(c->b, recv, src, zy_mpi_rec_get(c, rec, R_PEER), ""));
  zy_mpi_rec_set(
      c, rec, R_TAG,
      LLVMBuildSelect(c->b, recv, tag, zy_mpi_rec_get(c, rec, R_TAG), ""));
  return rec;
}

static unsigned status_size(ZyMpiCall *c) { return c->mpich ? 20 : 24; }

/* complete(), or (Test, Testall, Waitany) only when `cond` (i1) holds:
 * a request that is still pending keeps its record in the table. */
static LLVMValueRef complete_if(ZyMpiCall *c, LLVMValueRef cond,
                                LLVMValueRef key, LLVMValueRef st) {
  if (!cond)
    return complete(c, key, st);
  take_fn(c, "__zymase_mpi"); /* makes the record of kind K_NONE */
  LLVMValueRef none = LLVMGetNamedGlobal(c->mod, "__zymase_mpi.none");
  LLVMValueRef fn = zy_builder_function(c->b);
  LLVMBasicBlockRef from = LLVMGetInsertBlock(c->b);
  LLVMBasicBlockRef yes = block(c, fn, "mpi.done"),
                    join = block(c, fn, "mpi.join");
  zy_vec_push(&c->g->fextra, yes);
  zy_vec_push(&c->g->fextra, join);
  LLVMBuildCondBr(c->b, cond, yes, join);
  LLVMPositionBuilderAtEnd(c->b, yes);
  LLVMValueRef rec = complete(c, key, st);
  LLVMBasicBlockRef yes_end = LLVMGetInsertBlock(c->b);
  LLVMBuildBr(c->b, join);
  LLVMPositionBuilderAtEnd(c->b, join);
  LLVMValueRef phi = LLVMBuildPhi(c->b, c->ptr, "mpi.record");
  LLVMAddIncoming(phi, &none, &from, 1);
  LLVMAddIncoming(phi, &rec, &yes_end, 1);
  return phi;
}

/* The status operand of the forward copy: MPI_STATUS(ES)_IGNORE is
 * replaced by memory of our own (*own: a heap block to free after). */
static LLVMValueRef statuses(ZyMpiCall *c, LLVMValueRef n, LLVMValueRef *own) {
  LLVMValueRef fc = zy_map_get(&c->g->vmap, c->call);
  int one = zy_mpi_index(c->row, 's', 0) >= 0;
  unsigned k = (unsigned)zy_mpi_index(c->row, one ? 's' : 'S', 0);
  LLVMValueRef st = LLVMGetOperand(fc, k);
  *own = NULL;
  if (!LLVMIsAConstant(st))
    return st;
  if (one) {
    st = zy_new_slot(c->g, LLVMArrayType(c->i8, ZY_MPI_STATUS_BYTES),
                     "mpi.status", 0);
  } else {
    LLVMBuilderRef b = c->b;
    c->b = LLVMCreateBuilderInContext(c->ctx);
    LLVMPositionBuilderBefore(c->b, fc);
    st = *own = zy_call_malloc(
        c->b,
        LLVMBuildMul(c->b, n, LLVMConstInt(c->i64, status_size(c), 0), ""),
        "mpi.statuses");
    LLVMDisposeBuilder(c->b);
    c->b = b;
  }
  LLVMSetOperand(fc, k, st);
  return st;
}

/* Whether the call's completion flag (Test*) is set, NULL without one. */
static LLVMValueRef flag_of(ZyMpiCall *c) {
  LLVMValueRef f = zy_mpi_arg(c, 'f', 0);
  if (!f)
    return NULL;
  return LLVMBuildICmp(c->b, LLVMIntNE,
                       LLVMBuildLoad2(c->b, c->i32, fwd(c, f), "mpi.flag"),
                       LLVMConstInt(c->i32, 0, 0), "");
}

/* Waitany, Testany: the request at the index the call wrote (none when it
 * wrote MPI_UNDEFINED, or the flag is clear). */
static int forward_waitany(ZyMpiCall *c) {
  LLVMValueRef n = zy_mpi_i64(c, fwd_arg(c, 'k'));
  LLVMValueRef own, sts = statuses(c, n, &own);
  LLVMValueRef idx = LLVMBuildLoad2(c->b, c->i32, fwd_arg(c, 'I'), "mpi.index");
  LLVMValueRef cond =
      LLVMBuildICmp(c->b, LLVMIntNE, idx, LLVMConstInt(c->i32, -32766, 1), "");
  LLVMValueRef flag = flag_of(c);
  if (flag)
    cond = LLVMBuildAnd(c->b, cond, flag, "");
  LLVMValueRef i = zy_mpi_i64(c, idx);
  LLVMValueRef key = LLVMBuildGEP2(c->b, c->h, fwd_arg(c, 'q'), &i, 1, "");
  zy_map_put(&c->g->tapes, c->call, complete_if(c, cond, key, sts));
  return 0;
}

/* Waitsome, Testsome: the requests at the indices the call wrote, in an
 * array of `incount` records (the others of kind K_NONE). */
static int forward_waitsome(ZyMpiCall *c) {
  LLVMValueRef n = zy_mpi_i64(c, fwd_arg(c, 'k')), reqs = fwd_arg(c, 'q');
  LLVMValueRef own, sts = statuses(c, n, &own);
  LLVMValueRef stride = LLVMConstInt(c->i64, status_size(c), 0);
  LLVMValueRef out = LLVMBuildLoad2(c->b, c->i32, fwd_arg(c, 'O'), "");
  out = LLVMBuildSelect(
      c->b,
      LLVMBuildICmp(c->b, LLVMIntSLT, out, LLVMConstInt(c->i32, 0, 0), ""),
      LLVMConstInt(c->i32, 0, 0), out, "mpi.outcount");
  LLVMValueRef recs = zy_call_malloc(
      c->b, LLVMBuildMul(c->b, n, LLVMConstInt(c->i64, 8, 0), ""),
      "mpi.records");
  take_fn(c, "__zymase_mpi");
  LLVMValueRef none = LLVMGetNamedGlobal(c->mod, "__zymase_mpi.none");
  ZyMpiLoop l;
  zy_mpi_loop_open(c, &l, n);
  LLVMBuildStore(c->b, none, LLVMBuildGEP2(c->b, c->ptr, recs, &l.i, 1, ""));
  zy_mpi_loop_close(c, &l);
  zy_mpi_loop_open(c, &l, out);
  LLVMValueRef idx = zy_mpi_i64(
      c, LLVMBuildLoad2(
             c->b, c->i32,
             LLVMBuildGEP2(c->b, c->i32, fwd_arg(c, 'J'), &l.i, 1, ""), ""));
  LLVMValueRef at = LLVMBuildMul(c->b, l.i, stride, "");
  LLVMValueRef rec = complete(c, LLVMBuildGEP2(c->b, c->h, reqs, &idx, 1, ""),
                              LLVMBuildGEP2(c->b, c->i8, sts, &at, 1, ""));
  LLVMBuildStore(c->b, rec, LLVMBuildGEP2(c->b, c->ptr, recs, &l.i, 1, ""));
  zy_mpi_loop_close(c, &l);
  if (own)
    zy_call_free(c->b, "free", own);
  zy_map_put(&c->g->tapes, c->call, recs);
  return 0;
}

/* Wait, Test. */
static int forward_wait(ZyMpiCall *c) {
  LLVMValueRef own, st = statuses(c, NULL, &own);
  zy_map_put(&c->g->tapes, c->call,
             complete_if(c, flag_of(c), fwd_arg(c, 'q'), st));
  return 0;
}

/* Waitall, Testall: an array of the records. */
static int forward_waitall(ZyMpiCall *c) {
  LLVMValueRef n = zy_mpi_i64(c, fwd_arg(c, 'k')), reqs = fwd_arg(c, 'q');
  LLVMValueRef own, sts = statuses(c, n, &own);
  LLVMValueRef stride = LLVMConstInt(c->i64, status_size(c), 0);
  LLVMValueRef recs = zy_call_malloc(
      c->b, LLVMBuildMul(c->b, n, LLVMConstInt(c->i64, 8, 0), ""),
      "mpi.records");
  ZyMpiLoop l;
  zy_mpi_loop_open(c, &l, n);
  LLVMValueRef key = LLVMBuildGEP2(c->b, c->h, reqs, &l.i, 1, "");
  LLVMValueRef at = LLVMBuildMul(c->b, l.i, stride, "");
  LLVMValueRef rec = complete_if(c, flag_of(c), key,
                                 LLVMBuildGEP2(c->b, c->i8, sts, &at, 1, ""));
  LLVMBuildStore(c->b, rec, LLVMBuildGEP2(c->b, c->ptr, recs, &l.i, 1, ""));
  zy_mpi_loop_close(c, &l);
  if (own)
    zy_call_free(c->b, "free", own);
  zy_map_put(&c->g->tapes, c->call, recs);
  return 0;
}

/* --- Persistent requests ------------------------------------------------ */

static LLVMValueRef none_record(ZyMpiCall *c) {
  take_fn(c, "__zymase_mpi"); /* makes the record of kind K_NONE */
  return LLVMGetNamedGlobal(c->mod, "__zymase_mpi.none");
}

/* ptr start(ptr key): a fresh record from the template of the persistent
 * request at `key` (kept under key + 1), put under `key`; the record of
 * kind K_NONE when there is no template (no derivatives). */
static LLVMValueRef start_fn(ZyMpiCall *c) {
  LLVMTypeRef fty = LLVMFunctionType(c->ptr, &c->ptr, 1, 0);
  LLVMValueRef fn, none = none_record(c);
  LLVMBuilderRef saved;
  put_fn(c, "__zymase_mpi");
  if (!zy_mpi_helper_begin(c, "__zymase_mpi.start", fty, &fn, &saved))
    return fn;
  LLVMValueRef key = LLVMGetParam(fn, 0), one = LLVMConstInt(c->i64, 1, 0);
  LLVMValueRef tkey = LLVMBuildGEP2(c->b, c->i8, key, &one, 1, "");
  LLVMValueRef t = call_take(c, tkey);
  LLVMBasicBlockRef have = block(c, fn, "have"), miss = block(c, fn, "none");
  LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntEQ, t, none, ""), miss,
                  have);
  LLVMPositionBuilderAtEnd(c->b, miss);
  LLVMBuildRet(c->b, none);
  LLVMPositionBuilderAtEnd(c->b, have);
  zy_mpi_rec_put(c, tkey, t);
  LLVMValueRef size = LLVMSizeOf(zy_mpi_rec_type(c));
  LLVMValueRef r = zy_call_malloc(c->b, size, "mpi.record");
  LLVMBuildMemCpy(c->b, r, 8, t, 8, size);
  zy_mpi_rec_set(c, r, R_STATE, LLVMConstInt(c->i32, S_POSTED, 0));
  zy_mpi_rec_set(c, r, R_TMP, LLVMConstNull(c->ptr));
  zy_mpi_rec_set(c, r, R_REQ, zy_mpi_rec_request_null(c));
  zy_mpi_rec_put(c, key, r);
  LLVMBuildRet(c->b, r);
  zy_mpi_helper_end(c, saved);
  return fn;
}

/* dst[i] += src[i] for i < n, elements of type `ft` (plain adds: MPI calls
 * are not differentiated in parallel regions). */
static void add_loop(ZyMpiCall *c, LLVMTypeRef ft, LLVMValueRef dst,
                     LLVMValueRef src, LLVMValueRef n) {
  ZyMpiLoop l;
  zy_mpi_loop_open(c, &l, n);
  LLVMValueRef d = LLVMBuildGEP2(c->b, ft, dst, &l.i, 1, "");
  LLVMValueRef v = LLVMBuildFAdd(
      c->b, LLVMBuildLoad2(c->b, ft, d, ""),
      LLVMBuildLoad2(c->b, ft, LLVMBuildGEP2(c->b, ft, src, &l.i, 1, ""), ""),
      "");
  LLVMBuildStore(c->b, v, d);
  zy_mpi_loop_close(c, &l);
}

/* void unstart(ptr rec): the reverse of a Start: waits for the adjoint
 * operation the reverse of the request's wait posted, then adds the
 * received adjoint into the shadow (a send) or zeroes the shadow (a
 * receive), and frees the record. */
static LLVMValueRef unstart_fn(ZyMpiCall *c) {
  LLVMTypeRef fty =
      LLVMFunctionType(LLVMVoidTypeInContext(c->ctx), &c->ptr, 1, 0);
  LLVMValueRef fn;
  LLVMBuilderRef saved;
  if (!zy_mpi_helper_begin(c, "__zymase_mpi.unstart", fty, &fn, &saved))
    return fn;
  LLVMValueRef rec = LLVMGetParam(fn, 0);
  LLVMBasicBlockRef body = block(c, fn, "body"), out = block(c, fn, "out");
  LLVMBuildCondBr(c->b,
                  LLVMBuildICmp(c->b, LLVMIntEQ, zy_mpi_rec_get(c, rec, R_KIND),
                                LLVMConstInt(c->i32, K_NONE, 0), ""),
                  out, body);
  LLVMPositionBuilderAtEnd(c->b, body);
  zy_mpi_rec_require(
      c,
      LLVMBuildICmp(c->b, LLVMIntEQ, zy_mpi_rec_get(c, rec, R_STATE),
                    LLVMConstInt(c->i32, S_WAITED, 0), ""),
      "zymase: an MPI request with derivatives was not completed by "
      "MPI_Wait or MPI_Test in the differentiated code\n");
  LLVMValueRef a[2] = {zy_mpi_rec_field(c, rec, R_REQ),
                       zy_mpi_status_ignore(c)};
  zy_mpi_emit(c, "Wait", "pp", a);
  LLVMValueRef sh = zy_mpi_rec_get(c, rec, R_SHADOW),
               tmp = zy_mpi_rec_get(c, rec, R_TMP);
  LLVMValueRef none = LLVMBuildIsNull(c->b, sh, "");
  LLVMValueRef zero = LLVMConstInt(c->i64, 0, 0);
  LLVMValueRef send =
      LLVMBuildICmp(c->b, LLVMIntEQ, zy_mpi_rec_get(c, rec, R_KIND),
                    LLVMConstInt(c->i32, K_SEND, 0), "");
  LLVMValueRef fl =
      LLVMBuildICmp(c->b, LLVMIntNE, zy_mpi_rec_get(c, rec, R_FLOAT),
                    LLVMConstInt(c->i32, 0, 0), "");
  /* A send: add as doubles or as floats (counts 0 for the other). */
  LLVMValueRef n = zy_mpi_i64(c, zy_mpi_rec_get(c, rec, R_COUNT));
  n = LLVMBuildSelect(
      c->b, LLVMBuildAnd(c->b, send, LLVMBuildNot(c->b, none, ""), ""), n, zero,
      "");
  add_loop(c, LLVMDoubleTypeInContext(c->ctx), sh, tmp,
           LLVMBuildSelect(c->b, fl, zero, n, ""));
  add_loop(c, LLVMFloatTypeInContext(c->ctx), sh, tmp,
           LLVMBuildSelect(c->b, fl, n, zero, ""));
  /* A receive: the shadow is zeroed (unless from MPI_PROC_NULL). */
  LLVMValueRef keep =
      LLVMBuildOr(c->b, LLVMBuildOr(c->b, send, none, ""),
                  LLVMBuildICmp(c->b, LLVMIntEQ, zy_mpi_rec_get(c, rec, R_PEER),
                                zy_mpi_proc_null(c), ""),
                  "");
  LLVMBuildMemSet(
      c->b, sh, LLVMConstInt(c->i8, 0, 0),
      LLVMBuildSelect(c->b, keep, zero, zy_mpi_rec_get(c, rec, R_BYTES), ""),
      1);
  zy_call_free(c->b, "free", tmp);
  zy_call_free(c->b, "free", rec);
  LLVMBuildBr(c->b, out);
  LLVMPositionBuilderAtEnd(c->b, out);
  LLVMBuildRetVoid(c->b);
  zy_mpi_helper_end(c, saved);
  return fn;
}

static LLVMValueRef call1(ZyMpiCall *c, LLVMValueRef fn, LLVMValueRef arg) {
  return LLVMBuildCall2(c->b, LLVMGlobalGetValueType(fn), fn, &arg, 1, "");
}

/* Start, Startall: the records, kept as the tape (an array for Startall);
 * Request_free: the template is freed. */
static int forward_persistent(ZyMpiCall *c) {
  LLVMValueRef key = fwd_arg(c, 'q');
  if (c->row->kind == ZY_MPI_START) {
    zy_map_put(&c->g->tapes, c->call, call1(c, start_fn(c), key));
    return 0;
  }
  if (c->row->kind == ZY_MPI_REQUEST_FREE) {
    LLVMValueRef one = LLVMConstInt(c->i64, 1, 0);
    LLVMValueRef t = call_take(c, LLVMBuildGEP2(c->b, c->i8, key, &one, 1, ""));
    zy_call_free(
        c->b, "free",
        LLVMBuildSelect(c->b,
                        LLVMBuildICmp(c->b, LLVMIntEQ, t, none_record(c), ""),
                        LLVMConstNull(c->ptr), t, ""));
    return 0;
  }
  LLVMValueRef n = zy_mpi_i64(c, fwd_arg(c, 'k'));
  LLVMValueRef recs = zy_call_malloc(
      c->b, LLVMBuildMul(c->b, n, LLVMConstInt(c->i64, 8, 0), ""),
      "mpi.records");
  LLVMValueRef start = start_fn(c);
  ZyMpiLoop l;
  zy_mpi_loop_open(c, &l, n);
  LLVMValueRef rec =
      call1(c, start, LLVMBuildGEP2(c->b, c->h, key, &l.i, 1, ""));
  LLVMBuildStore(c->b, rec, LLVMBuildGEP2(c->b, c->ptr, recs, &l.i, 1, ""));
  zy_mpi_loop_close(c, &l);
  zy_map_put(&c->g->tapes, c->call, recs);
  return 0;
}

int zy_mpi_forward_request(ZyMpiCall *c) {
  switch (c->row->kind) {
  case ZY_MPI_ISEND:
  case ZY_MPI_IRECV:
  case ZY_MPI_SEND_INIT:
  case ZY_MPI_RECV_INIT:
    return forward_post(c);
  case ZY_MPI_START:
  case ZY_MPI_STARTALL:
  case ZY_MPI_REQUEST_FREE:
    return forward_persistent(c);
  case ZY_MPI_WAIT:
  case ZY_MPI_TEST:
    return forward_wait(c);
  case ZY_MPI_WAITANY:
    return forward_waitany(c);
  case ZY_MPI_WAITSOME:
    return forward_waitsome(c);
  default:
    return forward_waitall(c);
  }
}

/* --- Reverse ------------------------------------------------------------ */

static LLVMValueRef tape(ZyMpiCall *c) {
  return zy_reload(c->g, zy_map_get(&c->g->tapes, c->call),
                   LLVMGetInstructionParent(c->call));
}

/* The reverse of an Isend/Irecv: wait for the adjoint operation that the
 * reverse of its Wait posted, then use it. */
static int reverse_post(ZyMpiCall *c) {
  LLVMValueRef rec = tape(c);
  zy_mpi_rec_require(
      c,
      LLVMBuildICmp(c->b, LLVMIntEQ, zy_mpi_rec_get(c, rec, R_STATE),
                    LLVMConstInt(c->i32, S_WAITED, 0), ""),
      "zymase: an MPI request with derivatives was not completed by "
      "MPI_Wait or MPI_Waitall in the differentiated code\n");
  LLVMValueRef a[2] = {zy_mpi_rec_field(c, rec, R_REQ),
                       zy_mpi_status_ignore(c)};
  zy_mpi_emit(c, "Wait", "pp", a);
  LLVMValueRef buf = zy_mpi_buffer(c, 0);
  LLVMValueRef sh =
      zy_activity_shadowed(c->g->act, buf) ? zy_shadow_lookup(c->g, buf) : NULL;
  LLVMValueRef tmp = zy_mpi_rec_get(c, rec, R_TMP);
  if (c->row->kind == ZY_MPI_ISEND) {
    zy_mpi_add_into(c, buf, sh, tmp, zy_mpi_rec_get(c, rec, R_COUNT),
                    zy_mpi_elem(zy_mpi_arg(c, 't', 0)));
  } else if (sh) { /* the receive overwrote the buffer (unless PROC_NULL) */
    LLVMValueRef pn =
        LLVMBuildICmp(c->b, LLVMIntEQ, zy_mpi_rec_get(c, rec, R_PEER),
                      zy_mpi_proc_null(c), "");
    LLVMBuildMemSet(c->b, sh, LLVMConstInt(c->i8, 0, 0),
                    LLVMBuildSelect(c->b, pn, LLVMConstInt(c->i64, 0, 0),
                                    zy_mpi_rec_get(c, rec, R_BYTES), ""),
                    1);
  }
  zy_call_free(c->b, "free", tmp);
  zy_call_free(c->b, "free", rec);
  return 0;
}

int zy_mpi_reverse_request(ZyMpiCall *c) {
  switch (c->row->kind) {
  case ZY_MPI_ISEND:
  case ZY_MPI_IRECV:
    return reverse_post(c);
  case ZY_MPI_SEND_INIT:
  case ZY_MPI_RECV_INIT:
  case ZY_MPI_REQUEST_FREE:
    return 0;
  case ZY_MPI_START:
    call1(c, unstart_fn(c), tape(c));
    return 0;
  case ZY_MPI_STARTALL: {
    LLVMValueRef recs = tape(c), fn = unstart_fn(c);
    ZyMpiLoop l;
    zy_mpi_loop_open(c, &l, zy_lookup(c->g, zy_mpi_arg(c, 'k', 0)));
    call1(c, fn,
          LLVMBuildLoad2(c->b, c->ptr,
                         LLVMBuildGEP2(c->b, c->ptr, recs, &l.i, 1, ""), ""));
    zy_mpi_loop_close(c, &l);
    zy_call_free(c->b, "free", recs);
    return 0;
  }
  case ZY_MPI_WAIT:
  case ZY_MPI_TEST:
  case ZY_MPI_WAITANY:
    call_unwait(c, tape(c));
    return 0;
  default: {
    LLVMValueRef recs = tape(c);
    ZyMpiLoop l;
    zy_mpi_loop_open(c, &l, zy_lookup(c->g, zy_mpi_arg(c, 'k', 0)));
    call_unwait(
        c, LLVMBuildLoad2(c->b, c->ptr,
                          LLVMBuildGEP2(c->b, c->ptr, recs, &l.i, 1, ""), ""));
    zy_mpi_loop_close(c, &l);
    zy_call_free(c->b, "free", recs);
    return 0;
  }
  }
}
