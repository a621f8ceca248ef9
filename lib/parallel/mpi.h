/* mpi.h - MPI calls in differentiated code: the table of the calls
 * Zymase knows (mpi.def), their checks, and the forward and reverse code
 * of each (mpi_adjoint.c), for Open MPI's ABI (handles are pointers to
 * ompi_* globals) and MPICH's (handles are integers).
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_PARALLEL_MPI_H
#define ZY_PARALLEL_MPI_H

#include <llvm-c/Core.h>

struct ZyGen;

typedef enum ZyMpiKind {
  ZY_MPI_INACTIVE,
  ZY_MPI_SEND,
  ZY_MPI_RECV,
  ZY_MPI_SENDRECV,
  ZY_MPI_SENDRECV_REPLACE,
  ZY_MPI_ISEND,
  ZY_MPI_IRECV,
  ZY_MPI_WAIT,
  ZY_MPI_WAITALL,
  ZY_MPI_TEST,
  ZY_MPI_TESTALL,
  ZY_MPI_WAITANY,
  ZY_MPI_WAITSOME,
  ZY_MPI_START,
  ZY_MPI_STARTALL,
  ZY_MPI_REQUEST_FREE,
  ZY_MPI_SEND_INIT,
  ZY_MPI_RECV_INIT,
  ZY_MPI_IALLREDUCE,
  ZY_MPI_IBCAST,
  ZY_MPI_IREDUCE,
  ZY_MPI_BARRIER,
  ZY_MPI_BCAST,
  ZY_MPI_REDUCE,
  ZY_MPI_ALLREDUCE,
  ZY_MPI_GATHER,
  ZY_MPI_SCATTER,
  ZY_MPI_ALLGATHER,
  ZY_MPI_ALLTOALL,
  ZY_MPI_GATHERV,
  ZY_MPI_SCATTERV,
  ZY_MPI_ALLGATHERV,
  ZY_MPI_ALLTOALLV,
  ZY_MPI_SCAN,
  ZY_MPI_EXSCAN,
  ZY_MPI_REDUCE_SCATTER_BLOCK,
  ZY_MPI_REFUSED, /* an MPI function the table does not have */
} ZyMpiKind;

/* One row of mpi.def. */
typedef struct ZyMpiRow {
  const char *name; /* without the MPI_ / PMPI_ prefix */
  ZyMpiKind kind;
  const char *args;    /* argument letters (see mpi.def) */
  const char *adjoint; /* what the reverse sweep does, for people */
} ZyMpiRow;

/* The row of `callee` when it is a declaration named MPI_* or PMPI_*
 * (a REFUSED row for names the table lacks), else NULL. */
const ZyMpiRow *zy_mpi_row(LLVMValueRef callee);

/* Whether `callee` is an MPI function without derivatives (activity). */
int zy_mpi_inactive_function(LLVMValueRef callee);

/* Whether calls of `callee` go through the MPI sweeps (ZY_CALL_MPI). */
int zy_mpi_handled(LLVMValueRef callee);

/* Check step: every MPI call of g's primal is one the sweeps handle
 * (known call, constant predefined datatypes and ops, MPI_IN_PLACE where
 * supported); 0 or -1 after an error. */
int zy_mpi_check(struct ZyGen *g);

/* Before the analyses of activity: in g's primal, each datatype known
 * only at run time, on a buffer of doubles or floats with one count,
 * becomes MPI_DOUBLE or MPI_FLOAT with the count times the number of
 * base elements the datatype holds (MPI_Type_contiguous, MPI_Type_dup;
 * found at run time, which stops with a message on other datatypes).
 * Whether it changed the primal (mpi_types.c). */
int zy_mpi_retype(struct ZyGen *g);

/* Forward sweep: `after` 0 before the copy of the call, 1 after it
 * (before: the run-time check that the communicator is no
 * intercommunicator; after: statuses, records of requests, caches of
 * reductions); 0 or -1. */
int zy_mpi_forward(struct ZyGen *g, LLVMValueRef call, int after);

/* Reverse sweep: the adjoint communication of the call; 0 or -1. */
int zy_mpi_reverse(struct ZyGen *g, LLVMValueRef call);

#endif
