/* runtime.h - how the engine reaches the runtimes above it: a runtime whose
 * calls have a ZyCallMode of their own (BLAS: ZY_CALL_BLAS, MPI:
 * ZY_CALL_MPI, warp shuffles: ZY_CALL_SHUFFLE) registers one table of
 * handlers at start-up (abi/driver.c, before the first gradient), and the
 * engine calls it through that table, never through the runtime's header.
 * Which calls are whose is read from the tables of calls/ (zy_call_mode).
 * The parallel runtimes also register their hooks into the sweeps
 * (ZyParallel) and the accumulation strategies (ZyAccStrategy).
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
  /* Forward mode (tangent.c): the copy of the call and its tangent
   * (NULL: the runtime's calls are refused there); 0 or -1. */
  int (*tangent)(ZyGen *g, LLVMValueRef call);
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

/* The parallel runtimes' hooks into the engine: OpenMP regions
 * (parallel/openmp.c, openmp_sweeps.c), privatized worksharing loops
 * (privatize.c) and device code (gpu_*.c), one table registered at
 * start-up (zy_parallel_register, abi/driver.c), called by the engine
 * through zy_parallel() at fixed points of the pipeline and the sweeps.
 * What each does is said in parallel/parallel.h at the function of the
 * same name with the zy_ prefix (context: zy_parallel_context).  The
 * adjoint and tangent of a warp shuffle (ZY_CALL_SHUFFLE) are a
 * ZyCallRuntime. */
typedef struct ZyParallel {
  /* Before the pre-AD pipeline (on a clone `p` or device function
   * `fn`), and after it. */
  void (*omp_prepare)(LLVMValueRef p);
  void (*gpu_dynamic_shared_prepare)(LLVMValueRef fn);
  int (*gpu_wrapper)(LLVMValueRef call);
  void (*omp_type_regions)(LLVMValueRef p);
  int (*gpu_shuffle_fuse)(LLVMValueRef fn);
  /* What calls are, and where a gradient runs. */
  int (*omp_is_region)(LLVMValueRef call);
  int (*gpu_shuffle_mode)(LLVMValueRef f);
  int (*context)(const ZyGen *g);
  /* Checks: 0 or -1 after a located error. */
  int (*omp_check)(ZyGen *g);
  int (*gpu_shuffle_check)(ZyGen *g);
  int (*gpu_dynamic_shared_check)(ZyGen *g);
  /* Privatized shadows: the plan, the forward and reverse hooks, the
   * end. */
  void (*priv_plan)(ZyGen *g);
  void (*priv_forward_block_end)(ZyGen *g, LLVMBasicBlockRef bb);
  void (*priv_forward_block_begin)(ZyGen *g, LLVMBasicBlockRef bb);
  void (*priv_forward_access)(ZyGen *g, LLVMValueRef load);
  void (*priv_reverse_enter)(ZyGen *g, LLVMBasicBlockRef bb,
                             LLVMBasicBlockRef pred);
  void (*priv_reverse_leave)(ZyGen *g, struct ZyLoop *l);
  void (*priv_free)(ZyGen *g);
  /* The sweeps: regions, barriers and locks; shared memory's shadows. */
  int (*omp_forward_region)(ZyGen *g, LLVMValueRef call);
  int (*omp_reverse_region)(ZyGen *g, LLVMValueRef call);
  int (*omp_reverse_needed)(LLVMValueRef inst);
  int (*omp_reverse_sync)(ZyGen *g, LLVMValueRef call);
  int (*omp_tangent_region)(ZyGen *g, LLVMValueRef call); /* forward mode */
  int (*gpu_reverse_needed)(LLVMValueRef inst);
  int (*gpu_reverse_sync)(ZyGen *g, LLVMValueRef call);
  int (*gpu_shared_shadow)(ZyGen *g, LLVMValueRef gv, LLVMValueRef *shadow);
  int (*gpu_shared_lanes)(LLVMValueRef gv); /* vector forward mode */
  LLVMValueRef (*gpu_dynamic_shadow_expr)(ZyGen *g, LLVMValueRef c,
                                          LLVMValueRef base);
  void (*gpu_zero_shared)(ZyGen *g, LLVMBuilderRef b, LLVMBasicBlockRef next);
  void (*gpu_finish)(ZyGen *g);
  void (*gpu_dynamic_release)(ZyGen *g);
} ZyParallel;

/* Registers the parallel runtimes' hooks (again with the same table is
 * harmless), and the table (asserted registered). */
void zy_parallel_hooks_register(const ZyParallel *p);
const ZyParallel *zy_parallel(void);

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
