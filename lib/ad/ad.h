/* ad.h - the reverse-mode AD engine's internal interface: the per-module
 * context, the per-gradient generator state, and the sweeps.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_AD_AD_H
#define ZY_AD_AD_H

#include <llvm-c/Core.h>

#include "analysis/activity.h"
#include "analysis/types.h"
#include "llvm/glue.h"
#include "support/diag.h"
#include "support/vec.h"

/* What is differentiated about one function: which arguments are active,
 * whether its return value is.  One gradient is generated per distinct
 * (function, signature) and reused. */
typedef struct ZySig {
  unsigned long long active_args; /* bit i: argument i is active        */
  unsigned long long dup_args;    /* bit i: pointer argument i has a
                                     shadow, passed after the arguments */
  int active_ret;                 /* the return value carries an adjoint */
  int dup_ret;                    /* (split) the returned pointer's shadow
                                     is returned too                    */
  int split; /* an augmented forward function and a reverse function,
                instead of one gradient that recomputes the forward */
  int nofree; /* (split) the reverse frees neither the tape nor the loop
                 caches it holds; its tape is that of the pair without
                 nofree                                                 */
  int parallel; /* run by several threads at once (the body of an OpenMP
                   region, or a function it calls): adjoints are added to
                   shared shadow memory atomically (parallel/ownership.c) */
  int inline_tape; /* (split) the tape is not a heap block: the augmented
                      forward writes it to memory the caller gives (its
                      last parameter), the reverse reads it from there
                      and frees nothing of it (Enzyme's enzyme_allocated
                      without enzyme_tape: the tape by value)        */
  unsigned long long stable_args; /* (split) bit i: nothing writes the
                   memory pointer argument i reaches between the augmented
                   forward and the reverse, so the reverse may load from it
                   again instead of caching (cache/recompute.c) */
  unsigned long long stable_deep; /* (split, OpenMP region body) bit i:
                   the memory that the pointers stored in argument i's
                   memory point into is not written either (a shared
                   variable captured by reference: ad/region_stable.c) */
  unsigned long long own_args;    /* (split, OpenMP region body) bit i:
                      argument i points to a local of the caller that no
                      other argument and no stored pointer reaches, so that
                      writes through it reach nothing the others reach */
  unsigned width; /* directions carried at once (enzyme_width): in
                     forward mode every tangent and shadow is passed,
                     kept and returned `width` times; in reverse mode
                     every shadow, return adjoint and argument adjoint
                     (vector reverse mode); 0 stands for 1              */
} ZySig;

/* Per-module state. */
typedef struct ZyModule {
  LLVMModuleRef mod;
  LLVMContextRef ctx;
  ZyVec grads; /* ZyGradEntry*: generated gradients, for reuse */
  ZyMap global_shadows; /* mutable global -> its shadow global */
  ZyVec split_uses; /* (abi) the lowered split-mode calls, to check that
                       forward and reverse passes pair up              */
  ZyMap caller_seeds; /* (abi) caller -> what its type analysis says about
                         the operands of its entry-point calls (seeds.c) */
  int nested_ad; /* (abi) some gradient is itself differentiated: no
                    gradient keeps loop buffers across calls (loops.c)  */
} ZyModule;

/* A gradient function.  Its parameters are the primal's, then the shadows
 * of the dup arguments in order, then the adjoint of the return value when
 * sig.active_ret; it returns a literal
 * struct holding the adjoints of the active arguments in order (or void
 * when there are none). */
typedef struct ZyGradEntry {
  LLVMValueRef fn;   /* the user's function                             */
  ZySig sig;
  LLVMValueRef grad; /* the gradient, or (split) the augmented forward  */
  LLVMValueRef rev;  /* (split) the reverse function                    */
  ZyTT *seeds;       /* (split) a copy of the seeds it was made with    */
  unsigned nseeds;
  unsigned long long tape_bytes, tape_align; /* (sig.inline_tape) the
                        memory the tape needs: size and alignment       */
  int failed;
} ZyGradEntry;

/* Frees an entry of ZyModule.grads. */
void zy_gradient_entry_free(ZyGradEntry *e);

/* Split mode.  The augmented forward function takes the primal's
 * parameters and the dup shadows, runs the primal with its shadows, and
 * returns { result (if not void), its shadow (if sig.dup_ret), ptr tape };
 * the reverse function takes the same parameters, the return adjoint when
 * active, and the tape, and returns the adjoints of the active arguments
 * (and frees the tape unless sig.nofree).  With sig.inline_tape the
 * augmented forward returns no tape but takes one more parameter, a
 * pointer to memory of zy_gradient_tape_layout's size and alignment that
 * it writes the tape to; the reverse reads it there and frees nothing of
 * it.  A nofree pair is made with the seeds of the pair without nofree,
 * so that its reverse reads the tape that pair's forward writes. */
int zy_gradient_split(ZyModule *zm, LLVMValueRef fn, ZySig sig,
                      const ZyTT *seeds, LLVMValueRef *aug, LLVMValueRef *rev);

/* The size and alignment of the tape of the split pair whose augmented
 * forward is `aug` (made with sig.inline_tape). */
void zy_gradient_tape_layout(ZyModule *zm, LLVMValueRef aug,
                             unsigned long long *bytes,
                             unsigned long long *align);

/* Returns the gradient of `fn` for `sig`, generating it on first request
 * (recursion is fine: the entry exists before its body).  `seeds` (may be
 * NULL) gives, per parameter, what the first call site knows about the
 * argument's types.  NULL after an error has been reported. */
LLVMValueRef zy_gradient(ZyModule *zm, LLVMValueRef fn, ZySig sig,
                         const ZyTT *seeds);

/* The struct type a gradient returns for `fn` and `sig` (void if empty). */
LLVMTypeRef zy_gradient_return_type(LLVMValueRef fn, ZySig sig);

/* --- State of one gradient under construction --------------------------- */

/* One loop of the primal (loop-simplified: a preheader, one latch,
 * dedicated exits; LCSSA) and what the sweeps keep for it.  The forward
 * sweep numbers every execution of the header: `count` is how many there
 * have been so far in this call, and the values of one iteration that the
 * reverse sweep needs are cached at that index, in buffers grown when
 * `count` reaches their capacity (or reserved in the preheader when the
 * trip count is known there).  The reverse sweep runs the iterations
 * backwards, decrementing `count` at each header, so the index of the
 * iteration being reversed is always `count - 1`; `rc` is that iteration's
 * number within its entry into the loop, set when the reverse sweep
 * enters the loop through an exit and counted down to 0, where it leaves
 * the loop to the preheader. */
typedef struct ZyLoop {
  struct ZyLoop *parent;
  int depth;                  /* 1 for an outermost loop                */
  LLVMBasicBlockRef header, preheader, latch; /* primal                  */
  LLVMValueRef trip;          /* primal i64 bound of the trip count, or
                                 NULL                                   */
  int trip_exact;             /* ... exact, and the latch the only exit */
  LLVMValueRef nest_trip;     /* primal i64 bound of the iterations over
                                 the enclosing nest, reserved at the end
                                 of primal block nest_at, or NULL       */
  LLVMBasicBlockRef nest_at;
  LLVMValueRef iv;            /* forward: iteration number in the entry */
  LLVMValueRef idx;           /* forward: index of the iteration        */
  LLVMBasicBlockRef body;     /* forward: the header's code after the
                                 counters and the growth check          */
  LLVMValueRef count, rc, cap;/* i64 slots (see above)                  */
  ZyVec bufs;                 /* slots holding the buffers' pointers    */
  ZyVec btypes;               /* ... and their element types            */
  ZyVec locals;               /* (device) ... and the local-memory
                                 buffers they start in, or none         */
  ZyVec sites;                /* ZyGrowSite*: where buffers grow        */
  ZyVec replays;              /* reverse blocks entering the loop, where
                                 recurrences are replayed (replay.c)    */
  int replay_known, replay_any; /* whether a header phi is replayable   */
  LLVMValueRef replay_cap;    /* i64 slot: capacity of the scratch      */
  ZyVec replay_locals;        /* (device) local buffers it starts in    */
  unsigned long long max_trip;/* compile-time bound of the trip count, 0 */
  int heap_refused;           /* (device) its error was reported        */
  LLVMBasicBlockRef rdone;    /* reverse: where the reverse of the loop
                                 goes after its first iteration         */
} ZyLoop;

typedef struct ZyGen {
  ZyModule *zm;
  LLVMValueRef user;   /* the user's function, for names and errors      */
  LLVMValueRef primal; /* its preprocessed clone, which is differentiated */
  LLVMValueRef grad;   /* the gradient being built                       */
  ZySig sig;
  ZyActivity *act;
  ZyTypes *types;      /* type analysis of the primal                    */
  const ZyTT *seeds;   /* argument types known at the first call site    */
  ZyDomTree *dt;       /* dominators of the primal                        */
  ZyVec order;         /* reachable primal blocks, reverse post-order    */
  ZyMap reachable;     /* primal blocks reachable from the entry         */
  ZyVec rets;          /* primal blocks ending in `ret`                  */
  ZyMap preds;         /* primal block -> ZyVec* of distinct preds       */
  ZyMap domrets;       /* primal blocks that dominate every `ret`        */
  ZyMap vmap;          /* primal value/block -> forward value/block      */
  ZyMap adjoint;       /* primal value -> alloca holding its adjoint      */
  ZyMap cache;         /* forward value -> alloca caching it for reverse */
  ZyMap rblock;        /* primal block -> its reverse block              */
  ZyMap predidx;       /* primal block -> forward phi naming the pred    */
  ZyMap shadow;        /* primal pointer -> its shadow in the forward    */
  LLVMBasicBlockRef allocas; /* gradient's entry block, holds the slots  */
  /* Split mode: every forward value the reverse uses goes through a slot
   * saved in the tape; the forward's returns lead to `rstart`, which
   * seeds the return adjoint of the return that was taken. */
  int split;
  ZyVec tape;          /* slots saved in the tape, in order              */
  unsigned long long tape_bytes, tape_align; /* its layout (zy_split)    */
  ZyVec ext_reallocs;  /* reallocs of memory from the caller: their old
                          shadows get the adjoints back at the end       */
  ZyVec ext_realloc_ran; /* ... and for each, an i1 slot set where the
                          reverse sweep reverses it (it may not run)     */
  ZyVec retblocks;     /* forward blocks that returned ...               */
  ZyVec retvals;       /* ... and the value each returned (or NULL)      */
  LLVMValueRef retslot;/* which return was taken                         */
  LLVMBasicBlockRef rstart;
  ZyMap sizes;         /* realloc'd primal pointer from phis -> its size */
  ZyMap tapes;         /* primal call -> forward value of its tape       */
  ZyMap blas;          /* primal BLAS call -> its ZyBlasCall* (blas.c)   */
  /* Loops (loops.c). */
  ZyLoopNest *nest;
  ZyLoop *loops;
  unsigned nloops;
  ZyMap loopof;        /* primal block -> innermost ZyLoop* holding it   */
  ZyMap loopiv;        /* forward iteration number -> its ZyLoop*        */
  ZyMap fend;          /* primal block -> forward block of its terminator */
  ZyVec fextra;        /* forward blocks that copy no primal block       */
  ZyMap exitivs;       /* primal exit block -> ZyVec* of (ZyLoop*, phi)
                          pairs: the iteration number each loop left at  */
  ZyVec fixups;        /* (phi, primal block) pairs: zymase phis whose
                          incoming values are added after the sweep      */
  ZyVec report;        /* char*: lines of the cache report               */
  ZyMap reported;      /* forward values already in the report           */
  ZyMap replayable;    /* header phi -> whether it is a recurrence to
                          replay (replay.c)                              */
  ZyMap replay;        /* replayed phi -> slot of its scratch buffer     */
  ZyMap cache_mem;     /* loads and stores of cache buffers (scopes.c)   */
  ZyMap recompute;     /* primal value -> whether it is recomputed       */
  ZyMap region;        /* merge phi -> its region, if recomputed by
                          running it again (region.c)                    */
  ZyVec memsnaps;      /* copies of local arrays kept per iteration of
                          an outer loop (memsnap.c)                      */
  ZyMap stable;        /* split call -> its ZySig.stable_args + 1        */
  int omp_caller;      /* the primal calls an OpenMP region: 2, not: 1,
                          not asked yet: 0 (region_stable.c)             */
  ZyAlias *alias;      /* alias analysis of the primal, made on demand   */
  int gpu_sites;       /* (device) how the gradient is called: see
                          gpu_accumulate.c, 0 until asked               */
  ZyVec gpu_deferred;  /* (device) primal pointers whose adjoints are
                          summed per thread and added at the end ...    */
  ZyMap gpu_sum;       /* ... pointer -> the thread's slot of the sum    */
  ZyVec gpu_shared;    /* (device) __shared__ shadows the gradient uses */
  LLVMValueRef gpu_dyn; /* (device) generic pointer to the shadow of the
                           dynamic __shared__ memory, or NULL ...        */
  LLVMBasicBlockRef gpu_dynblock; /* ... in this block after the entry */
  ZyMap gpu_dynexprs; /* ... constant expression on it -> its shadow    */
  unsigned long long gpu_local_bytes; /* (device) per-thread bytes of the
                          fixed-size loop caches (gpu_buffers.c)         */
  ZyMap gpu_join;      /* (device) reverse block made by an accumulation
                          -> the primal block it reverses               */
  ZyMap owned;         /* (parallel) primal pointer -> whether only this
                          thread reaches its memory (ownership.c)       */
  LLVMValueRef omp_alone; /* (parallel, split) i1 made at reverse.start:
                          no other OpenMP thread runs (ownership.c)     */
  ZyVec privs;         /* (parallel) ZyPriv*: privatized shadows ...     */
  ZyMap priv;          /* ... and primal pointer -> its ZyPriv*         */
  ZyVec dfrees;        /* (slot, primal free) pairs: zy_free_deferred   */
  ZyVec pending;       /* (placeholder, primal value) pairs: deferred
                          lookups of values of loop iterations           */
  ZyMap plan;          /* primal value -> cached or recomputed           */
  ZyMap mathlog;       /* recomputed math call -> its log entry (mathlog.c) */
  ZyVec mathlogs;      /* ZyLog*: the math calls' logs                   */
  LLVMValueRef retinst;/* the gradient's return (end of the reverse)     */
  LLVMBuilderRef b;    /* positioned in the reverse sweep                */
  LLVMValueRef cur;    /* primal instruction being reversed (for errors) */
  ZyMap tangent;       /* (forward mode) primal value -> its tangent     */
  int tangent_mode;    /* forward mode: constant globals' shadows are
                          zero constants, never the ones gradients add
                          their (unread) adjoints into                   */
  /* (width > 1) `tangent`, `shadow` and `adjoint` are those of lane
   * `lane`; lanes[3j], lanes[3j + 1] and lanes[3j + 2] keep lane j's
   * while another lane is current (tangent_lanes.c). */
  unsigned width, lane;
  ZyMap *lanes;
} ZyGen;

/* preprocess.c: step 1, the simplified clone to differentiate. */
LLVMValueRef zy_preprocess(LLVMValueRef fn);

/* snapshot.c: copies of the functions to differentiate taken before the
 * optimizer runs (see there).  zy_take_snapshot keeps one of `fn`;
 * zy_snapshot_of finds it (NULL if none); zy_snapshot_resolve points the
 * calls of clone `p` of a snapshot at real functions; zy_snapshot_inline
 * inlines into `p` what the optimizer inlined into `fn`;
 * zy_release_snapshots deletes the copies once every gradient is made. */
void zy_take_snapshot(LLVMValueRef fn);
LLVMValueRef zy_snapshot_of(LLVMValueRef fn);
/* The copy a gradient may read instead of `f`: f's snapshot, or for a
 * stand-in `g.zymase.ref`, g's snapshot; NULL if none. */
LLVMValueRef zy_snapshot_source(LLVMValueRef f);
void zy_snapshot_resolve(LLVMValueRef p);
/* When AD starts (after the registry is read): the stand-ins the copies
 * use become what they stand for: a call, the callee's copy (the function
 * itself when the program registered something for it); a named function
 * or global variable, the program's own (or the copy, or the stand-in
 * itself, when the optimizer deleted it). */
void zy_snapshot_bind(LLVMModuleRef m);
/* Whether copy `snap`, or a copy it calls, calls a function the program
 * registered something for (that the optimizer may have inlined into the
 * function `snap` copies). */
int zy_snapshot_calls_registered(LLVMValueRef snap);
/* Whether `f` is a stand-in `g.zymase.ref` (never run, never inlined). */
int zy_snapshot_stand_in(LLVMValueRef f);
/* For a copy `g.zymase.src`, the function g it copies (NULL for any other
 * function, or when g is gone). */
LLVMValueRef zy_snapshot_original(LLVMValueRef f);
void zy_snapshot_inline(LLVMValueRef p, LLVMValueRef fn);
void zy_release_snapshots(LLVMModuleRef m);

/* sizes.c: step 2b, integer phis carrying the byte size of memory that a
 * realloc resizes through pointer phis.  zy_allocation_size: the size
 * of the allocation `p` is (n, times m when m is set; n NULL for a null
 * pointer), from the call itself or from those phis; 0 if unknown. */
void zy_sizes_analyze(ZyGen *g);
int zy_allocation_size(ZyGen *g, LLVMValueRef p, LLVMValueRef *n,
                       LLVMValueRef *m);

/* punning.c: floating-point values moved through integers (loaded as
 * integers, bitcast, stored back) get their floating-point type back, so
 * that derivatives follow them; returns whether the primal changed (the
 * type analysis must then run again).  Needs g->types. */
int zy_punning_retype(ZyGen *g);

/* Warns where bits of a float changed by integer operations are read back
 * as a float that carries no derivative, and where the bits of a float
 * with a derivative are passed as an integer to a call the gradient does
 * not follow them into.  Needs g->act. */
int zy_punning_warn(ZyGen *g);

/* Step 1 (preprocess.c): each call of clone `p` that passes the bits of a
 * float (`bitcast double %x to i64`) to an integer parameter of a function
 * with a body (one not inlined: too large, or recursive) calls instead a
 * twin of the function, `<f>.zymase.float.<mask>`, whose parameter is the
 * float (the body inlined, the parameter's bits taken by a bitcast), so
 * that the derivative follows the bits into it. */
void zy_punning_float_params(LLVMValueRef p);

/* check.c: step 4 (flows of derivatives and memory operations the sweeps
 * handle); 0, or -1 after an error. */
int zy_check_supported(ZyGen *g);
/* inttoptr `i`: a located error unless its shadow can be built (0). */
int zy_check_int_to_ptr(ZyGen *g, LLVMValueRef i);

/* The distinct predecessors of primal block `bb`, in a fixed order. */
ZyVec *zy_preds(ZyGen *g, LLVMBasicBlockRef bb);

/* forward.c: copies the primal body into the gradient. */
int zy_forward_sweep(ZyGen *g);

/* reverse.c: emits the reverse blocks; returns 0 or -1. */
int zy_reverse_sweep(ZyGen *g);

/* The value of primal value `v` usable at the reverse builder's position:
 * constants as they are, forward values directly when they dominate the
 * reverse sweep, otherwise reloaded from a cache slot filled in the
 * forward sweep. */
LLVMValueRef zy_lookup(ZyGen *g, LLVMValueRef v);

/* A stack slot of type `t` in the gradient's entry block, zeroed there
 * when `zero`. */
LLVMValueRef zy_new_slot(ZyGen *g, LLVMTypeRef t, const char *name, int zero);

/* Forward value `fv` of primal block `pbb` at the reverse builder
 * position (directly, or reloaded from a cache slot). */
LLVMValueRef zy_reload(ZyGen *g, LLVMValueRef fv, LLVMBasicBlockRef pbb);

/* Adds `delta` to the adjoint of primal value `v` (no-op when `v` is not
 * active, e.g. a constant). */
void zy_add_adjoint(ZyGen *g, LLVMValueRef v, LLVMValueRef delta);

/* How an adjoint is added into memory by zy_accumulate.  Which applies to
 * shadow memory is chosen in one place, zy_accumulate_shadow, by the
 * accumulation strategies the runtimes register (runtime.h). */
typedef enum ZyAccKind {
  ZY_ACC_PLAIN,  /* load, add, store: memory private to this thread */
  ZY_ACC_ATOMIC, /* atomicrmw fadd: memory shared between threads   */
} ZyAccKind;

/* Adds `delta` to `shadow`, the shadow of the memory at primal pointer
 * `p`: the one place adjoints go into shadow memory, which asks the
 * accumulation strategies the runtimes registered (runtime.h,
 * zy_acc_strategy) which one applies; plain when none does. */
void zy_accumulate_shadow(ZyGen *g, LLVMValueRef p, LLVMValueRef shadow,
                          LLVMValueRef delta);
/* Emits `*ptr += delta` for a value of `delta`'s type (float, vector of
 * float, or aggregate of those; non-float members are left alone): the
 * primitive the strategies add with. */
void zy_accumulate(ZyGen *g, LLVMValueRef ptr, LLVMValueRef delta,
                   ZyAccKind kind);

/* shadow.c: after the forward copy of primal instruction `i` (the builder
 * is right after it), creates the shadow of what `i` defines or writes
 * (shadow pointers, shadow allocations, pointer stores).  0 or -1. */
int zy_shadow_forward(ZyGen *g, LLVMValueRef i);

/* The shadow of primal pointer `p` in the forward sweep (constants:
 * shadow globals; null: null). */
LLVMValueRef zy_shadow_forward_of(ZyGen *g, LLVMValueRef p);

/* Adds the incoming values of the shadows of primal phis `phis`. */
int zy_shadow_phis(ZyGen *g, ZyVec *phis);

/* The shadow of primal pointer `p`, usable at the reverse builder
 * position. */
LLVMValueRef zy_shadow_lookup(ZyGen *g, LLVMValueRef p);

/* Whether the shadow of alloca `a` is allocated on the heap. */
int zy_shadow_on_heap(ZyGen *g, LLVMValueRef a);

/* Whether `call` is posix_memalign. */
int zy_is_memalign(LLVMValueRef call);

/* Whether the allocation returned by `call` is freed (or realloc'd) in
 * this function; then its shadow is freed in the reverse sweep, else it
 * escapes to the caller with the primal. */
int zy_freed_here(LLVMValueRef call);

/* The one type every fact about `ptr`'s memory in [0, n) agrees on
 * (ZY_TY_UNKNOWN: no fact, ZY_TY_ANYTHING: they disagree), and the LLVM
 * type of a floating-point ZyTy. */
ZyTy zy_uniform_type(ZyGen *g, LLVMValueRef ptr, long long n);
LLVMTypeRef zy_ty_llvm(ZyGen *g, ZyTy t);

/* Frees shadow memory `s` of primal allocation `call` in the reverse
 * sweep (free, operator delete for new, the registered deallocator of a
 * registered allocator, or of the call freeing the block a function
 * returned).  Nonzero after an error. */
int zy_free_shadow(ZyGen *g, LLVMValueRef call, LLVMValueRef s);

/* Frees deferred to the end of the reverse sweep (as Enzyme does), so
 * the reverse sweep may read freed memory again instead of caching it:
 * whether primal call `call` is one (free or operator delete of one
 * pointer, in no loop, in a gradient that is not split); the forward
 * sweep's stand-in (the pointer kept in a slot, null until then); the
 * frees, where the gradient returns. */
int zy_free_deferred(ZyGen *g, LLVMValueRef call);
void zy_free_defer(ZyGen *g, LLVMValueRef call);
void zy_free_deferred_finish(ZyGen *g);

/* After the reverse sweep: for each realloc of memory from the caller,
 * the adjoints of the kept bytes move from the old shadow to the new one
 * (which the caller reaches), and the old shadow is freed. */
void zy_reverse_memory_finish(ZyGen *g);

/* Whether primal instruction `i` has work in the reverse sweep besides
 * an adjoint (stores and memory intrinsics on shadowed memory,
 * allocations whose shadow is freed). */
int zy_reverse_memory_needed(ZyGen *g, LLVMValueRef i);

/* reverse_calls.c: how a call is differentiated. */
typedef enum ZyCallMode {
  ZY_CALL_PLAIN,     /* copied as it is: nothing active reaches it      */
  ZY_CALL_RULE,      /* a math function with a rule                     */
  ZY_CALL_WRITER,    /* a math function with a rule that also writes
                        results through pointers (sincos, frexp, modf)   */
  ZY_CALL_MEMORY,    /* allocation, free, memcpy/memset: memory rules   */
  ZY_CALL_RECOMPUTE, /* gradient recomputing the callee (pure callee)   */
  ZY_CALL_SPLIT,     /* augmented forward call now, reverse call later */
  ZY_CALL_BLAS,      /* a BLAS routine: BLAS calls in the adjoint      */
  ZY_CALL_MPI,       /* an MPI call: adjoint communication (mpi.def)   */
  ZY_CALL_SHUFFLE,   /* a warp shuffle: the transposed exchange        */
} ZyCallMode;
ZyCallMode zy_call_mode(ZyGen *g, LLVMValueRef call);
ZySig zy_call_sig(ZyGen *g, LLVMValueRef call);

/* What the caller knows about the types of the call's arguments, as seeds
 * for the callee's type analysis; freed with zy_free_call_seeds. */
ZyTT *zy_call_seeds(ZyGen *g, LLVMValueRef call);
void zy_free_call_seeds(ZyTT *seeds, unsigned n);

/* The forward copy of a call in split mode (augmented forward call);
 * returns 0 or -1. */
int zy_forward_split_call(ZyGen *g, LLVMValueRef call);

/* split.c: moves the combined function `g->grad` into `aug` and `rev`
 * (declared with their final signatures) and deletes it. */
void zy_split(ZyGen *g, LLVMValueRef aug, LLVMValueRef rev);

/* split.c, split mode: whether the reverse computes primal `v` (an
 * instruction outside loops) again at the reverse builder position
 * (zy_split_recompute) instead of reading it from the tape: arithmetic,
 * casts and GEPs of the arguments, constants and the GPU thread's
 * numbers; with an inline tape also what needs fewer bytes saved than
 * itself (math calls of saved values).  The same for the shadow of primal
 * pointer `p`: GEPs of an argument's shadow (built by
 * zy_shadow_recompute). */
int zy_split_recomputable(ZyGen *g, LLVMValueRef v);
LLVMValueRef zy_split_recompute(ZyGen *g, LLVMValueRef v);
int zy_split_shadow_recomputable(ZyGen *g, LLVMValueRef p);

/* Reverse of one instruction family.  Each returns 0, or -1 after
 * reporting an error.  `d` is the adjoint of the instruction's result. */
int zy_reverse_arith(ZyGen *g, LLVMValueRef inst, LLVMValueRef d);
int zy_reverse_aggregate(ZyGen *g, LLVMValueRef inst, LLVMValueRef d);
int zy_reverse_call(ZyGen *g, LLVMValueRef inst, LLVMValueRef d);
int zy_reverse_memory(ZyGen *g, LLVMValueRef inst, LLVMValueRef d);

/* tangent.c, tangent_calls.c: forward mode (__enzyme_fwddiff).  The
 * tangent function of `fn` for `sig` (active_args: floating-point
 * arguments with a tangent; dup_args: pointer arguments with a shadow;
 * active_ret / dup_ret: the result's tangent or shadow is returned) takes
 * fn's parameters, then the tangents and shadows of the arguments in
 * `sig`, in argument order; it returns void when fn does, without a
 * tangent, else { result (unless void), tangent (if active_ret or
 * dup_ret) }.  Made once per (fn, sig); NULL after an error. */
LLVMValueRef zy_tangent(ZyModule *zm, LLVMValueRef fn, ZySig sig,
                        const ZyTT *seeds);
/* In the tangent function: the tangent of primal value `v` (a float's
 * tangent, a pointer's shadow; zero where it has none), or NULL where it
 * has none (the tangent is zero). */
LLVMValueRef zy_tangent_value(ZyGen *g, LLVMValueRef v);
LLVMValueRef zy_tangent_or_null(ZyGen *g, LLVMValueRef v);
/* A copy of primal instruction `i` at the builder, operands mapped; the
 * copy made before when `i` has one (an earlier lane made it). */
LLVMValueRef zy_tangent_copy(ZyGen *g, LLVMValueRef i);
/* The tangent of the result of a call to a math function with a rule:
 * sum over the operands with a tangent of the rule's adjoint of that
 * operand, the tangent standing for the result's adjoint (rules.def's
 * rows are linear in dy).  NULL when no operand has a tangent. */
struct ZyRule;
LLVMValueRef zy_rule_tangent(LLVMBuilderRef b, const struct ZyRule *r,
                             LLVMValueRef *x, unsigned nx, LLVMValueRef y,
                             LLVMValueRef *tx);
/* Copies call `call` with its tangent (math rules, memory functions,
 * the tangent function of a callee with a body); 0, or -1 after an
 * error. */
int zy_tangent_call(ZyGen *g, LLVMValueRef call);

/* tangent_custom.c: a call of a function with a custom forward
 * derivative (`__enzyme_register_derivative`), through it.  0 or -1. */
struct ZyFwdCustom;
int zy_tangent_custom_call(ZyGen *g, LLVMValueRef call,
                           const struct ZyFwdCustom *c);

/* tangent_lanes.c: vector mode (sig.width > 1), one set of tangents,
 * shadows and adjoints per direction ("lane"), all in one copy of the
 * primal (forward mode) or one forward sweep and tape (reverse mode).
 * zy_lanes_begin makes the lanes (lane 0 current); zy_lane_switch makes lane j
 * current; zy_lanes_end frees them. zy_lane_tangent / zy_lane_put read and set
 * the tangent (or shadow, for a pointer) of `v` in lane j whichever lane is
 * current. */
void zy_lanes_begin(ZyGen *g, unsigned width);
void zy_lane_switch(ZyGen *g, unsigned j);
void zy_lanes_end(ZyGen *g);
LLVMValueRef zy_lane_tangent(ZyGen *g, LLVMValueRef v, unsigned j);
void zy_lane_put(ZyGen *g, LLVMValueRef v, unsigned j, LLVMValueRef t);
/* Refuses, with a located error, what vector forward mode does not
 * support in instruction `i` (a global with derivatives: its one shadow
 * cannot serve several directions).  0 or -1. */
int zy_lanes_check(ZyGen *g, LLVMValueRef i);

/* reverse_lanes.c: vector reverse mode (a gradient with sig.width > 1).
 * The forward sweep copies the primal once and builds each shadow once
 * per lane; the reverse sweep builds each adjoint once per lane with the
 * width-1 code, sharing the lookups (caches, tape) of forward values.
 * Calls of functions with a body are made once for all lanes, to the
 * callee's gradient (or split pair) of the same width.
 * zy_rlanes_check refuses, located, what vector reverse mode does not
 * support in primal instruction `i` (0 or -1); zy_rlanes_lane_wide says
 * whether `i` is such a call (visited once, not per lane);
 * zy_rlanes_shadow_forward builds the shadows of `i` in every lane;
 * zy_lane_take_adjoint / zy_lane_add_adjoint take and add the adjoint
 * of `v` in lane j whichever lane is current. */
int zy_rlanes_check(ZyGen *g, LLVMValueRef i);
int zy_rlanes_lane_wide(ZyGen *g, LLVMValueRef i);
int zy_rlanes_shadow_forward(ZyGen *g, LLVMValueRef i);
LLVMValueRef zy_lane_take_adjoint(ZyGen *g, LLVMValueRef v, unsigned j);
void zy_lane_add_adjoint(ZyGen *g, LLVMValueRef v, unsigned j,
                         LLVMValueRef delta);
/* The shadow of primal pointer `p` in lane j: in the forward sweep
 * (zy_shadow_forward_of) or at the reverse builder (zy_shadow_lookup). */
LLVMValueRef zy_lane_shadow_forward(ZyGen *g, LLVMValueRef p, unsigned j);
LLVMValueRef zy_lane_shadow_lookup(ZyGen *g, LLVMValueRef p, unsigned j);
/* The number of lanes of a gradient or tangent function of `sig`. */
#define ZY_LANES(sig) ((sig).width > 1 ? (sig).width : 1u)

/* Report an error about the instruction being reversed. */
#define ZY_GEN_ERROR(g, kind, hint, ...)                                       \
  zy_error(kind, (g)->user, (g)->cur, hint, __VA_ARGS__)

#endif
