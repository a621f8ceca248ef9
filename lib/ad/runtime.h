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

/* How adjoints go into shadow memory: zy_accumulate_shadow (reverse.c)
 * asks the registered strategies, in the order registered, which one
 * applies to the memory at primal pointer `p` (a per-thread buffer, device
 * code's reductions, plain or atomic by ownership), and lets it add; a
 * strategy adds through zy_accumulate (the plain or atomic primitive),
 * never through zy_accumulate_shadow.  With none applying, the add is
 * plain.  The parallel runtimes register theirs at start-up
 * (zy_parallel_register, abi/driver.c). */
typedef struct ZyAccStrategy {
  const char *name; /* "privatized", "device", ..., for people */
  /* Whether the strategy adds `delta` (of its type) for `p`. */
  int (*applies)(ZyGen *g, LLVMValueRef p, LLVMValueRef delta);
  /* Adds `delta` to `shadow`, the shadow of `p`, at g's builder. */
  void (*add)(ZyGen *g, LLVMValueRef p, LLVMValueRef shadow,
              LLVMValueRef delta);
} ZyAccStrategy;

/* Registers `s` after those registered before (again with the same table
 * is harmless). */
void zy_acc_register(const ZyAccStrategy *s);

/* The first registered strategy that applies to `p` and `delta`; NULL
 * for none. */
const ZyAccStrategy *zy_acc_strategy(ZyGen *g, LLVMValueRef p,
                                     LLVMValueRef delta);

#endif
