/* mpi_adjoint.c - the forward and reverse code of the MPI calls in
 * mpi.def: what the forward sweep keeps (the actual source and tag of a
 * receive), and the adjoint communication of the reverse sweep, which
 * moves derivatives the opposite way of the data.  Temporaries are
 * zeroed (calloc), so that a peer of MPI_PROC_NULL adds nothing.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "mpi_call.h"

#include "ir/irutil.h"

/* --- Small emitters ----------------------------------------------------- */

static LLVMValueRef lk(ZyMpiCall *c, char letter, int nth) {
  return zy_lookup(c->g, zy_mpi_arg(c, letter, nth));
}

/* The shadow of primal buffer `p` in the reverse sweep, or NULL. */
static LLVMValueRef shadow_of(ZyMpiCall *c, LLVMValueRef p) {
  if (!p || !zy_activity_shadowed(c->g->act, p))
    return NULL;
  return zy_shadow_lookup(c->g, p);
}

unsigned zy_mpi_el_size(ZyMpiElem el) {
  return el == ZY_MPI_EL_FLOAT ? 4 : el == ZY_MPI_EL_DOUBLE_INT ? 16 : 8;
}

LLVMTypeRef zy_mpi_el_type(ZyMpiCall *c, ZyMpiElem el) {
  return el == ZY_MPI_EL_FLOAT || el == ZY_MPI_EL_FLOAT_INT
             ? LLVMFloatTypeInContext(c->ctx)
             : LLVMDoubleTypeInContext(c->ctx);
}

LLVMValueRef zy_mpi_i64(ZyMpiCall *c, LLVMValueRef n) {
  return LLVMTypeOf(n) == c->i64 ? n : LLVMBuildSExt(c->b, n, c->i64, "");
}

/* Bytes of `n` elements (`times` is an optional second factor). */
static LLVMValueRef bytes_of(ZyMpiCall *c, ZyMpiElem el, LLVMValueRef n,
                             LLVMValueRef times) {
  LLVMValueRef v = zy_mpi_i64(c, n);
  if (times)
    v = LLVMBuildMul(c->b, v, zy_mpi_i64(c, times), "");
  return LLVMBuildMul(c->b, v, LLVMConstInt(c->i64, zy_mpi_el_size(el), 0),
                      "mpi.bytes");
}

LLVMValueRef zy_mpi_zeroed(ZyMpiCall *c, LLVMValueRef bytes) {
  LLVMTypeRef p2[2] = {c->i64, c->i64};
  LLVMTypeRef fty = LLVMFunctionType(c->ptr, p2, 2, 0);
  LLVMValueRef args[2] = {bytes, LLVMConstInt(c->i64, 1, 0)};
  return LLVMBuildCall2(c->b, fty, zy_runtime_fn(c->mod, "calloc", fty), args,
                        2, "mpi.tmp");
}

static void release(ZyMpiCall *c, LLVMValueRef p) {
  zy_call_free(c->b, "free", p);
}

static void clear(ZyMpiCall *c, LLVMValueRef p, LLVMValueRef bytes) {
  LLVMBuildMemSet(c->b, p, LLVMConstInt(c->i8, 0, 0), bytes, 1);
}

static LLVMValueRef pick(ZyMpiCall *c, LLVMValueRef cond, LLVMValueRef a,
                         LLVMValueRef b) {
  return LLVMBuildSelect(c->b, cond, a, b, "");
}

void zy_mpi_loop_open(ZyMpiCall *c, ZyMpiLoop *l, LLVMValueRef n) {
  LLVMValueRef fn = zy_builder_function(c->b);
  l->from = LLVMGetInsertBlock(c->b);
  l->head = LLVMAppendBasicBlockInContext(c->ctx, fn, "mpi.loop");
  LLVMBasicBlockRef body =
      LLVMAppendBasicBlockInContext(c->ctx, fn, "mpi.loop.body");
  l->done = LLVMAppendBasicBlockInContext(c->ctx, fn, "mpi.loop.done");
  if (c->forward) {
    zy_vec_push(&c->g->fextra, l->head);
    zy_vec_push(&c->g->fextra, body);
    zy_vec_push(&c->g->fextra, l->done);
  }
  LLVMValueRef n64 = zy_mpi_i64(c, n);
  LLVMBuildBr(c->b, l->head);
  LLVMPositionBuilderAtEnd(c->b, l->head);
  l->i = LLVMBuildPhi(c->b, c->i64, "mpi.i");
  LLVMBuildCondBr(c->b, LLVMBuildICmp(c->b, LLVMIntSLT, l->i, n64, ""), body,
                  l->done);
  LLVMPositionBuilderAtEnd(c->b, body);
}

void zy_mpi_loop_close(ZyMpiCall *c, ZyMpiLoop *l) {
  LLVMValueRef next = LLVMBuildAdd(c->b, l->i, LLVMConstInt(c->i64, 1, 0), "");
  LLVMBasicBlockRef last = LLVMGetInsertBlock(c->b);
  LLVMBuildBr(c->b, l->head);
  LLVMValueRef zero = LLVMConstInt(c->i64, 0, 0);
  LLVMAddIncoming(l->i, &zero, &l->from, 1);
  LLVMAddIncoming(l->i, &next, &last, 1);
  LLVMPositionBuilderAtEnd(c->b, l->done);
}

/* shadow(primal)[i] += src[i] (times w[i] when `w` is given) for i < n
 * (elements of `el`), through zy_accumulate_shadow. */
void zy_mpi_add_weighted(ZyMpiCall *c, LLVMValueRef primal, LLVMValueRef shadow,
                         LLVMValueRef src, LLVMValueRef w, LLVMValueRef n,
                         ZyMpiElem el) {
  if (!shadow)
    return;
  LLVMTypeRef ft = zy_mpi_el_type(c, el);
  ZyMpiLoop l;
  zy_mpi_loop_open(c, &l, n);
  LLVMValueRef v =
      LLVMBuildLoad2(c->b, ft, LLVMBuildGEP2(c->b, ft, src, &l.i, 1, ""), "");
  if (w)
    v = LLVMBuildFMul(
        c->b, v,
        LLVMBuildLoad2(c->b, ft, LLVMBuildGEP2(c->b, ft, w, &l.i, 1, ""), ""),
        "");
  zy_accumulate_shadow(c->g, primal,
                       LLVMBuildGEP2(c->b, ft, shadow, &l.i, 1, ""), v);
  zy_mpi_loop_close(c, &l);
}

void zy_mpi_add_into(ZyMpiCall *c, LLVMValueRef primal, LLVMValueRef shadow,
                     LLVMValueRef src, LLVMValueRef n, ZyMpiElem el) {
  zy_mpi_add_weighted(c, primal, shadow, src, NULL, n, el);
}

/* The shadow of buffer `p` for the adjoint to read or write: its own, or
 * (no shadow) a zeroed temporary that *own says to free. */
static LLVMValueRef shadow_or_zeros(ZyMpiCall *c, LLVMValueRef p,
                                    LLVMValueRef bytes, LLVMValueRef *own) {
  LLVMValueRef s = shadow_of(c, p);
  *own = s ? NULL : zy_mpi_zeroed(c, bytes);
  return s ? s : *own;
}

/* After the adjoint has read shadow `s` (of `bytes`): zeroed, since the
 * call overwrote the primal, or freed when it was a temporary. */
static void done_with(ZyMpiCall *c, LLVMValueRef s, LLVMValueRef own,
                      LLVMValueRef bytes) {
  if (own)
    release(c, own);
  else
    clear(c, s, bytes);
}

/* `bytes`, or 0 when `src` is MPI_PROC_NULL: a receive from it leaves
 * the buffer (and so its adjoint) as it was. */
static LLVMValueRef unless_proc_null(ZyMpiCall *c, LLVMValueRef src,
                                     LLVMValueRef bytes) {
  LLVMValueRef null = zy_mpi_proc_null(c);
  return pick(c, LLVMBuildICmp(c->b, LLVMIntEQ, src, null, "mpi.procnull"),
              LLVMConstInt(c->i64, 0, 0), bytes);
}

static ZyMpiElem elem(ZyMpiCall *c, int nth) {
  return zy_mpi_elem(zy_mpi_arg(c, 't', nth));
}

static LLVMValueRef sum_op(ZyMpiCall *c) {
  return zy_mpi_handle(c, "ompi_mpi_op_sum", 0x58000003);
}

/* --- Receives: the actual source and tag ------------------------------- */

/* Forward: after the copy of a receive, its actual source and tag (from
 * the status, which replaces MPI_STATUS_IGNORE, where the call took
 * MPI_ANY_SOURCE or MPI_ANY_TAG), kept for the reverse sweep as the
 * call's tape {i32 source, i32 tag}. */
static int forward_receive(ZyMpiCall *c) {
  ZyGen *g = c->g;
  LLVMValueRef fc = zy_map_get(&g->vmap, c->call);
  int k = zy_mpi_index(c->row, 's', 0);
  LLVMValueRef st = LLVMGetOperand(fc, (unsigned)k);
  if (LLVMIsAConstant(st)) {
    st = zy_new_slot(g, LLVMArrayType(c->i8, ZY_MPI_STATUS_BYTES), "mpi.status",
                     0);
    LLVMSetOperand(fc, (unsigned)k, st);
  }
  /* The posted source and tag: the last peer and tag arguments. */
  int np = zy_mpi_index(c->row, 'p', 1) < 0 ? 0 : 1;
  LLVMValueRef src = zy_map_get(&g->vmap, zy_mpi_arg(c, 'p', np));
  LLVMValueRef tag = zy_map_get(&g->vmap, zy_mpi_arg(c, 'g', np));
  src = src ? src : zy_mpi_arg(c, 'p', np);
  tag = tag ? tag : zy_mpi_arg(c, 'g', np);
  zy_mpi_actual_source(c, st, &src, &tag);
  LLVMTypeRef pair[2] = {c->i32, c->i32};
  LLVMValueRef t = LLVMGetUndef(LLVMStructTypeInContext(c->ctx, pair, 2, 0));
  t = LLVMBuildInsertValue(c->b, t, src, 0, "");
  t = LLVMBuildInsertValue(c->b, t, tag, 1, "mpi.from");
  zy_map_put(&g->tapes, c->call, t);
  return 0;
}

/* Reverse: the source and tag kept by forward_receive. */
static void actual_source(ZyMpiCall *c, LLVMValueRef *src, LLVMValueRef *tag) {
  LLVMValueRef t = zy_reload(c->g, zy_map_get(&c->g->tapes, c->call),
                             LLVMGetInstructionParent(c->call));
  *src = LLVMBuildExtractValue(c->b, t, 0, "mpi.src");
  *tag = LLVMBuildExtractValue(c->b, t, 1, "mpi.tag");
}

/* --- Point to point ----------------------------------------------------- */

static int rev_send(ZyMpiCall *c) {
  ZyMpiElem el = elem(c, 0);
  LLVMValueRef n = lk(c, 'n', 0), by = bytes_of(c, el, n, NULL);
  LLVMValueRef tmp = zy_mpi_zeroed(c, by);
  LLVMValueRef a[7] = {tmp,
                       n,
                       lk(c, 't', 0),
                       lk(c, 'p', 0),
                       lk(c, 'g', 0),
                       zy_mpi_comm(c),
                       zy_mpi_status_ignore(c)};
  zy_mpi_emit(c, "Recv", "pihiihp", a);
  LLVMValueRef buf = zy_mpi_buffer(c, 0);
  zy_mpi_add_into(c, buf, shadow_of(c, buf), tmp, n, el);
  release(c, tmp);
  return 0;
}

static int rev_recv(ZyMpiCall *c) {
  ZyMpiElem el = elem(c, 0);
  LLVMValueRef n = lk(c, 'n', 0), by = bytes_of(c, el, n, NULL), own, src, tag;
  LLVMValueRef s = shadow_or_zeros(c, zy_mpi_buffer(c, 0), by, &own);
  actual_source(c, &src, &tag);
  LLVMValueRef a[6] = {s, n, lk(c, 't', 0), src, tag, zy_mpi_comm(c)};
  zy_mpi_emit(c, "Send", "pihiih", a);
  done_with(c, s, own, unless_proc_null(c, src, by));
  return 0;
}

/* Sendrecv: the receive shadow goes back to the source while the send
 * buffer's adjoint comes from dest.  A side of integers moves 0
 * elements (its peer does the same). */
static int rev_sendrecv(ZyMpiCall *c) {
  ZyMpiElem es = elem(c, 0), er = elem(c, 1);
  LLVMValueRef zero = LLVMConstInt(c->i32, 0, 0), src, tag, own = NULL;
  LLVMValueRef sn = es ? lk(c, 'n', 0) : zero, rn = er ? lk(c, 'n', 1) : zero;
  LLVMValueRef sby = bytes_of(c, es, sn, NULL), rby = bytes_of(c, er, rn, NULL);
  LLVMValueRef rs = er ? shadow_or_zeros(c, zy_mpi_buffer(c, 1), rby, &own)
                       : LLVMConstNull(c->ptr);
  LLVMValueRef tmp = zy_mpi_zeroed(c, sby);
  actual_source(c, &src, &tag);
  LLVMValueRef a[12] = {rs,
                        rn,
                        lk(c, 't', 1),
                        src,
                        tag,
                        tmp,
                        sn,
                        lk(c, 't', 0),
                        lk(c, 'p', 0),
                        lk(c, 'g', 0),
                        zy_mpi_comm(c),
                        zy_mpi_status_ignore(c)};
  zy_mpi_emit(c, "Sendrecv", "pihiipihiihp", a);
  if (er)
    done_with(c, rs, own, unless_proc_null(c, src, rby));
  LLVMValueRef sbuf = zy_mpi_buffer(c, 0);
  if (es)
    zy_mpi_add_into(c, sbuf, shadow_of(c, sbuf), tmp, sn, es);
  release(c, tmp);
  return 0;
}

/* Sendrecv_replace: the shadow goes to the source, and the adjoint from
 * dest replaces it (is added to it when the source was MPI_PROC_NULL and
 * the buffer kept its value). */
static int rev_sendrecv_replace(ZyMpiCall *c) {
  ZyMpiElem el = elem(c, 0);
  LLVMValueRef n = lk(c, 'n', 0), by = bytes_of(c, el, n, NULL), own, src, tag;
  LLVMValueRef buf = zy_mpi_buffer(c, 0);
  LLVMValueRef s = shadow_or_zeros(c, buf, by, &own);
  LLVMValueRef tmp = zy_mpi_zeroed(c, by);
  actual_source(c, &src, &tag);
  LLVMValueRef dt = lk(c, 't', 0);
  LLVMValueRef a[12] = {s,
                        n,
                        dt,
                        src,
                        tag,
                        tmp,
                        n,
                        dt,
                        lk(c, 'p', 0),
                        lk(c, 'g', 0),
                        zy_mpi_comm(c),
                        zy_mpi_status_ignore(c)};
  zy_mpi_emit(c, "Sendrecv", "pihiipihiihp", a);
  done_with(c, s, own, unless_proc_null(c, src, by));
  zy_mpi_add_into(c, buf, own ? NULL : s, tmp, n, el);
  release(c, tmp);
  return 0;
}

/* --- Collectives -------------------------------------------------------- */

static int rev_barrier(ZyMpiCall *c) {
  LLVMValueRef comm = zy_mpi_comm(c);
  zy_mpi_emit(c, "Barrier", "h", &comm);
  return 0;
}

static LLVMValueRef is_root(ZyMpiCall *c) {
  return LLVMBuildICmp(c->b, LLVMIntEQ, zy_mpi_rank(c, lk(c, 'c', 0)),
                       lk(c, 'R', 0), "mpi.isroot");
}

/* Bcast: the root's adjoint is the sum of every rank's shadow. */
static int rev_bcast(ZyMpiCall *c) {
  ZyMpiElem el = elem(c, 0);
  LLVMValueRef n = lk(c, 'n', 0), by = bytes_of(c, el, n, NULL), own;
  LLVMValueRef s = shadow_or_zeros(c, zy_mpi_buffer(c, 0), by, &own);
  LLVMValueRef tmp = zy_mpi_zeroed(c, by), root = is_root(c);
  LLVMValueRef zero = LLVMConstInt(c->i64, 0, 0);
  LLVMValueRef a[7] = {
      s, tmp, n, lk(c, 't', 0), sum_op(c), lk(c, 'R', 0), zy_mpi_comm(c)};
  zy_mpi_emit(c, "Reduce", "ppihhih", a);
  LLVMBuildMemCpy(c->b, s, 1, tmp, 1, pick(c, root, by, zero));
  clear(c, s, pick(c, root, zero, by));
  release(c, tmp);
  if (own)
    release(c, own);
  return 0;
}

/* Where the input's adjoint goes: the send buffer, or the receive buffer
 * with MPI_IN_PLACE. */
static LLVMValueRef reduce_input(ZyMpiCall *c) {
  LLVMValueRef s = zy_mpi_buffer(c, 0);
  return zy_mpi_in_place(c, s) ? zy_mpi_buffer(c, 1) : s;
}

/* MAX, MIN, PROD: the weights the forward sweep computed (the input's
 * derivative of the result, per element), else NULL. */
static LLVMValueRef reduce_weights(ZyMpiCall *c) {
  if (zy_mpi_op(zy_mpi_arg(c, 'o', 0)) == ZY_MPI_SUM)
    return NULL;
  return zy_reload(c->g, zy_map_get(&c->g->tapes, c->call),
                   LLVMGetInstructionParent(c->call));
}

static void add_reduced(ZyMpiCall *c, LLVMValueRef tmp, LLVMValueRef n,
                        ZyMpiElem el) {
  LLVMValueRef in = reduce_input(c), w = reduce_weights(c);
  zy_mpi_add_weighted(c, in, shadow_of(c, in), tmp, w, n, el);
  if (w)
    release(c, w);
}

static int is_pair(ZyMpiElem el) {
  return el == ZY_MPI_EL_DOUBLE_INT || el == ZY_MPI_EL_FLOAT_INT;
}

static int rev_reduce(ZyMpiCall *c) {
  ZyMpiElem el = elem(c, 0);
  if (is_pair(el))
    return zy_mpi_reverse_loc(c);
  LLVMValueRef n = lk(c, 'n', 0), by = bytes_of(c, el, n, NULL);
  LLVMValueRef tmp = zy_mpi_zeroed(c, by), root = is_root(c);
  LLVMValueRef rby = pick(c, root, by, LLVMConstInt(c->i64, 0, 0));
  LLVMValueRef rs = shadow_of(c, zy_mpi_buffer(c, 1));
  if (rs) {
    LLVMBuildMemCpy(c->b, tmp, 1, rs, 1, rby);
    clear(c, rs, rby);
  }
  LLVMValueRef a[5] = {tmp, n, lk(c, 't', 0), lk(c, 'R', 0), zy_mpi_comm(c)};
  zy_mpi_emit(c, "Bcast", "pihih", a);
  add_reduced(c, tmp, n, el);
  release(c, tmp);
  return 0;
}

static int rev_allreduce(ZyMpiCall *c) {
  ZyMpiElem el = elem(c, 0);
  if (is_pair(el))
    return zy_mpi_reverse_loc(c);
  LLVMValueRef n = lk(c, 'n', 0), by = bytes_of(c, el, n, NULL), own;
  LLVMValueRef rs = shadow_or_zeros(c, zy_mpi_buffer(c, 1), by, &own);
  LLVMValueRef tmp = zy_mpi_zeroed(c, by);
  LLVMValueRef a[6] = {rs, tmp, n, lk(c, 't', 0), sum_op(c), zy_mpi_comm(c)};
  zy_mpi_emit(c, "Allreduce", "ppihhh", a);
  done_with(c, rs, own, by);
  add_reduced(c, tmp, n, el);
  release(c, tmp);
  return 0;
}

/* Gather: the root scatters its receive shadow back. */
static int rev_gather(ZyMpiCall *c) {
  ZyMpiElem el = elem(c, 0);
  LLVMValueRef comm = zy_mpi_comm(c), root = is_root(c), own;
  LLVMValueRef sn = lk(c, 'n', 0), sby = bytes_of(c, el, sn, NULL);
  LLVMValueRef rby =
      pick(c, root, bytes_of(c, el, lk(c, 'n', 1), zy_mpi_size(c, comm)),
           LLVMConstInt(c->i64, 0, 0));
  LLVMValueRef rs = shadow_or_zeros(c, zy_mpi_buffer(c, 1), rby, &own);
  LLVMValueRef tmp = zy_mpi_zeroed(c, sby);
  LLVMValueRef a[8] = {rs, lk(c, 'n', 1), lk(c, 't', 1), tmp,
                       sn, lk(c, 't', 0), lk(c, 'R', 0), comm};
  zy_mpi_emit(c, "Scatter", "pihpihih", a);
  done_with(c, rs, own, rby);
  LLVMValueRef sbuf = zy_mpi_buffer(c, 0);
  zy_mpi_add_into(c, sbuf, shadow_of(c, sbuf), tmp, sn, el);
  release(c, tmp);
  return 0;
}

/* Scatter: the receive shadows are gathered and added at the root. */
static int rev_scatter(ZyMpiCall *c) {
  ZyMpiElem el = elem(c, 0);
  LLVMValueRef comm = zy_mpi_comm(c), root = is_root(c), own;
  LLVMValueRef rn = lk(c, 'n', 1), rby = bytes_of(c, el, rn, NULL);
  LLVMValueRef all = pick(c, root,
                          LLVMBuildMul(c->b, zy_mpi_i64(c, lk(c, 'n', 0)),
                                       zy_mpi_i64(c, zy_mpi_size(c, comm)), ""),
                          LLVMConstInt(c->i64, 0, 0));
  LLVMValueRef rs = shadow_or_zeros(c, zy_mpi_buffer(c, 1), rby, &own);
  LLVMValueRef tmp = zy_mpi_zeroed(c, bytes_of(c, el, all, NULL));
  LLVMValueRef a[8] = {
      rs,  rn, lk(c, 't', 1), tmp, lk(c, 'n', 0), lk(c, 't', 0), lk(c, 'R', 0),
      comm};
  zy_mpi_emit(c, "Gather", "pihpihih", a);
  done_with(c, rs, own, rby);
  LLVMValueRef sbuf = zy_mpi_buffer(c, 0);
  zy_mpi_add_into(c, sbuf, shadow_of(c, sbuf), tmp, all, el);
  release(c, tmp);
  return 0;
}

/* Allgather: each rank's block of every receive shadow, summed back to
 * the rank that sent it (Reduce_scatter_block); Alltoall: transposed. */
static int rev_allgather_alltoall(ZyMpiCall *c, int all) {
  ZyMpiElem el = elem(c, 0);
  LLVMValueRef comm = zy_mpi_comm(c), own, size = zy_mpi_size(c, comm);
  LLVMValueRef sn = lk(c, 'n', 0), rn = lk(c, 'n', 1);
  LLVMValueRef stotal =
      all ? LLVMBuildMul(c->b, zy_mpi_i64(c, sn), zy_mpi_i64(c, size), "")
          : zy_mpi_i64(c, sn);
  LLVMValueRef rby = bytes_of(c, el, rn, size);
  LLVMValueRef rs = shadow_or_zeros(c, zy_mpi_buffer(c, 1), rby, &own);
  LLVMValueRef tmp = zy_mpi_zeroed(c, bytes_of(c, el, stotal, NULL));
  if (all) {
    LLVMValueRef a[7] = {rs, rn, lk(c, 't', 1), tmp, sn, lk(c, 't', 0), comm};
    zy_mpi_emit(c, "Alltoall", "pihpihh", a);
  } else {
    LLVMValueRef a[6] = {rs, tmp, rn, lk(c, 't', 1), sum_op(c), comm};
    zy_mpi_emit(c, "Reduce_scatter_block", "ppihhh", a);
  }
  done_with(c, rs, own, rby);
  LLVMValueRef sbuf = zy_mpi_buffer(c, 0);
  zy_mpi_add_into(c, sbuf, shadow_of(c, sbuf), tmp, stotal, el);
  release(c, tmp);
  return 0;
}

/* --- MPI_IN_PLACE in Gather (root), Scatter (root), Allgather ----------- */

static void zero_except_block(ZyMpiCall *c, LLVMValueRef s, LLVMValueRef rank,
                              LLVMValueRef size, LLVMValueRef block) {
  LLVMValueRef r = zy_mpi_i64(c, rank), one = LLVMConstInt(c->i64, 1, 0);
  LLVMValueRef before = LLVMBuildMul(c->b, r, block, "");
  LLVMValueRef after = LLVMBuildMul(
      c->b,
      LLVMBuildSub(c->b, LLVMBuildSub(c->b, zy_mpi_i64(c, size), r, ""), one,
                   ""),
      block, "");
  LLVMValueRef at = LLVMBuildAdd(c->b, before, block, "");
  clear(c, s, before);
  clear(c, LLVMBuildGEP2(c->b, c->i8, s, &at, 1, ""), after);
}

/* The root's own block stays where it was (its adjoint too); the others'
 * blocks go back to them, and their shadows are zeroed. */
static int rev_gather_in_place(ZyMpiCall *c) {
  ZyMpiElem el = elem(c, 1);
  LLVMValueRef comm = zy_mpi_comm(c), own, size = zy_mpi_size(c, comm);
  LLVMValueRef rn = lk(c, 'n', 1), block = bytes_of(c, el, rn, NULL);
  LLVMValueRef rby = bytes_of(c, el, rn, size);
  LLVMValueRef rs = shadow_or_zeros(c, zy_mpi_buffer(c, 1), rby, &own);
  LLVMValueRef a[8] = {rs,
                       rn,
                       lk(c, 't', 1),
                       zy_mpi_in_place_value(c),
                       rn,
                       lk(c, 't', 1),
                       lk(c, 'R', 0),
                       comm};
  zy_mpi_emit(c, "Scatter", "pihpihih", a);
  if (own)
    release(c, own);
  else
    zero_except_block(c, rs, zy_mpi_rank(c, comm), size, block);
  return 0;
}

/* The root keeps its own block: the others' adjoints are gathered (the
 * root's block of the temporary stays zero) and added. */
static int rev_scatter_in_place(ZyMpiCall *c) {
  ZyMpiElem el = elem(c, 0);
  LLVMValueRef comm = zy_mpi_comm(c), sn = lk(c, 'n', 0);
  LLVMValueRef all = LLVMBuildMul(c->b, zy_mpi_i64(c, sn),
                                  zy_mpi_i64(c, zy_mpi_size(c, comm)), "");
  LLVMValueRef tmp = zy_mpi_zeroed(c, bytes_of(c, el, all, NULL));
  LLVMValueRef a[8] = {zy_mpi_in_place_value(c),
                       sn,
                       lk(c, 't', 0),
                       tmp,
                       sn,
                       lk(c, 't', 0),
                       lk(c, 'R', 0),
                       comm};
  zy_mpi_emit(c, "Gather", "pihpihih", a);
  LLVMValueRef sbuf = zy_mpi_buffer(c, 0);
  zy_mpi_add_into(c, sbuf, shadow_of(c, sbuf), tmp, all, el);
  release(c, tmp);
  return 0;
}

/* Each rank's block of the receive buffer was its input. */
static int rev_allgather_in_place(ZyMpiCall *c) {
  ZyMpiElem el = elem(c, 1);
  LLVMValueRef comm = zy_mpi_comm(c), size = zy_mpi_size(c, comm);
  LLVMValueRef rn = lk(c, 'n', 1), rby = bytes_of(c, el, rn, size), own;
  LLVMValueRef rbuf = zy_mpi_buffer(c, 1);
  LLVMValueRef rs = shadow_or_zeros(c, rbuf, rby, &own);
  LLVMValueRef tmp = zy_mpi_zeroed(c, bytes_of(c, el, rn, NULL));
  LLVMValueRef a[6] = {rs, tmp, rn, lk(c, 't', 1), sum_op(c), comm};
  zy_mpi_emit(c, "Reduce_scatter_block", "ppihhh", a);
  done_with(c, rs, own, rby);
  if (!own) {
    LLVMValueRef at = LLVMBuildMul(c->b, zy_mpi_i64(c, zy_mpi_rank(c, comm)),
                                   zy_mpi_i64(c, rn), "");
    LLVMTypeRef ft = zy_mpi_el_type(c, el);
    zy_mpi_add_into(c, rbuf, LLVMBuildGEP2(c->b, ft, rs, &at, 1, ""), tmp, rn,
                    el);
  }
  release(c, tmp);
  return 0;
}

/* --- Entry points ------------------------------------------------------- */

/* Whether the call moves data with derivatives: a buffer of MPI_DOUBLE
 * or MPI_FLOAT (integer messages need nothing in the reverse sweep). */
static int moves_floats(ZyMpiCall *c) {
  for (int k = 0; zy_mpi_arg(c, 't', k); k++)
    if (!zy_mpi_type_ignored(c, k) && elem(c, k) != ZY_MPI_EL_NONE)
      return 1;
  return 0;
}

static int in_place(ZyMpiCall *c, int nth) {
  return zy_mpi_in_place(c, zy_mpi_buffer(c, nth));
}

int zy_mpi_forward(ZyGen *g, LLVMValueRef call, int after) {
  ZyMpiCall c;
  zy_mpi_init(&c, g, call);
  c.forward = 1;
  if (!after) {
    /* Made here, before the first call on the communicator, so that every
     * rank that calls MPI on it takes part in the duplication. */
    zy_mpi_comm(&c);
    return moves_floats(&c) ? zy_mpi_check_intra(&c) : 0;
  }
  /* A Wait does not know the datatype: it finds out from its record. */
  if (c.row->kind >= ZY_MPI_WAIT && c.row->kind <= ZY_MPI_REQUEST_FREE)
    return zy_mpi_forward_request(&c);
  if (!moves_floats(&c))
    return 0;
  switch (c.row->kind) {
  case ZY_MPI_ISEND:
  case ZY_MPI_IRECV:
  case ZY_MPI_SEND_INIT:
  case ZY_MPI_RECV_INIT:
    return zy_mpi_forward_request(&c);
  case ZY_MPI_GATHERV:
  case ZY_MPI_SCATTERV:
  case ZY_MPI_ALLGATHERV:
  case ZY_MPI_ALLTOALLV:
    return zy_mpi_forward_vector(&c);
  case ZY_MPI_IALLREDUCE:
  case ZY_MPI_IBCAST:
  case ZY_MPI_IREDUCE:
    return zy_mpi_forward_collective(&c);
  case ZY_MPI_REDUCE:
  case ZY_MPI_ALLREDUCE:
    return zy_mpi_op(zy_mpi_arg(&c, 'o', 0)) == ZY_MPI_SUM
               ? 0
               : zy_mpi_forward_reduce(&c);
  case ZY_MPI_RECV:
  case ZY_MPI_SENDRECV:
  case ZY_MPI_SENDRECV_REPLACE:
    return forward_receive(&c);
  default:
    return 0;
  }
}

int zy_mpi_reverse(ZyGen *g, LLVMValueRef call, LLVMValueRef d) {
  ZyMpiCall c;
  zy_mpi_init(&c, g, call);
  if (c.row->kind == ZY_MPI_BARRIER)
    return rev_barrier(&c);
  if (c.row->kind >= ZY_MPI_WAIT && c.row->kind <= ZY_MPI_REQUEST_FREE)
    return zy_mpi_reverse_request(&c);
  if (!moves_floats(&c))
    return 0;
  switch (c.row->kind) {
  case ZY_MPI_ISEND:
  case ZY_MPI_IRECV:
  case ZY_MPI_SEND_INIT:
  case ZY_MPI_RECV_INIT:
    return zy_mpi_reverse_request(&c);
  case ZY_MPI_SEND:
    return rev_send(&c);
  case ZY_MPI_RECV:
    return rev_recv(&c);
  case ZY_MPI_SENDRECV:
    return rev_sendrecv(&c);
  case ZY_MPI_SENDRECV_REPLACE:
    return rev_sendrecv_replace(&c);
  case ZY_MPI_BCAST:
    return rev_bcast(&c);
  case ZY_MPI_REDUCE:
    return rev_reduce(&c);
  case ZY_MPI_ALLREDUCE:
    return rev_allreduce(&c);
  case ZY_MPI_GATHER:
    return in_place(&c, 0) ? rev_gather_in_place(&c) : rev_gather(&c);
  case ZY_MPI_SCATTER:
    return in_place(&c, 1) ? rev_scatter_in_place(&c) : rev_scatter(&c);
  case ZY_MPI_ALLGATHER:
    return in_place(&c, 0) ? rev_allgather_in_place(&c)
                           : rev_allgather_alltoall(&c, 0);
  case ZY_MPI_ALLTOALL:
    return rev_allgather_alltoall(&c, 1);
  case ZY_MPI_GATHERV:
  case ZY_MPI_SCATTERV:
  case ZY_MPI_ALLGATHERV:
  case ZY_MPI_ALLTOALLV:
    return zy_mpi_reverse_vector(&c);
  case ZY_MPI_SCAN:
  case ZY_MPI_EXSCAN:
    return zy_mpi_reverse_scan(&c);
  case ZY_MPI_IALLREDUCE:
  case ZY_MPI_IBCAST:
  case ZY_MPI_IREDUCE:
    return zy_mpi_reverse_collective(&c);
  case ZY_MPI_REDUCE_SCATTER_BLOCK:
    return zy_mpi_reverse_reduce_scatter(&c);
  default:
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                        "the MPI call '%s' is not differentiated yet",
                        LLVMGetValueName(LLVMGetCalledValue(call)));
  }
}
