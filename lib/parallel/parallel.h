/* parallel.h - parallel runtimes in the AD engine: the OpenMP runtime
 * calls the engine knows (openmp.c), and who owns the shadow memory an
 * adjoint is added to (ownership.c), which decides how it is added.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_PARALLEL_PARALLEL_H
#define ZY_PARALLEL_PARALLEL_H

#include "calls/omp_calls.h"

#include <llvm-c/Core.h>

struct ZyGen;

/* --- OpenMP (libomp's __kmpc_* and omp_* interface, as clang emits it) --- */

/* Rewrites clone `p` before the pre-AD pipeline: each parallel region
 * (`__kmpc_fork_call(loc, n, body, args...)`) becomes a direct call
 * `body(null, null, args...)` marked as a region, so that the analyses
 * see the body as a callee; + and - reductions of floats take clang's
 * atomic branch (atomic adds, whose reverse is a broadcast of the
 * adjoint), other reductions become critical sections (one partial
 * result at a time, under the reduction's lock); each release of
 * a lock first takes a sequence number, so that the reverse sweep can
 * take the lock in the opposite order. */
void zy_omp_prepare(LLVMValueRef p);

/* The slot of the table of lock sequences for lock pointer `lock`
 * (instructions at `b`), and whether pointer `p` is one of its slots. */
LLVMValueRef zy_omp_slot(LLVMBuilderRef b, LLVMValueRef lock);
int zy_omp_order_slot(LLVMValueRef p);

/* After the pre-AD pipeline: a region given a float's bits (firstprivate)
 * calls a body taking the float instead (see type_region). */
void zy_omp_type_regions(LLVMValueRef p);

/* Whether parameter k of region body `body` is the address of a local of
 * each caller that only the body receives (a shared variable). */
int zy_omp_unreachable_param(LLVMValueRef body, unsigned k);

/* A call at `b` of runtime function `name` (declared on first use with the
 * types of `args`, at most 8); the calling thread's libomp id, asked of
 * the runtime (the reverse runs in another region than the forward). */
LLVMValueRef zy_omp_rt_call(LLVMBuilderRef b, const char *name,
                            LLVMTypeRef ret, LLVMValueRef *args, unsigned n);
LLVMValueRef zy_omp_gtid(LLVMBuilderRef b, LLVMValueRef loc);

/* How a body parameter travels through __kmpc_fork_call (pointer-sized
 * words): a float as the integer of its bits; and `v` bitcast to `t`
 * (itself when of that type). */
LLVMTypeRef zy_omp_fork_word(LLVMTypeRef t);
LLVMValueRef zy_omp_bitcast_to(LLVMBuilderRef b, LLVMValueRef v,
                               LLVMTypeRef t);

/* Whether `call` is a parallel region made by zy_omp_prepare; its source
 * location (ident_t*) and the body as the program forked it. */
int zy_omp_is_region(LLVMValueRef call);
LLVMValueRef zy_omp_region_loc(LLVMValueRef call);
LLVMValueRef zy_omp_region_forked(LLVMValueRef call);

/* Whether `g`'s function may be run by several threads at once: the body
 * of a parallel region, or a function it calls. */
int zy_parallel_context(const struct ZyGen *g);

/* Check step: the OpenMP constructs in g's primal that are refused
 * (tasks, ordered, target, user-defined reductions, ...); 0 or -1 after
 * an error. */
int zy_omp_check(struct ZyGen *g);

/* Forward sweep: the copy of region `call` (a fork of the body, or of the
 * augmented forward of the body, which keeps one tape per thread). */
int zy_omp_forward_region(struct ZyGen *g, LLVMValueRef call);

/* Reverse sweep: the reverse of region `call` (a fork of the reverse of
 * the body, with as many threads as the forward had, each reading its own
 * tape), and the reverse of barriers and locks.  0 or -1 after an error. */
int zy_omp_reverse_region(struct ZyGen *g, LLVMValueRef call);
int zy_omp_reverse_needed(LLVMValueRef inst);
int zy_omp_reverse_sync(struct ZyGen *g, LLVMValueRef call);

/* Forward mode (openmp_tangent.c): the tangent of region `call`, a fork
 * of the tangent function of the body (its tangents and shadows passed
 * after its arguments), or of the body as it was when no tangent reaches
 * it.  0 or -1 after an error. */
int zy_omp_tangent_region(struct ZyGen *g, LLVMValueRef call);

/* --- Privatized shadows (privatize.c) ------------------------------------ */

struct ZyLoop;

/* Before the sweeps: the reads of worksharing loops whose adjoints go to
 * a per-thread buffer (memory every iteration may read; stores in the loop
 * that may write it are compared at run time).  The hooks: the forward
 * tracks the range of shadow addresses read, and of the primal addresses
 * read and stored when a store may hit them (zy_priv_forward_access after
 * each copied instruction; initialised at the end of the loop's
 * preheader, read at the start of its exit block); the reverse allocates
 * the buffer where it enters the loop (none if the ranges met) and adds it
 * to the shadow atomically where it leaves it.  The accumulation strategy
 * "privatized" (zy_parallel_register): zy_priv_applies says whether `p`
 * is privatized for `delta`'s type (making the buffer's slots on first
 * use), zy_priv_accumulate adds to the buffer, or atomically to the
 * shadow when there is none. */
void zy_priv_plan(struct ZyGen *g);
void zy_priv_free(struct ZyGen *g);
void zy_priv_forward_block_end(struct ZyGen *g, LLVMBasicBlockRef bb);
void zy_priv_forward_block_begin(struct ZyGen *g, LLVMBasicBlockRef bb);
void zy_priv_forward_access(struct ZyGen *g, LLVMValueRef load);
void zy_priv_reverse_enter(struct ZyGen *g, LLVMBasicBlockRef bb,
                           LLVMBasicBlockRef pred);
void zy_priv_reverse_leave(struct ZyGen *g, struct ZyLoop *l);
int zy_priv_applies(struct ZyGen *g, LLVMValueRef p, LLVMValueRef delta);
void zy_priv_accumulate(struct ZyGen *g, LLVMValueRef p, LLVMValueRef shadow,
                        LLVMValueRef delta);

/* Whether loop `l` of g's primal is a worksharing loop: its induction
 * variable runs over the iterations a worksharing call handed to this
 * thread. */
int zy_parallel_worksharing(struct ZyGen *g, struct ZyLoop *l);

/* --- Ownership of shadow memory ----------------------------------------- */

/* How an adjoint is added to the shadow of the memory at primal pointer
 * `p` in gradient `g` (a ZyAccKind): plain where only this thread can
 * reach it, atomic otherwise.  The last accumulation strategy,
 * "ownership", adds so. */
int zy_parallel_acc_kind(struct ZyGen *g, LLVMValueRef p);

/* Adds `delta` to `shadow`, the shadow of primal pointer `p`, as
 * zy_parallel_acc_kind says; an atomic add in the reverse of a split
 * gradient run by OpenMP threads is made only when an active parallel
 * region encloses it (`omp_get_active_level()`, asked once per call of the
 * reverse), a plain one otherwise.  The "ownership" strategy. */
void zy_parallel_owned_add(struct ZyGen *g, LLVMValueRef p, LLVMValueRef shadow,
                           LLVMValueRef delta);

/* Registers the parallel runtimes with the engine (once, at start-up,
 * abi/driver.c; register.c): the functions of this header that the
 * engine calls (ZyParallel, runtime.h), the adjoint and tangent of warp
 * shuffles (ZY_CALL_SHUFFLE) and the accumulation strategies, in the order they
 * are asked: privatized, device, ownership. */
void zy_parallel_register(void);

/* Whether no instruction of the gradient's primal other than loads of
 * `p` itself may read floats in memory overlapping `p` or hand it to a
 * call (then no other iteration or thread adds to its shadow through this
 * function). */
int zy_parallel_sole_reader(struct ZyGen *g, LLVMValueRef p);

/* --- Per-target builders for device code (gpu_target.c) ------------------ */

/* What device-code generation builds differently for nvptx and amdgcn;
 * every builder inserts at `b` in module `m`, integers are i32 unless
 * said. */
typedef struct ZyGpuTarget {
  const char *name;   /* the triple's start */
  /* 5: warps of 32; 6: wavefronts of 64 (the shuffle tree's first step
   * is 2^(warp_log2 - 1); in a wavefront of 32 that step adds 0). */
  unsigned warp_log2;
  /* The thread's number in its block along `dim` (0-2), or with `size`
   * the block's size along it. */
  LLVMValueRef (*thread)(LLVMBuilderRef b, LLVMModuleRef m, int size, int dim);
  LLVMValueRef (*lane)(LLVMBuilderRef b, LLVMModuleRef m);
  /* The lanes of the warp here (activemask: i32; the exec mask: i64). */
  LLVMValueRef (*present)(LLVMBuilderRef b, LLVMModuleRef m);
  /* Lane `lane` + `off`'s i32 `v`, among the lanes of `mask` (present). */
  LLVMValueRef (*down)(LLVMBuilderRef b, LLVMModuleRef m, LLVMValueRef mask,
                       LLVMValueRef lane, LLVMValueRef v, int off);
  void (*barrier)(LLVMBuilderRef b, LLVMModuleRef m); /* __syncthreads */
  /* i1: the launch is one-dimensional (one block row, one grid row). */
  LLVMValueRef (*one_dim)(LLVMBuilderRef b, LLVMModuleRef m);
  /* i32: the launch's bytes of dynamic (`extern`) shared memory. */
  LLVMValueRef (*dynamic_shared)(LLVMBuilderRef b, LLVMModuleRef m);
  /* Whether primal value `v` is a block or grid size (uniform). */
  int (*uniform)(LLVMValueRef v);
} ZyGpuTarget;

/* The builders for module `m`'s target; NULL outside device code. */
const ZyGpuTarget *zy_gpu_target(LLVMModuleRef m);

/* Whether `call` is inlined into the function to differentiate before
 * the pre-AD pipeline: a shuffle wrapper (zy_gpu_shuffle_wrapper) or one
 * of HIP's thread-coordinate accessors (calls at -O0), so that thread
 * numbers are seen as such. */
int zy_gpu_wrapper(LLVMValueRef call);

/* --- Accumulation in device code (gpu_accumulate.c) ---------------------- */

/* The accumulation strategy "device" (zy_parallel_register): applies in
 * a module for a GPU; adds `delta` to `shadow`, the shadow of primal
 * pointer `p`, the way the location's sharing among threads allows (plain,
 * warp reduction then one atomic, or atomic). */
int zy_gpu_acc_applies(struct ZyGen *g, LLVMValueRef p, LLVMValueRef delta);
void zy_gpu_accumulate(struct ZyGen *g, LLVMValueRef p, LLVMValueRef shadow,
                       LLVMValueRef delta);

/* The primal block whose reverse the builder of `g` is in (also in a
 * block made by device-code accumulation or shuffles), or NULL. */
LLVMBasicBlockRef zy_gpu_reversed_block(struct ZyGen *g);

/* At the end of the reverse sweep (before the gradient's return): adds
 * the per-thread sums of the adjoints deferred there to their shadows. */
void zy_gpu_finish(struct ZyGen *g);

/* --- Warp shuffles (gpu_shuffle.c) ---------------------------------------- */

/* The mode + 1 (idx, up, down, bfly; HIP: a float or double __shfl*
 * wrapper, or ds.bpermute of a float's bits) of a shuffle of floats that
 * is differentiated (llvm.nvvm.shfl.sync.<mode>.f32, the double shuffles
 * zymase.shfl.sync.<mode>.f64 that zy_gpu_shuffle_fuse makes, HIP's
 * float/double __shfl* overloads, zymase.bpermute.f32/.f64); 0 for any
 * other function. */
int zy_gpu_shuffle_mode(LLVMValueRef f);
/* Whether `call` calls a CUDA header's __shfl* wrapper with a body
 * (inlined before differentiation, so -O0 code shows the intrinsics);
 * HIP's float and double overloads are kept as calls. */
int zy_gpu_shuffle_wrapper(LLVMValueRef call);
/* In an nvptx function: the two i32 shuffles of a double's halves made
 * one call of zymase.shfl.sync.<mode>.f64; in an amdgcn one, the same for
 * ds.bpermute (zymase.bpermute.f64), and ds.bpermute of a float's bits
 * one call of zymase.bpermute.f32; returns how many. */
int zy_gpu_shuffle_fuse(LLVMValueRef fn);
/* The adjoint of an active shuffle `call` (result adjoint `d`): the
 * transposed exchange, added to the adjoint of its value operand. */
int zy_gpu_reverse_shuffle(struct ZyGen *g, LLVMValueRef call, LLVMValueRef d);
/* After activity: a located error where the bits of an active float
 * move between lanes by an integer shuffle that is not differentiated
 * (an i32 shuffle of a float's bits, HIP's amdgcn cross-lane moves). */
int zy_gpu_shuffle_check(struct ZyGen *g);
/* Forward mode (gpu_tangent.c): the copy of shuffle `call` and the same
 * shuffle of its value's tangent (the ZY_CALL_SHUFFLE runtime's
 * `tangent`). */
int zy_gpu_tangent_shuffle(struct ZyGen *g, LLVMValueRef call);

/* --- __shared__ memory and barriers (gpu_sync.c) ------------------------- */

/* Whether `inst` is a block or warp barrier, called again at the mirrored
 * point of the reverse sweep (zy_gpu_reverse_sync). */
int zy_gpu_reverse_needed(LLVMValueRef inst);
int zy_gpu_reverse_sync(struct ZyGen *g, LLVMValueRef call);
/* For global `gv` of the shared address space: sets `*shadow` to its
 * `__shared__` shadow, or for dynamic (extern) shared memory to the
 * generic pointer to its device heap shadow (zy_gpu_dynamic_shadow),
 * which the gradient zeroes on entry, and returns 0; returns nonzero (a
 * located error) where that cannot be done (no __syncthreads in the
 * function, split mode; dynamic shared memory with
 * -zymase-gpu-no-device-malloc).  Leaves `*shadow` NULL for other
 * globals. */
int zy_gpu_shared_shadow(struct ZyGen *g, LLVMValueRef gv, LLVMValueRef *shadow);
/* Whether global `gv` is __shared__ memory, whose shadow in vector
 * forward mode zy_gpu_shared_shadow makes one per lane for a static array
 * (`<name>.zymase_shadow.<lane>` after the first) and refuses for dynamic
 * (extern) shared memory. */
int zy_gpu_shared_lanes(LLVMValueRef gv);
/* Ends the gradient's entry block (builder `b`): allocates the dynamic
 * shared memory's shadow (zy_gpu_dynamic_alloc) and zeroes the shared
 * shadows between two barriers if there are any, then branches to
 * `next`. */
void zy_gpu_zero_shared(struct ZyGen *g, LLVMBuilderRef b,
                        LLVMBasicBlockRef next);

/* --- Dynamic (extern) __shared__ memory (gpu_dynamic_shared.c) ----------- */

/* Whether `v` is an `extern __shared__` array (a declaration in the
 * shared address space). */
int zy_gpu_dynamic_shared(LLVMValueRef v);
/* Before AD, in device clone `fn`: every dynamic shared global made one
 * (they are the same memory: alias analysis must see it), and shared-space
 * pointers into it made generic where they are used as addresses (loads,
 * stores, atomics, GEPs; HIP's optimizer infers the shared space), so that
 * their shadows, in device memory, are generic pointers too. */
void zy_gpu_dynamic_shared_prepare(LLVMValueRef fn);
/* After activity: a located error where a shared-space pointer into
 * dynamic shared memory holding derivatives is left (a select, phi, call
 * or store of one), whose shadow could not be had. */
int zy_gpu_dynamic_shared_check(struct ZyGen *g);
/* The generic pointer to the shadow of the dynamic shared memory (`gv`
 * one of its globals), loaded in the gradient's block zymase.dynshared,
 * made on first use; zy_gpu_dynamic_alloc fills it. */
LLVMValueRef zy_gpu_dynamic_shadow(struct ZyGen *g, LLVMValueRef gv);
/* The shadow of constant expression `c` (a GEP or cast) whose operand's
 * shadow is `base`, made once in block zymase.dynshared; NULL for a
 * pointer of another address space. */
LLVMValueRef zy_gpu_dynamic_shadow_expr(struct ZyGen *g, LLVMValueRef c,
                                        LLVMValueRef base);
/* At `b`, in the entry block after its first barrier: thread 0 allocates
 * the shadow (the launch's dynamic shared bytes rounded up to 8, through
 * zymase.gpu.cache.alloc) and stores it in a __shared__ slot; a barrier;
 * `b` then goes on in zymase.dynshared.  Returns the i64 count of 8-byte
 * words to zero. */
LLVMValueRef zy_gpu_dynamic_alloc(struct ZyGen *g, LLVMBuilderRef b);
/* Before the gradient's return: a barrier, then thread 0 frees the
 * shadow. */
void zy_gpu_dynamic_release(struct ZyGen *g);

#endif
