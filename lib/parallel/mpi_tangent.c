/* mpi_tangent.c - MPI calls in forward mode (__enzyme_fwddiff): the
 * tangent of a message is the message of the tangents.  After the copy of
 * a call, the same communication runs on the tangent buffers (the
 * shadows; a zeroed temporary where a buffer has none, so that every
 * message of floating-point data has its tangent message on both sides)
 * over Zymase's duplicate of the communicator (zy_mpi_comm), so that no
 * tangent message can match a message of the program.  A receive takes
 * the tangent from the source and tag its primal receive matched (the
 * status); reductions with MAX, MIN and PROD reduce the tangents times
 * the weights the reverse mode computes (mpi_reduce.c).  Nonblocking
 * calls keep a record per request in a table of their own
 * ("__zymase_mpi.fwd"), which the Wait completes.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "mpi_record.h"

#include "ir/irutil.h"

#include <llvm-c/DebugInfo.h>

#include <stdio.h>
#include <string.h>

static const char *const TABLE = "__zymase_mpi.fwd";

static LLVMValueRef fwd(ZyMpiCall *c, LLVMValueRef v) {
  LLVMValueRef m = v ? zy_map_get(&c->g->vmap, v) : NULL;
  return m ? m : v;
}

/* The `nth` argument with `letter`, as the tangent function has it. */
static LLVMValueRef arg(ZyMpiCall *c, char letter, int nth) {
  return fwd(c, zy_mpi_arg(c, letter, nth));
}

static ZyMpiElem elem(ZyMpiCall *c, int nth) {
  LLVMValueRef t = zy_mpi_arg(c, 't', nth);
  return zy_mpi_elem(t ? t : zy_mpi_arg(c, 't', 0));
}

static LLVMValueRef count(ZyMpiCall *c, int nth) {
  LLVMValueRef n = arg(c, 'n', nth);
  return n ? n : arg(c, 'n', 0);
}

static LLVMValueRef type_of(ZyMpiCall *c, int nth) {
  LLVMValueRef t = arg(c, 't', nth);
  return t ? t : arg(c, 't', 0);
}

/* Whether buffer `nth` of a call of kind `k` holds a block per rank. */
static int per_rank(ZyMpiKind k, int nth) {
  switch (k) {
  case ZY_MPI_GATHER:
  case ZY_MPI_ALLGATHER:
    return nth == 1;
  case ZY_MPI_SCATTER:
  case ZY_MPI_REDUCE_SCATTER_BLOCK:
    return nth == 0;
  case ZY_MPI_ALLTOALL:
    return 1;
  default:
    return 0;
  }
}

/* The elements of buffer `nth` when its side has a count and a
 * displacement per rank (Gatherv, ...): the largest displs[q] +
 * counts[q] (none where the arrays are NULL, a non-root's ignored
 * arguments); else NULL. */
static LLVMValueRef extent(ZyMpiCall *c, int nth) {
  const char *a = c->row->args;
  int k = -1;
  for (int j = 0, m = 0; a[j] && k < 0; j++)
    if (strchr("brB", a[j]) && m++ == nth)
      k = j;
  LLVMValueRef counts = NULL, displs = NULL;
  for (int j = k + 1; k >= 0 && a[j] && !strchr("brB", a[j]); j++) {
    if (a[j] == 'N')
      counts = fwd(c, LLVMGetOperand(c->call, (unsigned)j));
    if (a[j] == 'D')
      displs = fwd(c, LLVMGetOperand(c->call, (unsigned)j));
  }
  if (!counts || !displs)
    return NULL;
  LLVMValueRef none = LLVMBuildOr(c->b, LLVMBuildIsNull(c->b, counts, ""),
                                  LLVMBuildIsNull(c->b, displs, ""), "");
  LLVMValueRef n = LLVMBuildSelect(c->b, none, LLVMConstInt(c->i32, 0, 0),
                                   zy_mpi_size(c, arg(c, 'c', 0)), "");
  return zy_mpi_v_extent(c, counts, displs, n);
}

/* The tangent of buffer `nth`: its shadow, or a zeroed temporary (*own,
 * to free after; else NULL) of as many elements as the buffer. */
static LLVMValueRef tangent_buffer(ZyMpiCall *c, int nth, LLVMValueRef *own) {
  LLVMValueRef p = zy_mpi_buffer(c, nth);
  *own = NULL;
  if (zy_activity_shadowed(c->g->act, p))
    return zy_shadow_forward_of(c->g, p);
  LLVMValueRef n = extent(c, nth);
  if (!n)
    n = zy_mpi_i64(c, count(c, nth));
  if (per_rank(c->row->kind, nth))
    n = LLVMBuildMul(c->b, n, zy_mpi_i64(c, zy_mpi_size(c, arg(c, 'c', 0))),
                     "");
  LLVMValueRef by = LLVMBuildMul(
      c->b, n, LLVMConstInt(c->i64, zy_mpi_el_size(elem(c, nth)), 0), "");
  return *own = zy_mpi_zeroed(c, by);
}

static void release(ZyMpiCall *c, LLVMValueRef own) {
  if (own)
    zy_call_free(c->b, "free", own);
}

/* The status operand of the copy of the call (MPI_STATUS_IGNORE is
 * replaced by a slot of our own, as the reverse mode does). */
static LLVMValueRef status_of(ZyMpiCall *c) {
  LLVMValueRef fc = zy_map_get(&c->g->vmap, c->call);
  unsigned k = (unsigned)zy_mpi_index(c->row, 's', 0);
  LLVMValueRef st = LLVMGetOperand(fc, k);
  if (LLVMIsAConstant(st)) {
    st = zy_new_slot(c->g, LLVMArrayType(c->i8, ZY_MPI_STATUS_BYTES),
                     "mpi.status", 0);
    LLVMSetOperand(fc, k, st);
  }
  return st;
}

/* --- Point to point ----------------------------------------------------- */

/* Send, Ssend, Bsend, Rsend: a Send of the tangent (a standard send: the
 * tangent receive is posted only after the primal one completed). */
static int tan_send(ZyMpiCall *c) {
  LLVMValueRef own, a[6] = {tangent_buffer(c, 0, &own),
                            count(c, 0),
                            type_of(c, 0),
                            arg(c, 'p', 0),
                            arg(c, 'g', 0),
                            zy_mpi_comm(c)};
  zy_mpi_emit(c, "Send", "pihiih", a);
  release(c, own);
  return 0;
}

/* Recv: the tangent from the source and tag the primal receive matched. */
static int tan_recv(ZyMpiCall *c) {
  LLVMValueRef src = arg(c, 'p', 0), tag = arg(c, 'g', 0), own;
  zy_mpi_actual_source(c, status_of(c), &src, &tag);
  LLVMValueRef a[7] = {tangent_buffer(c, 0, &own),
                       count(c, 0),
                       type_of(c, 0),
                       src,
                       tag,
                       zy_mpi_comm(c),
                       zy_mpi_status_ignore(c)};
  zy_mpi_emit(c, "Recv", "pihiihp", a);
  release(c, own);
  return 0;
}

/* Sendrecv: both sides at once; a side of integers moves 0 elements (its
 * peer does the same). */
static int tan_sendrecv(ZyMpiCall *c) {
  LLVMValueRef zero = LLVMConstInt(c->i32, 0, 0), null = LLVMConstNull(c->ptr);
  LLVMValueRef src = arg(c, 'p', 1), tag = arg(c, 'g', 1), sown = NULL,
               rown = NULL;
  zy_mpi_actual_source(c, status_of(c), &src, &tag);
  int es = elem(c, 0) != ZY_MPI_EL_NONE, er = elem(c, 1) != ZY_MPI_EL_NONE;
  LLVMValueRef a[12] = {es ? tangent_buffer(c, 0, &sown) : null,
                        es ? count(c, 0) : zero,
                        type_of(c, 0),
                        arg(c, 'p', 0),
                        arg(c, 'g', 0),
                        er ? tangent_buffer(c, 1, &rown) : null,
                        er ? count(c, 1) : zero,
                        type_of(c, 1),
                        src,
                        tag,
                        zy_mpi_comm(c),
                        zy_mpi_status_ignore(c)};
  zy_mpi_emit(c, "Sendrecv", "pihiipihiihp", a);
  release(c, sown);
  release(c, rown);
  return 0;
}

static int tan_sendrecv_replace(ZyMpiCall *c) {
  LLVMValueRef src = arg(c, 'p', 1), tag = arg(c, 'g', 1), own;
  zy_mpi_actual_source(c, status_of(c), &src, &tag);
  LLVMValueRef a[9] = {tangent_buffer(c, 0, &own),
                       count(c, 0),
                       type_of(c, 0),
                       arg(c, 'p', 0),
                       arg(c, 'g', 0),
                       src,
                       tag,
                       zy_mpi_comm(c),
                       zy_mpi_status_ignore(c)};
  zy_mpi_emit(c, "Sendrecv_replace", "pihiiiihp", a);
  release(c, own);
  return 0;
}

/* --- Nonblocking point to point ---------------------------------------- */

/* The key of the request's record at `req`: its address, plus `off` (in
 * vector mode lane j's records are at the address + j << 48, never
 * another request's). */
static LLVMValueRef key_at(ZyMpiCall *c, LLVMValueRef req, LLVMValueRef off) {
  LLVMValueRef v = LLVMBuildPtrToInt(c->b, req, c->i64, "");
  return LLVMBuildIntToPtr(c->b, LLVMBuildAdd(c->b, v, off, ""), c->ptr,
                           "mpi.key");
}

static LLVMValueRef lane_offset(ZyMpiCall *c) {
  return LLVMConstInt(c->i64, (1ull << 48) * c->g->lane, 0);
}

static LLVMValueRef request_key(ZyMpiCall *c, LLVMValueRef req) {
  return c->g->lane ? key_at(c, req, lane_offset(c)) : req;
}

/* Isend (its variants), Irecv: the tangent posted on a request of the
 * record's own.  A receive from MPI_ANY_SOURCE or with MPI_ANY_TAG is
 * posted from MPI_PROC_NULL (it completes at once), and the tangent is
 * received by the Wait from the source and tag the primal matched. */
static int tan_post(ZyMpiCall *c, int recv) {
  LLVMValueRef own, buf = tangent_buffer(c, 0, &own);
  LLVMValueRef rec =
      zy_call_malloc(c->b, LLVMSizeOf(zy_mpi_rec_type(c)), "mpi.record");
  LLVMValueRef src = arg(c, 'p', 0), tag = arg(c, 'g', 0), dt = type_of(c, 0);
  LLVMValueRef comm = zy_mpi_comm(c), n = count(c, 0);
  zy_mpi_rec_set(c, rec, R_KIND,
                 LLVMConstInt(c->i32, recv ? K_RECV : K_SEND, 0));
  zy_mpi_rec_set(c, rec, R_SHADOW, buf);
  zy_mpi_rec_set(c, rec, R_COUNT, n);
  zy_mpi_rec_set(c, rec, R_TYPE, zy_mpi_rec_to_bits(c, dt));
  zy_mpi_rec_set(c, rec, R_PEER, src);
  zy_mpi_rec_set(c, rec, R_TAG, tag);
  zy_mpi_rec_set(c, rec, R_COMM, zy_mpi_rec_to_bits(c, comm));
  zy_mpi_rec_set(c, rec, R_TMP, own ? own : LLVMConstNull(c->ptr));
  if (recv) {
    LLVMValueRef wild = LLVMBuildOr(
        c->b, LLVMBuildICmp(c->b, LLVMIntEQ, src, zy_mpi_any_source(c), ""),
        LLVMBuildICmp(c->b, LLVMIntEQ, tag, zy_mpi_any_tag(c), ""), "mpi.wild");
    src = LLVMBuildSelect(c->b, wild, zy_mpi_proc_null(c), src, "");
  }
  LLVMValueRef a[7] = {
      buf, n, dt, src, tag, comm, zy_mpi_rec_field(c, rec, R_REQ)};
  zy_mpi_emit(c, recv ? "Irecv" : "Isend", "pihiihp", a);
  zy_mpi_table_put(c, TABLE, request_key(c, arg(c, 'q', 0)), rec);
  return 0;
}

/* Starts helper `name` (".pmpi" appended for the PMPI_ spelling) through
 * zy_mpi_helper_begin: c->b in its entry (the caller's in *saved); 0 when
 * it exists already (*fn). */
static int helper_begin(ZyMpiCall *c, const char *name, LLVMTypeRef fty,
                        LLVMValueRef *fn, LLVMBuilderRef *saved) {
  char full[64];
  snprintf(full, sizeof full, "%s%s", name, c->pmpi ? ".pmpi" : "");
  return zy_mpi_helper_begin(c, full, fty, fn, saved);
}

/* void complete(ptr key, ptr status): the request at `key` completed
 * with `status`: waits for its tangent's request, receives a deferred
 * tangent (a wildcard receive) from the status's source and tag, frees
 * the record.  Nothing for a request without a record. */
static LLVMValueRef complete_fn(ZyMpiCall *c) {
  LLVMTypeRef p[2] = {c->ptr, c->ptr};
  LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(c->ctx), p, 2, 0);
  LLVMValueRef fn;
  LLVMBuilderRef saved;
  if (!helper_begin(c, "__zymase_mpi.fwd.complete", fty, &fn, &saved))
    return fn;
  LLVMBasicBlockRef some = LLVMAppendBasicBlockInContext(c->ctx, fn, "record"),
                    none = LLVMAppendBasicBlockInContext(c->ctx, fn, "none");
  LLVMValueRef rec = zy_mpi_table_take(c, TABLE, LLVMGetParam(fn, 0));
  LLVMValueRef kind = zy_mpi_rec_get(c, rec, R_KIND);
  LLVMBuildCondBr(
      c->b,
      LLVMBuildICmp(c->b, LLVMIntEQ, kind, LLVMConstInt(c->i32, K_NONE, 0), ""),
      none, some);
  LLVMPositionBuilderAtEnd(c->b, none);
  LLVMBuildRetVoid(c->b);
  LLVMPositionBuilderAtEnd(c->b, some);
  LLVMValueRef w[2] = {zy_mpi_rec_field(c, rec, R_REQ),
                       zy_mpi_status_ignore(c)};
  zy_mpi_emit(c, "Wait", "pp", w);
  LLVMValueRef src = zy_mpi_rec_get(c, rec, R_PEER),
               tag = zy_mpi_rec_get(c, rec, R_TAG);
  LLVMValueRef deferred = LLVMBuildAnd(
      c->b,
      LLVMBuildICmp(c->b, LLVMIntEQ, kind, LLVMConstInt(c->i32, K_RECV, 0), ""),
      LLVMBuildOr(
          c->b, LLVMBuildICmp(c->b, LLVMIntEQ, src, zy_mpi_any_source(c), ""),
          LLVMBuildICmp(c->b, LLVMIntEQ, tag, zy_mpi_any_tag(c), ""), ""),
      "mpi.deferred");
  zy_mpi_actual_source(c, LLVMGetParam(fn, 1), &src, &tag);
  LLVMValueRef a[7] = {
      zy_mpi_rec_get(c, rec, R_SHADOW),
      zy_mpi_rec_get(c, rec, R_COUNT),
      zy_mpi_rec_from_bits(c, zy_mpi_rec_get(c, rec, R_TYPE)),
      LLVMBuildSelect(c->b, deferred, src, zy_mpi_proc_null(c), ""),
      tag,
      zy_mpi_rec_from_bits(c, zy_mpi_rec_get(c, rec, R_COMM)),
      zy_mpi_status_ignore(c)};
  zy_mpi_emit(c, "Recv", "pihiihp", a);
  zy_call_free(c->b, "free", zy_mpi_rec_get(c, rec, R_TMP));
  zy_call_free(c->b, "free", rec);
  LLVMBuildRetVoid(c->b);
  zy_mpi_helper_end(c, saved);
  return fn;
}

static unsigned status_size(ZyMpiCall *c) { return c->mpich ? 20 : 24; }

/* void completeall(i64 n, ptr requests, ptr statuses, i64 off):
 * complete() for each request (its key offset by `off`). */
static LLVMValueRef completeall_fn(ZyMpiCall *c) {
  LLVMTypeRef p[4] = {c->i64, c->ptr, c->ptr, c->i64};
  LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(c->ctx), p, 4, 0);
  LLVMValueRef fn, one = complete_fn(c);
  LLVMBuilderRef saved;
  if (!helper_begin(c, "__zymase_mpi.fwd.completeall", fty, &fn, &saved))
    return fn;
  ZyMpiLoop l;
  int forward = c->forward;
  c->forward = 0; /* the loop's blocks are the helper's */
  zy_mpi_loop_open(c, &l, LLVMGetParam(fn, 0));
  LLVMValueRef at =
      LLVMBuildMul(c->b, l.i, LLVMConstInt(c->i64, status_size(c), 0), "");
  LLVMValueRef a[2] = {
      key_at(c, LLVMBuildGEP2(c->b, c->h, LLVMGetParam(fn, 1), &l.i, 1, ""),
             LLVMGetParam(fn, 3)),
      LLVMBuildGEP2(c->b, c->i8, LLVMGetParam(fn, 2), &at, 1, "")};
  LLVMBuildCall2(c->b, LLVMGlobalGetValueType(one), one, a, 2, "");
  zy_mpi_loop_close(c, &l);
  c->forward = forward;
  LLVMBuildRetVoid(c->b);
  zy_mpi_helper_end(c, saved);
  return fn;
}

static int tan_wait(ZyMpiCall *c) {
  LLVMValueRef fn = complete_fn(c);
  LLVMValueRef a[2] = {request_key(c, arg(c, 'q', 0)), status_of(c)};
  LLVMBuildCall2(c->b, LLVMGlobalGetValueType(fn), fn, a, 2, "");
  return 0;
}

/* Waitall: MPI_STATUSES_IGNORE is replaced by a heap array of statuses
 * (made by the first lane before the copy, freed by the last after it). */
static int tan_waitall(ZyMpiCall *c) {
  LLVMValueRef fc = zy_map_get(&c->g->vmap, c->call);
  unsigned k = (unsigned)zy_mpi_index(c->row, 'S', 0);
  LLVMValueRef n = zy_mpi_i64(c, arg(c, 'k', 0)), reqs = arg(c, 'q', 0);
  LLVMValueRef sts = LLVMGetOperand(fc, k);
  if (LLVMIsAConstant(sts)) {
    LLVMBuilderRef b = LLVMCreateBuilderInContext(c->ctx);
    LLVMPositionBuilderBefore(b, fc);
    LLVMValueRef nb = LLVMBuildSExt(b, arg(c, 'k', 0), c->i64, "");
    sts = zy_call_malloc(
        b, LLVMBuildMul(b, nb, LLVMConstInt(c->i64, status_size(c), 0), ""),
        "mpi.statuses");
    LLVMDisposeBuilder(b);
    LLVMSetOperand(fc, k, sts);
    zy_map_put(&c->g->tapes, c->call, sts);
  }
  LLVMValueRef fn = completeall_fn(c);
  LLVMValueRef a[4] = {n, reqs, sts, lane_offset(c)};
  LLVMBuildCall2(c->b, LLVMGlobalGetValueType(fn), fn, a, 4, "");
  unsigned last = c->g->lanes ? c->g->width - 1 : 0;
  LLVMValueRef own = zy_map_get(&c->g->tapes, c->call);
  if (own && c->g->lane == last) {
    zy_call_free(c->b, "free", own);
    zy_map_put(&c->g->tapes, c->call, NULL);
  }
  return 0;
}

/* --- Collectives -------------------------------------------------------- */

/* Linear collectives (Bcast, Gather, Scatter, Allgather, Alltoall, their
 * v variants with counts and displacements per rank, and
 * Reduce, Allreduce, Scan, Exscan, Reduce_scatter_block with MPI_SUM):
 * the same call on the tangents (MPI_IN_PLACE stays) over the duplicate
 * communicator. */
static int tan_linear(ZyMpiCall *c) {
  LLVMValueRef fc = zy_map_get(&c->g->vmap, c->call);
  unsigned n = LLVMGetNumArgOperands(fc);
  LLVMValueRef ops[16], owns[4] = {0};
  int nth = 0;
  for (unsigned k = 0; k < n && k < 16; k++) {
    char l = c->row->args[k];
    ops[k] = LLVMGetOperand(fc, k);
    if (l == 'c')
      ops[k] = zy_mpi_comm(c);
    else if (strchr("brB", l) && nth < 4) {
      if (!zy_mpi_in_place(c, zy_mpi_buffer(c, nth)))
        ops[k] = tangent_buffer(c, nth, &owns[nth]);
      nth++;
    }
  }
  LLVMValueRef t = LLVMInstructionClone(fc);
  LLVMInsertIntoBuilderWithName(c->b, t, "");
  for (unsigned k = 0; k < n && k < 16; k++)
    LLVMSetOperand(t, k, ops[k]);
  for (int k = 0; k < 4; k++)
    release(c, owns[k]);
  return 0;
}

/* Reduce, Allreduce with MAX, MIN or PROD: d(result) = the sum over
 * ranks of w * dx, w the derivative of the result with respect to the
 * rank's input (1 on the rank that won an element, the lowest among
 * ties, for MAX and MIN; the product of the other ranks' inputs for PROD:
 * zy_mpi_forward_reduce), reduced with MPI_SUM. */
static int tan_reduce_op(ZyMpiCall *c) {
  ZyMpiElem el = elem(c, 0);
  LLVMTypeRef ft = zy_mpi_el_type(c, el);
  if (zy_mpi_forward_reduce(c))
    return -1;
  LLVMValueRef w = zy_map_get(&c->g->tapes, c->call);
  zy_map_put(&c->g->tapes, c->call, NULL);
  LLVMValueRef n = count(c, 0);
  LLVMValueRef by = LLVMBuildMul(
      c->b, zy_mpi_i64(c, n), LLVMConstInt(c->i64, zy_mpi_el_size(el), 0), "");
  LLVMValueRef tmp = zy_mpi_zeroed(c, by), own;
  LLVMValueRef in = zy_mpi_buffer(c, 0);
  if (zy_mpi_in_place(c, in))
    in = zy_mpi_buffer(c, 1);
  LLVMValueRef out = tangent_buffer(c, 1, &own);
  if (zy_activity_shadowed(c->g->act, in)) {
    LLVMValueRef dx = zy_shadow_forward_of(c->g, in);
    ZyMpiLoop l;
    zy_mpi_loop_open(c, &l, n);
    LLVMValueRef v = LLVMBuildFMul(
        c->b,
        LLVMBuildLoad2(c->b, ft, LLVMBuildGEP2(c->b, ft, w, &l.i, 1, ""), ""),
        LLVMBuildLoad2(c->b, ft, LLVMBuildGEP2(c->b, ft, dx, &l.i, 1, ""), ""),
        "");
    LLVMBuildStore(c->b, v, LLVMBuildGEP2(c->b, ft, tmp, &l.i, 1, ""));
    zy_mpi_loop_close(c, &l);
  }
  LLVMValueRef sum = zy_mpi_handle(c, "ompi_mpi_op_sum", 0x58000003);
  if (c->row->kind == ZY_MPI_ALLREDUCE) {
    LLVMValueRef a[6] = {tmp, out, n, type_of(c, 0), sum, zy_mpi_comm(c)};
    zy_mpi_emit(c, "Allreduce", "ppihhh", a);
  } else {
    LLVMValueRef a[7] = {
        tmp, out, n, type_of(c, 0), sum, arg(c, 'R', 0), zy_mpi_comm(c)};
    zy_mpi_emit(c, "Reduce", "ppihhih", a);
  }
  release(c, tmp);
  release(c, w);
  release(c, own);
  return 0;
}

/* --- Entry point -------------------------------------------------------- */

static int refuse(ZyMpiCall *c, const char *hint) {
  return ZY_GEN_ERROR(c->g, ZY_ERR_UNSUPPORTED, hint,
                      "forward mode: the MPI call '%s' is not differentiated "
                      "in forward mode yet",
                      LLVMGetValueName(LLVMGetCalledValue(c->call)));
}

static int moves_floats(ZyMpiCall *c) {
  for (int k = 0; zy_mpi_arg(c, 't', k); k++)
    if (!zy_mpi_type_ignored(c, k) &&
        zy_mpi_elem(zy_mpi_arg(c, 't', k)) != ZY_MPI_EL_NONE)
      return 1;
  return 0;
}

/* The tangent of one call in the current lane. */
static int tangent(ZyMpiCall *c) {
  ZyMpiKind k = c->row->kind;
  if (k == ZY_MPI_WAIT)
    return tan_wait(c);
  if (k == ZY_MPI_WAITALL)
    return tan_waitall(c);
  if (k > ZY_MPI_WAITALL && k <= ZY_MPI_RECV_INIT)
    return refuse(c, "complete requests with MPI_Wait or MPI_Waitall, or "
                     "use __enzyme_autodiff");
  if (!moves_floats(c))
    return 0;
  ZyMpiOp op =
      zy_mpi_arg(c, 'o', 0) ? zy_mpi_op(zy_mpi_arg(c, 'o', 0)) : ZY_MPI_SUM;
  switch (k) {
  case ZY_MPI_SEND:
    return tan_send(c);
  case ZY_MPI_RECV:
    return tan_recv(c);
  case ZY_MPI_SENDRECV:
    return tan_sendrecv(c);
  case ZY_MPI_SENDRECV_REPLACE:
    return tan_sendrecv_replace(c);
  case ZY_MPI_ISEND:
  case ZY_MPI_IRECV:
    return tan_post(c, k == ZY_MPI_IRECV);
  case ZY_MPI_REDUCE:
  case ZY_MPI_ALLREDUCE:
    if (op == ZY_MPI_MINLOC || op == ZY_MPI_MAXLOC)
      return refuse(c, "reduce values with MPI_MAX or MPI_MIN, or use "
                       "__enzyme_autodiff");
    return op == ZY_MPI_SUM ? tan_linear(c) : tan_reduce_op(c);
  case ZY_MPI_BCAST:
  case ZY_MPI_GATHER:
  case ZY_MPI_SCATTER:
  case ZY_MPI_ALLGATHER:
  case ZY_MPI_ALLTOALL:
  case ZY_MPI_SCAN:
  case ZY_MPI_EXSCAN:
  case ZY_MPI_REDUCE_SCATTER_BLOCK:
  case ZY_MPI_GATHERV:
  case ZY_MPI_SCATTERV:
  case ZY_MPI_ALLGATHERV:
  case ZY_MPI_ALLTOALLV:
    return tan_linear(c);
  default: /* nonblocking collectives */
    return refuse(c, "use the blocking collective, or __enzyme_autodiff");
  }
}

/* A call of one of Zymase's helpers of nonblocking calls (the records
 * of a gradient: forward over reverse through Isend/Irecv): refused,
 * located at the MPI call before it (the helper's call has no line). */
static int refuse_helper(ZyGen *g, LLVMValueRef call) {
  for (LLVMValueRef i = call; i; i = LLVMGetPreviousInstruction(i))
    if (LLVMInstructionGetDebugLoc(i)) {
      g->cur = i;
      break;
    }
  return ZY_GEN_ERROR(
      g, ZY_ERR_UNSUPPORTED,
      "use blocking MPI calls (Send, Recv, Sendrecv, collectives) in the "
      "function whose gradient is differentiated",
      "forward mode over a gradient: the gradient of nonblocking MPI calls "
      "(a call to '%s') is not differentiated in forward mode yet",
      LLVMGetValueName(LLVMGetCalledValue(call)));
}

int zy_mpi_tangent(ZyGen *g, LLVMValueRef call) {
  g->cur = call;
  if (zy_mpi_helper(LLVMGetCalledValue(call)))
    return refuse_helper(g, call);
  ZyMpiCall c;
  zy_mpi_init(&c, g, call);
  c.forward = 1;
  if (!g->lane && (zy_mpi_check_call(g, call) || zy_mpi_forward(g, call, 0)))
    return -1;
  zy_tangent_copy(g, call);
  int err = tangent(&c);
  zy_vec_free(&g->fextra); /* the reverse mode's list; unused here */
  return err;
}
