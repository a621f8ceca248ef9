/* mpi_call.h - what mpi.c and mpi_adjoint.c share about one MPI call:
 * its row and arguments, the ABI of its handles, its element type, and
 * helpers that emit MPI calls with the program's own handle values.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_PARALLEL_MPI_CALL_H
#define ZY_PARALLEL_MPI_CALL_H

#include "mpi.h"

#include "ad/ad.h"

/* What a buffer of a datatype holds, for derivatives. */
typedef enum ZyMpiElem {
  ZY_MPI_EL_NONE,       /* integers, characters, bytes: no derivative     */
  ZY_MPI_EL_DOUBLE,     /* MPI_DOUBLE                                      */
  ZY_MPI_EL_FLOAT,      /* MPI_FLOAT                                       */
  ZY_MPI_EL_DOUBLE_INT, /* MPI_DOUBLE_INT: {double, int} pairs (MINLOC) */
  ZY_MPI_EL_FLOAT_INT,  /* MPI_FLOAT_INT                                 */
  ZY_MPI_EL_UNKNOWN,    /* anything else (derived, runtime value): refused */
} ZyMpiElem;

typedef enum ZyMpiOp {
  ZY_MPI_SUM,
  ZY_MPI_PROD,
  ZY_MPI_MAX,
  ZY_MPI_MIN,
  ZY_MPI_MINLOC,
  ZY_MPI_MAXLOC,
  ZY_MPI_OP_OTHER,
} ZyMpiOp;

typedef struct ZyMpiCall {
  ZyGen *g;
  LLVMValueRef call; /* primal call */
  const ZyMpiRow *row;
  LLVMBuilderRef b; /* g->b */
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  int mpich;     /* MPICH's ABI (integer handles), else Open MPI's */
  int pmpi;      /* called as PMPI_*: what we emit is PMPI_* too   */
  int forward;   /* emitting in the forward sweep (new blocks are
                    forward blocks: g->fextra, for split mode)    */
  LLVMTypeRef h; /* the type of a handle: ptr or i32               */
  LLVMTypeRef i1, i8, i32, i64, ptr;
} ZyMpiCall;

void zy_mpi_init(ZyMpiCall *c, ZyGen *g, LLVMValueRef call);

/* Index of the `nth` (from 0) parameter with `letter`, or -1; and the
 * primal operand there (NULL if none). */
int zy_mpi_index(const ZyMpiRow *r, char letter, int nth);
LLVMValueRef zy_mpi_arg(ZyMpiCall *c, char letter, int nth);
/* The `nth` buffer (letters b, r, B in order). */
LLVMValueRef zy_mpi_buffer(ZyMpiCall *c, int nth);

ZyMpiElem zy_mpi_elem(LLVMValueRef datatype);
ZyMpiOp zy_mpi_op(LLVMValueRef op);
/* Whether pointer `p` is the constant MPI_IN_PLACE of the call's ABI. */
int zy_mpi_in_place(const ZyMpiCall *c, LLVMValueRef p);
LLVMValueRef zy_mpi_in_place_value(const ZyMpiCall *c);
/* Whether the `nth` datatype is ignored: the call has one per side and
 * that side's buffer is MPI_IN_PLACE (Gather at the root, ...). */
int zy_mpi_type_ignored(ZyMpiCall *c, int nth);

/* Emits a call of MPI function `name` (without prefix) returning i32;
 * `sig` has a letter per argument: p pointer, i i32, h handle. */
LLVMValueRef zy_mpi_emit(ZyMpiCall *c, const char *name, const char *sig,
                         LLVMValueRef *args);
/* A predefined handle: Open MPI's global `ompi` (its address), MPICH's
 * integer `mpich`. */
LLVMValueRef zy_mpi_handle(ZyMpiCall *c, const char *ompi, unsigned mpich);
LLVMValueRef zy_mpi_status_ignore(ZyMpiCall *c);
/* Byte offsets of MPI_SOURCE and MPI_TAG in MPI_Status, and its size. */
unsigned zy_mpi_status_source(const ZyMpiCall *c);
unsigned zy_mpi_status_tag(const ZyMpiCall *c);
/* MPI_ANY_SOURCE, MPI_ANY_TAG and MPI_PROC_NULL of the call's ABI (i32). */
LLVMValueRef zy_mpi_any_source(const ZyMpiCall *c);
LLVMValueRef zy_mpi_any_tag(const ZyMpiCall *c);
LLVMValueRef zy_mpi_proc_null(const ZyMpiCall *c);
/* The actual source and tag of a receive posted for `src` and `tag`
 * (i32 values at the builder) whose status is at `st`: the status's
 * only where the receive took MPI_ANY_SOURCE / MPI_ANY_TAG; a tag left
 * MPI_ANY_TAG (from MPI_PROC_NULL) becomes 0. */
void zy_mpi_actual_source(ZyMpiCall *c, LLVMValueRef st, LLVMValueRef *src,
                          LLVMValueRef *tag);
enum { ZY_MPI_STATUS_BYTES = 32 };

/* This rank in communicator `comm` (a value usable at the builder),
 * and the communicator's size. */
LLVMValueRef zy_mpi_rank(ZyMpiCall *c, LLVMValueRef comm);
LLVMValueRef zy_mpi_size(ZyMpiCall *c, LLVMValueRef comm);

/* Emitters shared by the builders (mpi_adjoint.c): a zeroed heap block
 * (calloc); the bytes of one element; `n` as an i64; a counted loop
 * `for (i = 0; i < n; i++)` whose body goes between open and close (the
 * builder ends after the loop); shadow(primal)[i] += src[i] for i < n. */
LLVMValueRef zy_mpi_zeroed(ZyMpiCall *c, LLVMValueRef bytes);
unsigned zy_mpi_el_size(ZyMpiElem el);
LLVMValueRef zy_mpi_i64(ZyMpiCall *c, LLVMValueRef n);
typedef struct ZyMpiLoop {
  LLVMBasicBlockRef from, head, done;
  LLVMValueRef i; /* i64 */
} ZyMpiLoop;
void zy_mpi_loop_open(ZyMpiCall *c, ZyMpiLoop *l, LLVMValueRef n);
void zy_mpi_loop_close(ZyMpiCall *c, ZyMpiLoop *l);
void zy_mpi_add_into(ZyMpiCall *c, LLVMValueRef primal, LLVMValueRef shadow,
                     LLVMValueRef src, LLVMValueRef n, ZyMpiElem el);
/* ... times w[i]. */
void zy_mpi_add_weighted(ZyMpiCall *c, LLVMValueRef primal, LLVMValueRef shadow,
                         LLVMValueRef src, LLVMValueRef w, LLVMValueRef n,
                         ZyMpiElem el);
LLVMTypeRef zy_mpi_el_type(ZyMpiCall *c, ZyMpiElem el);

/* Reduce/Allreduce with MAX, MIN or PROD (mpi_reduce.c): after the call
 * in the forward sweep, the derivative of each result element with
 * respect to this rank's input element, kept (a heap array of the
 * element type) as the call's tape. */
int zy_mpi_forward_reduce(ZyMpiCall *c);
/* The reverse of Reduce/Allreduce with MINLOC/MAXLOC on value-index
 * pairs. */
int zy_mpi_reverse_loc(ZyMpiCall *c);
/* The reverse of Scan, Exscan (SUM) and Reduce_scatter_block (SUM). */
int zy_mpi_reverse_scan(ZyMpiCall *c);
int zy_mpi_reverse_reduce_scatter(ZyMpiCall *c);

/* Gatherv, Scatterv, Allgatherv, Alltoallv (mpi_vector.c): the forward
 * copy of the count and displacement arrays, and the reverse. */
int zy_mpi_forward_vector(ZyMpiCall *c);
int zy_mpi_reverse_vector(ZyMpiCall *c);
/* The largest displs[q] + counts[q] over ranks q < n (int arrays), in
 * elements: the extent of a v-collective's buffer. */
LLVMValueRef zy_mpi_v_extent(ZyMpiCall *c, LLVMValueRef cnt, LLVMValueRef dsp,
                             LLVMValueRef n);

/* Nonblocking requests (mpi_requests.c): forward and reverse code of
 * Isend/Irecv (a record per request), Wait and Waitall. */
int zy_mpi_forward_request(ZyMpiCall *c);
int zy_mpi_reverse_request(ZyMpiCall *c);
/* Iallreduce, Ibcast, Ireduce (mpi_icoll.c). */
int zy_mpi_forward_collective(ZyMpiCall *c);
int zy_mpi_reverse_collective(ZyMpiCall *c);

/* The communicator the adjoint communication of the call uses, at the
 * builder (mpi_types.c): a duplicate of the call's communicator, made the
 * first time (a collective call: the forward sweep asks for it before
 * every call with a communicator) and kept as an attribute of it, freed
 * with it, so that no message of the program (a receive from
 * MPI_ANY_SOURCE with MPI_ANY_TAG still pending) can match an adjoint
 * message.  NULL for a call without a communicator. */
LLVMValueRef zy_mpi_comm(ZyMpiCall *c);

/* Forward, before the call (mpi_types.c): a call of a helper that stops
 * the program with a message naming the call when its communicator is
 * an intercommunicator. */
int zy_mpi_check_intra(ZyMpiCall *c);

#endif
