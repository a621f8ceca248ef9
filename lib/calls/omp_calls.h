/* omp_calls.h - the OpenMP runtime calls Zymase knows (libomp's __kmpc_*
 * and omp_* interface, as clang emits it), as the analyses read them: what
 * each call is to the sweeps.  Their rewrites and sweeps are in parallel/.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_CALLS_OMP_CALLS_H
#define ZY_CALLS_OMP_CALLS_H

#include <llvm-c/Core.h>

/* What a runtime call is to the sweeps. */
typedef enum ZyOmpKind {
  ZY_OMP_INACTIVE,   /* no derivative, nothing in the reverse sweep     */
  ZY_OMP_FORK,       /* __kmpc_fork_call: a parallel region             */
  ZY_OMP_BARRIER,    /* a barrier, again at the mirrored point          */
  ZY_OMP_ENTER,      /* takes a lock (critical, omp_set_lock)           */
  ZY_OMP_EXIT,       /* releases it                                     */
  ZY_OMP_REDUCE,     /* __kmpc_reduce*: atomics or a critical section   */
  ZY_OMP_END_REDUCE, /* __kmpc_end_reduce*: ... its end                 */
  ZY_OMP_REFUSED,    /* a construct Zymase does not differentiate       */
} ZyOmpKind;

typedef struct ZyOmpCall {
  const char *name;
  ZyOmpKind kind;
  int lock;              /* ENTER/EXIT/REDUCE: index of the lock argument */
  const char *construct; /* the OpenMP construct, for errors             */
} ZyOmpCall;

/* The table row of a call to runtime function `callee` (a declaration
 * named __kmpc_*, omp_* or __tgt_*), NULL for other functions.  A name
 * of the runtime missing from the table gets a REFUSED row. */
const ZyOmpCall *zy_omp_call(LLVMValueRef callee);

/* Whether `callee` is a runtime call without derivatives (activity
 * analysis): every known row but FORK, REDUCE and REFUSED. */
int zy_omp_inactive_function(LLVMValueRef callee);

#endif
