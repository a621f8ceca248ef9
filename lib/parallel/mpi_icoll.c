/* mpi_icoll.c - nonblocking collectives (Iallreduce, Ibcast, Ireduce, with
 * MPI_SUM).  Like a nonblocking send or receive, the call keeps a record
 * in the table of requests (mpi_record.h); the reverse of its wait posts
 * the adjoint collective (Iallreduce, Ireduce to the root, Ibcast from the
 * root) on the record's own request, and the reverse of the call waits for
 * it and moves the adjoint into the shadows.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "mpi_record.h"

#include "ir/irutil.h"

#define GET(rec, k) zy_mpi_rec_get(c, rec, k)
#define SET(rec, k, v) zy_mpi_rec_set(c, rec, k, v)

static LLVMValueRef fwd(ZyMpiCall *c, LLVMValueRef v) {
  LLVMValueRef m = zy_map_get(&c->g->vmap, v);
  return m ? m : v;
}

static LLVMValueRef shadow_of(ZyMpiCall *c, LLVMValueRef p) {
  if (!p || !zy_activity_shadowed(c->g->act, p))
    return NULL;
  return zy_shadow_lookup(c->g, p);
}

static int kind_of(ZyMpiCall *c) {
  return c->row->kind == ZY_MPI_IALLREDUCE ? K_IALLREDUCE
         : c->row->kind == ZY_MPI_IBCAST   ? K_IBCAST
                                           : K_IREDUCE;
}

/* The buffer whose shadow the adjoint collective reads: Ibcast's buffer,
 * the receive buffer of the reductions. */
static LLVMValueRef read_buffer(ZyMpiCall *c) {
  return zy_mpi_buffer(c, c->row->kind == ZY_MPI_IBCAST ? 0 : 1);
}

int zy_mpi_forward_collective(ZyMpiCall *c) {
  ZyMpiElem el = zy_mpi_elem(zy_mpi_arg(c, 't', 0));
  LLVMValueRef n = fwd(c, zy_mpi_arg(c, 'n', 0));
  LLVMValueRef comm = zy_mpi_comm(c);
  LLVMValueRef rec =
      zy_call_malloc(c->b, LLVMSizeOf(zy_mpi_rec_type(c)), "mpi.record");
  LLVMValueRef buf = read_buffer(c);
  SET(rec, R_KIND, LLVMConstInt(c->i32, (unsigned)kind_of(c), 0));
  SET(rec, R_STATE, LLVMConstInt(c->i32, S_POSTED, 0));
  SET(rec, R_SHADOW,
      zy_activity_shadowed(c->g->act, buf) ? zy_shadow_forward_of(c->g, buf)
                                           : LLVMConstNull(c->ptr));
  SET(rec, R_COUNT, n);
  SET(rec, R_TYPE, zy_mpi_rec_to_bits(c, fwd(c, zy_mpi_arg(c, 't', 0))));
  SET(rec, R_COMM, zy_mpi_rec_to_bits(c, comm));
  LLVMValueRef root = zy_mpi_arg(c, 'R', 0);
  LLVMValueRef zero = LLVMConstInt(c->i32, 0, 0);
  SET(rec, R_PEER, root ? fwd(c, root) : zero);
  SET(rec, R_TAG,
      root ? LLVMBuildZExt(c->b,
                           LLVMBuildICmp(c->b, LLVMIntEQ, zy_mpi_rank(c, comm),
                                         fwd(c, root), ""),
                           c->i32, "")
           : zero);
  SET(rec, R_TMP, LLVMConstNull(c->ptr));
  SET(rec, R_TMP2, LLVMConstNull(c->ptr));
  SET(rec, R_REQ, zy_mpi_rec_request_null(c));
  SET(rec, R_BYTES,
      LLVMBuildMul(c->b, zy_mpi_i64(c, n),
                   LLVMConstInt(c->i64, zy_mpi_el_size(el), 0), ""));
  SET(rec, R_FLOAT, LLVMConstInt(c->i32, el == ZY_MPI_EL_FLOAT, 0));
  zy_mpi_rec_put(c, fwd(c, zy_mpi_arg(c, 'q', 0)), rec);
  zy_map_put(&c->g->tapes, c->call, rec);
  return 0;
}

void zy_mpi_unwait_collectives(ZyMpiCall *c, LLVMValueRef rec, LLVMValueRef sw,
                               LLVMBasicBlockRef out) {
  LLVMValueRef fn = zy_builder_function(c->b);
  static const int kinds[3] = {K_IALLREDUCE, K_IBCAST, K_IREDUCE};
  for (int k = 0; k < 3; k++) {
    LLVMBasicBlockRef b =
        LLVMAppendBasicBlockInContext(c->ctx, fn, "collective");
    LLVMAddCase(sw, LLVMConstInt(c->i32, (unsigned)kinds[k], 0), b);
    LLVMPositionBuilderAtEnd(c->b, b);
    LLVMValueRef bytes = GET(rec, R_BYTES), sh = GET(rec, R_SHADOW);
    LLVMValueRef zero = LLVMConstInt(c->i64, 0, 0);
    LLVMValueRef none = LLVMBuildIsNull(c->b, sh, "");
    LLVMValueRef z =
        zy_mpi_zeroed(c, LLVMBuildSelect(c->b, none, bytes, zero, ""));
    SET(rec, R_TMP2, z);
    LLVMValueRef src = LLVMBuildSelect(c->b, none, z, sh, "");
    LLVMValueRef tmp = zy_mpi_zeroed(c, bytes);
    SET(rec, R_TMP, tmp);
    LLVMValueRef n = GET(rec, R_COUNT);
    LLVMValueRef dt = zy_mpi_rec_from_bits(c, GET(rec, R_TYPE));
    LLVMValueRef comm = zy_mpi_rec_from_bits(c, GET(rec, R_COMM));
    LLVMValueRef req = zy_mpi_rec_field(c, rec, R_REQ);
    LLVMValueRef sum = zy_mpi_handle(c, "ompi_mpi_op_sum", 0x58000003);
    LLVMValueRef root = GET(rec, R_PEER);
    if (kinds[k] == K_IALLREDUCE) {
      LLVMValueRef a[7] = {src, tmp, n, dt, sum, comm, req};
      zy_mpi_emit(c, "Iallreduce", "ppihhhp", a);
    } else if (kinds[k] == K_IBCAST) {
      LLVMValueRef a[8] = {src, tmp, n, dt, sum, root, comm, req};
      zy_mpi_emit(c, "Ireduce", "ppihhihp", a);
    } else {
      LLVMValueRef isroot = LLVMBuildICmp(c->b, LLVMIntNE, GET(rec, R_TAG),
                                          LLVMConstInt(c->i32, 0, 0), "");
      LLVMBuildMemCpy(c->b, tmp, 1, src, 1,
                      LLVMBuildSelect(c->b, isroot, bytes, zero, ""));
      LLVMValueRef a[6] = {tmp, n, dt, root, comm, req};
      zy_mpi_emit(c, "Ibcast", "pihihp", a);
    }
    LLVMBuildBr(c->b, out);
  }
}

/* Where the input's adjoint goes: the send buffer, or the receive buffer
 * with MPI_IN_PLACE. */
static LLVMValueRef input(ZyMpiCall *c) {
  LLVMValueRef s = zy_mpi_buffer(c, 0);
  return zy_mpi_in_place(c, s) ? zy_mpi_buffer(c, 1) : s;
}

int zy_mpi_reverse_collective(ZyMpiCall *c) {
  ZyMpiElem el = zy_mpi_elem(zy_mpi_arg(c, 't', 0));
  LLVMValueRef rec = zy_reload(c->g, zy_map_get(&c->g->tapes, c->call),
                               LLVMGetInstructionParent(c->call));
  zy_mpi_rec_require(
      c,
      LLVMBuildICmp(c->b, LLVMIntEQ, GET(rec, R_STATE),
                    LLVMConstInt(c->i32, S_WAITED, 0), ""),
      "zymase: an MPI request with derivatives was not completed by "
      "MPI_Wait or MPI_Test in the differentiated code\n");
  LLVMValueRef a[2] = {zy_mpi_rec_field(c, rec, R_REQ),
                       zy_mpi_status_ignore(c)};
  zy_mpi_emit(c, "Wait", "pp", a);
  LLVMValueRef tmp = GET(rec, R_TMP), by = GET(rec, R_BYTES);
  LLVMValueRef zero = LLVMConstInt(c->i64, 0, 0),
               i8z = LLVMConstInt(c->i8, 0, 0);
  LLVMValueRef isroot = LLVMBuildICmp(c->b, LLVMIntNE, GET(rec, R_TAG),
                                      LLVMConstInt(c->i32, 0, 0), "");
  LLVMValueRef s = shadow_of(c, read_buffer(c));
  if (c->row->kind == ZY_MPI_IBCAST) {
    if (s) { /* the root's adjoint is the sum; the others' are gone */
      LLVMBuildMemCpy(c->b, s, 1, tmp, 1,
                      LLVMBuildSelect(c->b, isroot, by, zero, ""));
      LLVMBuildMemSet(c->b, s, i8z, LLVMBuildSelect(c->b, isroot, zero, by, ""),
                      1);
    }
  } else {
    if (s) /* the result (the root's, for Ireduce) was overwritten */
      LLVMBuildMemSet(c->b, s, i8z,
                      c->row->kind == ZY_MPI_IREDUCE
                          ? LLVMBuildSelect(c->b, isroot, by, zero, "")
                          : by,
                      1);
    LLVMValueRef in = input(c);
    zy_mpi_add_into(c, in, shadow_of(c, in), tmp,
                    zy_lookup(c->g, zy_mpi_arg(c, 'n', 0)), el);
  }
  zy_call_free(c->b, "free", tmp);
  zy_call_free(c->b, "free", GET(rec, R_TMP2));
  zy_call_free(c->b, "free", rec);
  return 0;
}
