/* mpi.h - MPI calls in differentiated code: the table of the calls
 * Zymase knows (mpi.def), their checks, and the forward and reverse code
 * of each (mpi_adjoint.c), for Open MPI's ABI (handles are pointers to
 * ompi_* globals) and MPICH's (handles are integers).
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_PARALLEL_MPI_H
#define ZY_PARALLEL_MPI_H

#include "calls/mpi_calls.h"

#include <llvm-c/Core.h>

struct ZyGen;

/* Check step: every MPI call of g's primal is one the sweeps handle
 * (known call, constant predefined datatypes and ops, MPI_IN_PLACE where
 * supported); 0 or -1 after an error. */
int zy_mpi_check(struct ZyGen *g);

/* The check of one MPI call (as zy_mpi_check does for each); 0 or -1
 * after an error. */
int zy_mpi_check_call(struct ZyGen *g, LLVMValueRef call);

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

/* Reverse sweep: the adjoint communication of the call (`d`, the adjoint
 * of its result, is not used); 0 or -1. */
int zy_mpi_reverse(struct ZyGen *g, LLVMValueRef call, LLVMValueRef d);

/* Forward mode (mpi_tangent.c): the copy of the call, checked as by the
 * check step, and the same communication on the tangents over the
 * duplicate communicator (a receive's from the source and tag its
 * primal matched; MAX/MIN/PROD reductions as the sum of the weighted
 * tangents; Isend/Irecv completed by Wait/Waitall through a table of
 * records); the calls it does not handle get a located error, and so do
 * the calls of Zymase's helpers of nonblocking calls in a gradient
 * (zy_mpi_helper: forward over reverse through them).  0 or -1. */
int zy_mpi_tangent(struct ZyGen *g, LLVMValueRef call);

/* Registers the functions above as the engine's handlers of ZY_CALL_MPI
 * (ad/runtime.h); at start-up. */
void zy_mpi_register(void);

#endif
