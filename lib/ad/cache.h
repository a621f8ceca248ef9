/* cache.h - the caching subsystem of the reverse sweep: the loops of the
 * primal and their per-iteration buffers (loops.c), what can be computed
 * again instead of cached (recompute.c), recurrences run again (replay.c)
 * and the minimum cut that chooses between caching and recomputing
 * (cacheplan.c).  The scheme is described at ZyLoop in ad/ad.h.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_CACHE_CACHE_H
#define ZY_CACHE_CACHE_H

#include "ad/ad.h"

/* loops.c: step 2, the loops of the primal (irreducible control flow is
 * refused); 0, or -1 after an error. */
int zy_loops_analyze(ZyGen *g);

/* The innermost loop holding primal block `bb`, or NULL; whether loop
 * `l` holds `bb`. */
ZyLoop *zy_loop_of(ZyGen *g, LLVMBasicBlockRef bb);
int zy_loop_contains(ZyGen *g, ZyLoop *l, LLVMBasicBlockRef bb);

/* Forward sweep hooks: after the phis of primal block `bb` (iteration
 * counters of a header, iteration numbers at a loop exit), and before its
 * terminator (buffer reservation in a preheader). */
void zy_loops_forward_begin(ZyGen *g, LLVMBasicBlockRef bb);
void zy_loops_forward_end(ZyGen *g, LLVMBasicBlockRef bb);
/* Adds the incoming values of the phis the hooks made. */
void zy_loops_forward_fixups(ZyGen *g);

/* Reverse sweep: on the way from the reverse of `bb` to the reverse of
 * its predecessor `pred`, sets the iteration numbers of the loops that
 * hold `pred` but not `bb`. */
void zy_loops_enter(ZyGen *g, LLVMBasicBlockRef bb, LLVMBasicBlockRef pred);

/* Forward value `fv` of a block of loop `l`, at the reverse builder
 * position: recomputed from the iteration number, or loaded from the
 * loop's buffer. */
LLVMValueRef zy_loops_reload(ZyGen *g, LLVMValueRef fv, ZyLoop *l);

/* Positions `b` where forward value `fv` is saved for the reverse sweep:
 * right after it, after the phis (and a loop header's counters). */
void zy_position_after(ZyGen *g, LLVMBuilderRef b, LLVMValueRef fv);

/* Adds a line about forward value `fv` to the cache report
 * (-zymase-print-cache): `how` says where it is kept. */
void zy_loops_report(ZyGen *g, LLVMValueRef fv, const char *how);
/* Adds a line about value `v` to the cache report: `what` is said of it. */
void zy_loops_report_note(ZyGen *g, LLVMValueRef v, const char *what);

/* recompute.c: whether the reverse sweep can compute primal value `v` (a
 * value of a loop iteration) again without caching anything for it; and
 * the same for the shadow of primal pointer `p` (then built at the
 * reverse builder position by zy_shadow_recompute). */
int zy_recomputable_free(ZyGen *g, LLVMValueRef v);
/* Whether instructions of opcode `op` are cheap and pure enough to be
 * computed again in the reverse sweep. */
int zy_cheap_opcode(LLVMOpcode op);
/* Whether call `v` may be made again in the reverse sweep: the user said
 * so (enzyme_shouldrecompute), not in split mode, and its forward value
 * is the call itself. */
int zy_call_recomputable(ZyGen *g, LLVMValueRef v);
/* Whether instruction `v` may be computed again in the reverse sweep from
 * its operands: a cheap opcode, `fdiv`, a pure arithmetic intrinsic
 * (fmuladd, fma, fabs, copysign, min/max, sqrt), or a recomputable call. */
int zy_cheap_value(ZyGen *g, LLVMValueRef v);
/* Whether `v` calls a pure arithmetic intrinsic (fmuladd, fma, fabs,
 * copysign, min/max, sqrt): a few cycles. */
int zy_arith_intrinsic(LLVMValueRef v);
/* Whether math library calls of loop iterations are computed again
 * rather than cached: -zymase-recompute-math where given, else in device
 * code only. */
int zy_recompute_math(ZyGen *g);
/* Whether `v` is a math library call with a derivative rule and only
 * floating-point arguments and result, recomputed like arithmetic (with
 * zy_recompute_math, or logged: zy_mathlog_mode). */
int zy_math_call(ZyGen *g, LLVMValueRef v);
/* Whether nothing in the function writes the memory `load` reads (in any
 * iteration) once the load has run (frees deferred by zy_free_deferred
 * do not count), so loading again in the reverse sweep gives its value. */
int zy_load_unchanged(ZyGen *g, LLVMValueRef load);
/* Whether the reverse sweep may load again what `load` read: nothing of
 * the function writes it once loaded (zy_load_unchanged) and, in split
 * mode, nothing of the callers either (its pointer is based on an argument
 * the caller declared stable: ZySig.stable_args). */
int zy_load_recomputable(ZyGen *g, LLVMValueRef load);
/* For a call the forward sweep makes in split mode: bit k set when the
 * memory argument k points into is not written between the call and the
 * reverse of the call: it is based on an argument of this gradient that
 * is stable in turn (or any argument, for a gradient that is not split:
 * the user's memory does not change during it) and nothing of this
 * function that runs after the call writes it.  Not in device code,
 * where other threads may write it meanwhile. */
unsigned long long zy_stable_args(ZyGen *g, LLVMValueRef call);
/* For the call of an OpenMP region's body (split) in a gradient that is
 * not split and runs on one thread (region_stable.c): bit k set when the
 * memory argument k points into (the user's memory, a local of the
 * caller, a block it allocates) is not written by the caller between the
 * region's forward and its reverse; *deep bit k when, besides, argument k
 * is a local that the caller only loads from and stores pointers to
 * memory of that kind into (a shared pointer captured by reference);
 * *own bit k when argument k is a local of the caller that only this
 * argument of region calls reaches (ZySig.own_args). */
unsigned long long zy_region_stable_args(ZyGen *g, LLVMValueRef call,
                                         unsigned long long *deep,
                                         unsigned long long *own);
/* (split, parallel) Whether the reverse of a region body may load again
 * what `load` read: its pointer is based on a stable parameter, or on a
 * pointer loaded from a deep-stable one, and no instruction of the body
 * writes it (nor the loaded pointer). */
int zy_region_load_recomputable(ZyGen *g, LLVMValueRef load);
/* Whether the forward sweep leaves out `call`, a lifetime marker in a
 * gradient that is not split and calls an OpenMP region: the region's
 * reverse may load the caller's locals again after their scope ended. */
int zy_region_drops_lifetime(ZyGen *g, LLVMValueRef call);
/* The cache report's last line for the body of an OpenMP region: its
 * tape per thread, the bytes kept once and those of each loop's
 * iteration (region_stable.c). */
void zy_loops_report_tape(ZyGen *g);
int zy_shadow_recomputable(ZyGen *g, LLVMValueRef p);
LLVMValueRef zy_shadow_recompute(ZyGen *g, LLVMValueRef p);
/* The index (in zy_preds) of the predecessor the forward sweep entered
 * loop block `bb` (in split mode, any block) from, recomputed from the
 * branch that decided it, or NULL when that cannot be done without a
 * cache (a tape slot). */
LLVMValueRef zy_recompute_pred(ZyGen *g, LLVMBasicBlockRef bb);

/* An induction variable `phi` (start + step * iteration): its start
 * value, or NULL when `phi` is not one; and its value at the reverse
 * builder position given the start's value there. */
LLVMValueRef zy_affine_start(ZyGen *g, LLVMValueRef phi);
/* A phi of a loop iteration that merges the two sides of a branch whose
 * condition, and both incoming values, the reverse sweep computes again
 * without a cache (and without loads the branch may guard): the
 * condition and the value of each side; it is recomputed as a select. */
int zy_phi_branch(ZyGen *g, LLVMValueRef phi, LLVMValueRef *cond,
                  LLVMValueRef *if_true, LLVMValueRef *if_false);
LLVMValueRef zy_affine_rebuild(ZyGen *g, LLVMValueRef phi,
                               LLVMValueRef start);

/* cacheplan.c: a lookup of primal `v` (a value of a loop iteration)
 * deferred until every lookup is known: a placeholder, replaced by
 * zy_plan_finish by a reload or a recomputation chosen by a minimum cut
 * over all of them. */
LLVMValueRef zy_plan_defer(ZyGen *g, LLVMValueRef v);
void zy_plan_finish(ZyGen *g);
/* The value of primal `v` at the reverse builder position, as planned. */
LLVMValueRef zy_plan_value(ZyGen *g, LLVMValueRef v);

/* The most iterations loop `l` runs per entry (`nest` 0) or in one call
 * (`nest` 1: the product over the loops around it) when each has a
 * compile-time bound (a constant trip count or scalar evolution's
 * constant maximum), else 0. */
unsigned long long zy_loop_bound(ZyLoop *l, int nest);
/* Makes `slot` hold a fixed-size buffer of `n` elements of type `t` in
 * the gradient's entry block (the target's alloca address space, held as
 * a generic pointer). */
void zy_loops_stack_buffer(ZyGen *g, LLVMValueRef slot, LLVMTypeRef t,
                           unsigned long long n);
/* share.c: recomputed values built once per reverse iteration.  The
 * dominators of the gradient and the reverse blocks of each loop's
 * iterations; zy_share_target is the reverse block at whose start primal
 * `v`, needed in reverse blocks `blocks`, is built for all of them (its
 * depth in the dominator tree in *depth), or NULL; zy_share_add records a
 * value built at the start of block `at`; zy_share_find is one that holds
 * in block `at` (same iteration, dominating), or NULL. */
typedef struct ZyShare ZyShare;
ZyShare *zy_share_new(ZyGen *g);
void zy_share_free(ZyShare *s);
LLVMBasicBlockRef zy_share_target(ZyShare *s, ZyGen *g, LLVMValueRef v,
                                  ZyVec *blocks, int *depth);
void zy_share_add(ZyShare *s, LLVMValueRef v, LLVMBasicBlockRef at,
                  LLVMValueRef r);
LLVMValueRef zy_share_find(ZyShare *s, ZyGen *g, LLVMValueRef v,
                           LLVMBasicBlockRef at);

/* replay.c: whether header phi `phi` is a recurrence computed by cheap
 * operations from itself and values from outside its loop, which the
 * reverse sweep can run again instead of caching it; the values from
 * outside it needs (start value first).  zy_replay_mark leaves, where the
 * reverse enters loop `l`, a block for the replay; zy_replay_emit fills
 * those for the phis `planned` says are recomputed; zy_replay_value is
 * a replayed phi's value at the reverse builder position, or NULL. */
int zy_replayable(ZyGen *g, LLVMValueRef phi);
void zy_replay_sources(ZyGen *g, LLVMValueRef phi, ZyVec *out);
void zy_replay_mark(ZyGen *g, ZyLoop *l);
void zy_replay_emit(ZyGen *g, int (*planned)(ZyGen *, LLVMValueRef));
LLVMValueRef zy_replay_value(ZyGen *g, LLVMValueRef phi);

/* region.c: whether `phi` (of a loop iteration, at the merge of a branch
 * region: both sides of a branch, inner loops) is computed again by
 * running its region again (pure, its loads of memory nothing writes
 * after; device code only); the values from outside the region it uses;
 * its value at the reverse builder position (a call of a copy of the
 * region); zy_region_free inlines those calls once the plan is built. */
int zy_region_phi(ZyGen *g, LLVMValueRef phi);
void zy_region_sources(ZyGen *g, LLVMValueRef phi, ZyVec *out);
LLVMValueRef zy_region_value(ZyGen *g, LLVMValueRef phi);
void zy_region_free(ZyGen *g);

/* memsnap.c: whether load `v` (of a loop iteration) reads a small local
 * array that nothing writes while its loop runs, so that the reverse may
 * read it from a copy kept per iteration of the enclosing loop (device
 * code only); its value at the reverse builder position given its
 * recomputed pointer `p`; the copies' records freed. */
int zy_memsnap_load(ZyGen *g, LLVMValueRef v);
LLVMValueRef zy_memsnap_value(ZyGen *g, LLVMValueRef v, LLVMValueRef p);
void zy_memsnap_free(ZyGen *g);

/* log.c: a log of loop `l`'s `values` (one buffer each, indexed by the
 * iteration's index in the call), grown where the loop's buffers grow up
 * to `mb` MiB per loop and written while `on` (1 while every growth
 * site's need of room fits in `size` elements, 0 once one does not);
 * `cap` is the elements allocated, `need` the largest need so far; all
 * i64 slots named after `name`.  zy_log_new makes one, hooked at the
 * loop's growth sites
 * (`*header`, when not NULL, is a block of the header's growth site
 * after the growth, for the caller's stores), or returns 0 where logs are
 * not wanted (device code, nested AD, `mb` 0) or too small.  zy_log_held
 * is, at g->b, whether the log holds every iteration of the call (read
 * it, else compute again); zy_log_free frees the buffers at the end of
 * the reverse sweep and the log's vectors.  zy_log_branch_off ends
 * forward block `at` (which branches to *cont) at g->b and returns a new
 * block `name` of the forward sweep to branch to instead. */
typedef struct ZyLog {
  LLVMValueRef cap, on, need;
  unsigned long long size;
  ZyVec slots, types;
} ZyLog;
int zy_log_new(ZyGen *g, ZyLoop *l, ZyVec *values, unsigned mb,
               const char *name, ZyLog *lg, LLVMBasicBlockRef *header);
LLVMValueRef zy_log_held(ZyGen *g, ZyLog *lg);
void zy_log_free(ZyGen *g, ZyLog *lg);
LLVMBasicBlockRef zy_log_branch_off(ZyGen *g, LLVMBasicBlockRef at,
                                    const char *name, LLVMBasicBlockRef *cont);

/* mathlog.c: math calls recomputed by the plan, logged by the forward
 * sweep while they fit.  zy_mathlog_mode: whether this gradient logs them
 * (-zymase-math-log-mb, not with -zymase-recompute-math, in split mode,
 * nested AD or device code); zy_mathlog_emit makes the logs of the calls
 * `planned` says are recomputed and their forward stores; zy_mathlog_read
 * is, at the reverse builder, call `v`'s value read back or computed
 * again (NULL when it has no log); zy_mathlog_free frees the logs at the
 * end of the reverse sweep. */
int zy_mathlog_mode(ZyGen *g);
void zy_mathlog_emit(ZyGen *g, int (*planned)(ZyGen *, LLVMValueRef));
LLVMValueRef zy_mathlog_read(ZyGen *g, LLVMValueRef v);
void zy_mathlog_free(ZyGen *g);

/* Forward sweep, after both sweeps: a block inserted after growth site
 * `k` of loop `l` (in l->sites), ending with a branch to the site's
 * continuation; `*need` is the site's i64 need of room, or NULL (a
 * header whose trip count is reserved before the loop), `*header`
 * whether it is the header's site, run at every iteration. */
LLVMBasicBlockRef zy_loops_site_hook(ZyGen *g, ZyLoop *l, size_t k,
                                     LLVMValueRef *need, int *header);

/* At g->b's position: reallocates the buffer in each slot
 * of `slots` to `n` elements of the matching type in `types`; in device
 * code (no realloc there) a new buffer, where the first `keep` elements
 * are copied (none when `keep` is NULL), the old one freed unless it is
 * the matching local-memory buffer of `locals` (NULL: none). */
void zy_loops_realloc(ZyGen *g, ZyVec *slots, ZyVec *types, LLVMValueRef n,
                      LLVMValueRef keep, ZyVec *locals);

/* The first instruction of `bb` with a source location, else its
 * terminator: where errors about a block point. */
LLVMValueRef zy_block_located(LLVMBasicBlockRef bb);

/* gpu_buffers.c: device gradients.  ZY_GPU_NVPTX or ZY_GPU_AMDGCN for a
 * module of that target, else 0. */
enum { ZY_GPU_NVPTX = 1, ZY_GPU_AMDGCN = 2 };
int zy_gpu_device_kind(LLVMModuleRef m);
/* Whether a cache of `bytes` per thread (0: no compile-time bound) gets a
 * fixed-size buffer in local memory: within -zymase-gpu-local-cache-bytes
 * for all of the gradient's such buffers (counted here), not in split
 * mode. */
int zy_gpu_local_buffer(ZyGen *g, unsigned long long bytes);
/* Where loop `l` of a device gradient needs device malloc: 0, or -1 after
 * the located error of -zymase-gpu-no-device-malloc (once per loop). */
int zy_gpu_heap_check(ZyGen *g, ZyLoop *l);
/* At g->b: the buffer in `slot` (elements of type `t`) replaced by one
 * of `n` elements from the device heap, the first `keep` (or none when
 * NULL) copied over, the old one freed unless it is `local` (the
 * local-memory buffer it started in, or NULL); a full heap traps. */
void zy_gpu_grow(ZyGen *g, LLVMValueRef slot, LLVMTypeRef t, LLVMValueRef n,
                 LLVMValueRef keep, LLVMValueRef local);
/* After both sweeps, for the loops of a device gradient whose caches come
 * from the device heap (no compile-time bound within the local budget):
 * each starts in fixed-size buffers in local memory of as many
 * iterations as the budget -zymase-gpu-local-cache-bytes has left
 * (shared among those loops; at least 4), its capacity slot `cap` says
 * so, and the heap is called only for a nest that runs more iterations
 * (l->locals).  Called before the loops' growth checks are made. */
void zy_gpu_local_start(ZyGen *g);
/* At `b`: frees buffer `p` of the device heap unless it is `local` (or
 * NULL: always). */
void zy_gpu_free_unless(ZyGen *g, LLVMBuilderRef b, LLVMValueRef p,
                        LLVMValueRef local);
/* At `b`: `bytes` (i64) from the device heap, through the module's one
 * helper zymase.gpu.cache.alloc; a full heap traps, on nvptx after CUDA's
 * assert prints `message`. */
LLVMValueRef zy_gpu_alloc(ZyGen *g, LLVMBuilderRef b, LLVMValueRef bytes,
                          const char *message, const char *name);
/* Frees a device heap buffer (or NULL) at `b`. */
void zy_gpu_free(ZyGen *g, LLVMBuilderRef b, LLVMValueRef p);

/* scopes.c: marks load or store `inst` as an access of a cache buffer;
 * after both sweeps, gives those the alias scope of the caches and every
 * other load and store of the gradient !noalias of it. */
void zy_cache_access(ZyGen *g, LLVMValueRef inst);
void zy_cache_scopes(ZyGen *g);

/* After both sweeps: buffer growth in the forward, frees at the end of
 * the reverse, the cache report. */
void zy_loops_finish(ZyGen *g);
void zy_loops_free(ZyGen *g);

#endif
