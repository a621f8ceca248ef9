/* mpi_record.h - the record the forward sweep keeps per nonblocking
 * request (mpi_requests.c, mpi_icoll.c): its fields, and the helpers that
 * read and write it, keep it in the table of requests, and post the
 * opposite operation in the reverse sweep.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_PARALLEL_MPI_RECORD_H
#define ZY_PARALLEL_MPI_RECORD_H

#include "mpi_call.h"

/* The record's fields. */
enum {
  R_KIND,   /* a K_* below                                       */
  R_STATE,  /* S_POSTED, or S_WAITED once a Wait/Test took it    */
  R_SHADOW, /* forward shadow of the buffer the adjoint reads or
               writes (NULL: none)                               */
  R_COUNT,
  R_TYPE, /* handles as i64 bits */
  R_PEER, /* peer rank; the root of a collective               */
  R_TAG,  /* tag; whether this rank is the root (collectives)  */
  R_COMM,
  R_TMP, /* heap temporaries of the adjoint operation         */
  R_REQ, /* the adjoint operation's request                   */
  R_BYTES,
  R_FLOAT, /* the elements are floats (else doubles)            */
  R_TMP2,
  R_N
};
enum { K_SEND, K_RECV, K_NONE, K_IALLREDUCE, K_IBCAST, K_IREDUCE };
enum { S_POSTED, S_WAITED };

/* Starts helper function `name` in c's module (0 when it exists
 * already: *fn is it); c->b is then positioned in its entry, *saved
 * holds the caller's builder, which zy_mpi_helper_end puts back. */
int zy_mpi_helper_begin(ZyMpiCall *c, const char *name, LLVMTypeRef fty,
                        LLVMValueRef *fn, LLVMBuilderRef *saved);
void zy_mpi_helper_end(ZyMpiCall *c, LLVMBuilderRef saved);

LLVMTypeRef zy_mpi_rec_type(ZyMpiCall *c);
LLVMValueRef zy_mpi_rec_field(ZyMpiCall *c, LLVMValueRef rec, unsigned k);
LLVMValueRef zy_mpi_rec_get(ZyMpiCall *c, LLVMValueRef rec, unsigned k);
void zy_mpi_rec_set(ZyMpiCall *c, LLVMValueRef rec, unsigned k, LLVMValueRef v);
LLVMValueRef zy_mpi_rec_to_bits(ZyMpiCall *c, LLVMValueRef h);
LLVMValueRef zy_mpi_rec_from_bits(ZyMpiCall *c, LLVMValueRef v);
LLVMValueRef zy_mpi_rec_request_null(ZyMpiCall *c);
/* Puts `rec` in the table under request address `key`. */
LLVMValueRef zy_mpi_rec_put(ZyMpiCall *c, LLVMValueRef key, LLVMValueRef rec);
/* The same on the table named `table` (the reverse's is "__zymase_mpi",
 * forward mode's "__zymase_mpi.fwd"), and its take: the latest record
 * put with `key`, removed from the table, or the table's record of kind
 * K_NONE (`table`.none) when there is none. */
LLVMValueRef zy_mpi_table_put(ZyMpiCall *c, const char *table, LLVMValueRef key,
                              LLVMValueRef rec);
LLVMValueRef zy_mpi_table_take(ZyMpiCall *c, const char *table,
                               LLVMValueRef key);
/* Prints `msg` and aborts unless `ok` (an i1). */
void zy_mpi_rec_require(ZyMpiCall *c, LLVMValueRef ok, const char *msg);

/* Nonblocking collectives (mpi_icoll.c).  In the helper that reverses a
 * wait, adds to switch `sw` on the record's kind the cases that post the
 * adjoint collective of `rec`, each ending in a branch to `out`. */
void zy_mpi_unwait_collectives(ZyMpiCall *c, LLVMValueRef rec, LLVMValueRef sw,
                               LLVMBasicBlockRef out);

#endif
