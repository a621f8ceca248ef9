/* mpi_calls.h - the MPI calls Zymase knows (mpi.def), as the analyses
 * read them: what each call is (its kind) and what each argument is, for
 * the names MPI_* and PMPI_*.  Their checks and adjoints are in parallel/.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_CALLS_MPI_CALLS_H
#define ZY_CALLS_MPI_CALLS_H

#include <llvm-c/Core.h>

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

/* Whether `callee` is one of the functions Zymase adds for nonblocking
 * MPI calls (`__zymase_mpi.*`: the table of request records, the reverse
 * of a wait), which a gradient calls. */
int zy_mpi_helper(LLVMValueRef callee);

/* The name of `callee` without its MPI_ / PMPI_ prefix when it is a
 * declaration named so (`pmpi`, may be NULL: which prefix), else NULL. */
const char *zy_mpi_name(LLVMValueRef callee, int *pmpi);

#endif
