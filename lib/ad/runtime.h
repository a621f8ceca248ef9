/* runtime.h - how the engine reaches the runtimes above it: a runtime whose
 * calls have a ZyCallMode of their own (BLAS: ZY_CALL_BLAS, MPI:
 * ZY_CALL_MPI) registers one table of handlers at start-up (abi/driver.c,
 * before the first gradient), and the engine calls it through that table,
 * never through the runtime's header.  Which calls are whose is read from
 * the tables of calls/ (zy_call_mode).
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_AD_RUNTIME_H
#define ZY_AD_RUNTIME_H

#include "ad.h"

typedef struct ZyCallRuntime {
  const char *name; /* "BLAS", "MPI", for people */
  /* Before the analyses: rewrites of g's primal (NULL: none); whether it
   * changed the primal. */
  int (*prepare)(ZyGen *g);
  /* Check step: the whole function, then one call of the runtime (each
   * NULL: none); 0 or -1 after an error. */
  int (*check)(ZyGen *g);
  int (*check_call)(ZyGen *g, LLVMValueRef call);
  /* Forward sweep: `after` 0 before the copy of the call, 1 after it;
   * 0 or -1. */
  int (*forward)(ZyGen *g, LLVMValueRef call, int after);
  /* Reverse sweep: the adjoint of the call (`d`: adjoint of its result, or
   * NULL); 0 or -1. */
  int (*reverse)(ZyGen *g, LLVMValueRef call, LLVMValueRef d);
  /* End of the gradient: frees what the sweeps kept (NULL: nothing). */
  void (*release)(ZyGen *g);
} ZyCallRuntime;

/* Registers `rt` as the handler of the calls of `mode` (once, at start-up;
 * again with the same table is harmless). */
void zy_runtime_register(ZyCallMode mode, const ZyCallRuntime *rt);

/* The handler of the calls of `mode` (asserted registered). */
const ZyCallRuntime *zy_runtime(ZyCallMode mode);

/* Each registered runtime's prepare (whether one changed the primal),
 * check (0 or -1 at the first error) and release, in the order of the
 * modes. */
int zy_runtimes_prepare(ZyGen *g);
int zy_runtimes_check(ZyGen *g);
void zy_runtimes_release(ZyGen *g);

#endif
