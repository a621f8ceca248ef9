/* glue.h - the LLVM facilities that the LLVM-C API lacks, exposed to the C
 * engine by the C++ glue layer (glue.cpp), plus the engine's entry points
 * that the pass registration (plugin.cpp) calls.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_LLVM_GLUE_H
#define ZY_LLVM_GLUE_H

#include <llvm-c/Core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --- Provided by the glue (C++) ----------------------------------------- */

/* Reports an error (or, when `warning`, a warning) about function `fn`
 * (or, when NULL, the function holding `inst`) through
 * LLVMContext::diagnose, located at `inst`'s debug location, or at `fn`'s
 * subprogram when `inst` has none.  Clang prints it like its own
 * diagnostics and fails the compilation on an error; opt prints it and
 * exits on an error. */
void zy_llvm_diagnose(LLVMValueRef fn, LLVMValueRef inst, const char *msg,
                      int warning);

/* Reports an error about module `m` as a whole (no function to name). */
void zy_llvm_diagnose_module(LLVMModuleRef m, const char *msg);

/* Clones `fn` into its module as an internal function named `name`. */
LLVMValueRef zy_llvm_clone_function(LLVMValueRef fn, const char *name);
/* A copy of `fn` named `name` (internal) in which every function (but `fn`
 * itself and intrinsics) is named through what `fn_standin(function, ctx)`
 * returns, and every global variable through a stand-in `<name>.zymase.ref`
 * (internal, with the original's initializer, its own globals named
 * through stand-ins): the copy uses nothing of the program, so that the
 * optimizer draws the same conclusions about the program with it as
 * without it.  LLVM's and Enzyme's names (llvm.*, enzyme_*, __enzyme_*)
 * are named directly (snapshot_clone.cpp). */
/* The attributes of the declarations of `m`, saved, and put back (the
 * declarations that still are), which frees the record
 * (declarations.cpp). */
typedef struct ZyDeclAttrs ZyDeclAttrs;
ZyDeclAttrs *zy_llvm_decl_attrs_save(LLVMModuleRef m);
void zy_llvm_decl_attrs_restore(ZyDeclAttrs *d);
LLVMValueRef zy_llvm_snapshot_clone(LLVMValueRef fn, const char *name,
                                    LLVMValueRef (*fn_standin)(LLVMValueRef,
                                                               void *),
                                    void *ctx);

/* Runs the function simplification pipeline of optimization level O`level`
 * (1..3) on `fn` alone.  Returns 1 when it moved a call of a function with
 * a body out of a loop (LICM), else 0. */
int zy_llvm_simplify_function(LLVMValueRef fn, int level);
/* Whether `fn` calls, inside a loop, a function with a body with a call
 * that only reads memory (which LICM might move out). */
int zy_llvm_has_calls_in_loops(LLVMValueRef fn);

/* Gives each call in `fn` of a function with a body the memory effects
 * of that body (accesses to the callee's own stack ignored, and calls in
 * it for which `pure` returns 1 taken as not accessing memory), so that
 * the pre-AD pipeline can move calls that only read memory, e.g. out of
 * loops, even when the callees were compiled at -O0 without attributes.
 * Calls in `fn` itself for which `pure` returns 1 (math functions, whose
 * errno write does not matter to AD) are marked as not accessing memory,
 * so that loads (a loop's bound) can move past them, unless the function
 * itself uses errno (then neither are the callees'). */
void zy_llvm_infer_call_effects(LLVMValueRef fn, int (*pure)(LLVMValueRef));
/* Whether `fn` is the C library's errno accessor (glibc's
 * __errno_location, the BSDs' __error, Windows' _errno). */
int zy_llvm_errno_accessor(LLVMValueRef fn);

/* Replaces each load of `fn` inside a loop that reads, element by
 * element, an array one earlier loop beside it filled (one store per
 * iteration, nothing else writing the array in between: a scratch array
 * xc[i] = x[i] - mu[i] read by later loops) by the stored value, computed
 * again from what the store computed it from (loads of memory nothing in
 * `fn` writes, arithmetic, the storing loop's induction variables), so
 * that the reverse sweep computes it again instead of caching the load of
 * every reading loop (forward_stores.cpp).  Returns how many loads were
 * replaced. */
int zy_llvm_forward_stores(LLVMValueRef fn);
/* Replaces the final value of each running maximum, minimum or other
 * floating-point value a loop of `fn` replaces when a condition holds
 * (m = x[i] > m ? x[i] : m), when nothing in the loop uses it but the
 * condition, by the replacing value computed again after the loop at the
 * iteration of the last replacement, which the loop records; the reverse
 * sweep then caches no condition per iteration (last_update.cpp).
 * Returns how many were replaced. */
int zy_llvm_last_updates(LLVMValueRef fn);

/* The object pointer `p` is derived from (llvm::getUnderlyingObject:
 * through GEPs and casts). */
LLVMValueRef zy_llvm_underlying_object(LLVMValueRef p);

/* The block switch `sw` goes to when its condition is `v` (its default
 * destination when no case has value v). */
LLVMBasicBlockRef zy_llvm_switch_dest(LLVMValueRef sw, long long v);

/* Writes "file:line" of global variable `gv`'s debug info into buf;
 * 0 when it has none. */
int zy_llvm_global_location(LLVMValueRef gv, char *buf, size_t n);

/* Keeps global value `fn` (a function or a variable) alive through the
 * optimizer (llvm.compiler.used), and lets it go again. */
void zy_llvm_keep_alive(LLVMValueRef fn);
void zy_llvm_let_go(LLVMValueRef fn);

/* Gives the declaration of a C library function (malloc, free, ...) the
 * attributes LLVM knows for it, e.g. that free releases what malloc
 * returned, so that unused caches can be deleted after AD. */
void zy_llvm_infer_libfunc_attrs(LLVMValueRef fn);

/* Inlines the direct call `call`; 0 when LLVM refuses (e.g. varargs,
 * interposable callee). */
int zy_llvm_inline_call(LLVMValueRef call);
/* region_clone.cpp: a function `name` of the values `liveins` returning
 * `phi`'s value, made of a copy of block `entry`'s terminator and of
 * `blocks` (the region between entry and phi's block); whether `inst` is
 * an intrinsic that computes nothing (debug info, lifetime, assume). */
LLVMValueRef zy_llvm_region_helper(LLVMValueRef phi, LLVMBasicBlockRef entry,
                                   LLVMBasicBlockRef *blocks,
                                   unsigned nblocks, LLVMValueRef *liveins,
                                   unsigned nlive, const char *name);
int zy_llvm_ignorable_intrinsic(LLVMValueRef inst);
/* Links from the bitcode file at `path` what module `m` needs of it
 * (its definitions of functions `m` only declares), internal, as clang's
 * -mlink-builtin-bitcode does.  Returns 0, or 1 with a malloc'ed message
 * in *err. */
int zy_llvm_link_needed(LLVMModuleRef m, const char *path, char **err);
/* Runs LLVM's always-inliner on module `m`. */
void zy_llvm_always_inline(LLVMModuleRef m);


/* Replaces the `invoke` `inst` by a call of the same callee and arguments
 * followed by a branch to its normal destination (its unwind edge
 * removed); returns the call.  Other instructions are returned as they
 * are. */
LLVMValueRef zy_llvm_invoke_to_call(LLVMValueRef inst);

/* Runs the verifier on `fn`; prints problems to stderr; 0 when valid. */
int zy_llvm_verify_function(LLVMValueRef fn);

/* Dominator tree of one function. */
typedef struct ZyDomTree ZyDomTree;
ZyDomTree *zy_llvm_domtree_new(LLVMValueRef fn);
int zy_llvm_domtree_dominates(ZyDomTree *dt, LLVMBasicBlockRef a,
                              LLVMBasicBlockRef b);
/* The immediate dominator of `bb`, or NULL for the entry block. */
LLVMBasicBlockRef zy_llvm_domtree_idom(ZyDomTree *dt, LLVMBasicBlockRef bb);
void zy_llvm_domtree_free(ZyDomTree *dt);

/* Loops of one function.  zy_llvm_loops_new first puts `fn` in
 * loop-simplified, LCSSA form (each loop gets one preheader, one latch and
 * exit blocks entered only from inside it; values leave loops only
 * through phis of the exit blocks), then expands, at the end of each
 * preheader, a bound of the loop's trip count when scalar evolution knows
 * one before the loop, and analyses the loops. */
typedef struct ZyLoopNest ZyLoopNest;
typedef struct ZyLoopDesc {
  LLVMBasicBlockRef header, preheader, latch; /* NULL when missing      */
  int parent;          /* index of the enclosing loop, or -1           */
  int dedicated_exits; /* every exit block is entered only from inside */
  LLVMValueRef trip;   /* i64 upper bound of the header executions per
                          entry, or NULL                                */
  int trip_exact;      /* trip is exact and the latch is the only exit */
  LLVMValueRef nest_trip; /* i64 bound of the iterations over a nest of
                          enclosing loops whose counts are known before
                          the outermost, or NULL ...                   */
  LLVMBasicBlockRef nest_at; /* ... computed at the end of this block  */
  unsigned long long max_trip; /* a compile-time bound of the header
                          executions per entry (scalar evolution's
                          constant maximum), or 0                       */
} ZyLoopDesc;
ZyLoopNest *zy_llvm_loops_new(LLVMValueRef fn);
/* The number of loops; loop indices put each loop after its parent. */
unsigned zy_llvm_loops_count(ZyLoopNest *n);
void zy_llvm_loops_describe(ZyLoopNest *n, unsigned l, ZyLoopDesc *out);
/* The innermost loop holding `bb`, or -1. */
int zy_llvm_loops_innermost(ZyLoopNest *n, LLVMBasicBlockRef bb);
/* A block of a cycle that is not a natural loop (entered other than
 * through its header), or NULL when the CFG is reducible. */
LLVMBasicBlockRef zy_llvm_loops_irreducible(ZyLoopNest *n);
void zy_llvm_loops_free(ZyLoopNest *n);

/* Alias analysis of one function (LLVM's default AA pipeline). */
typedef struct ZyAlias ZyAlias;
ZyAlias *zy_llvm_alias_new(LLVMValueRef fn);
/* Whether some instruction of the function may write (or free) the memory
 * that load `load` reads, in any iteration of the loops around them (any
 * offset from the load's pointer into the same object counts); with
 * `after`, only instructions a path from the load reaches count.  Calls
 * for which `ignore(call, ctx)` (may be NULL) returns 1 are not asked
 * about. */
int zy_llvm_alias_load_clobbered(ZyAlias *a, LLVMValueRef load, int after,
                                 int (*ignore)(LLVMValueRef call, void *ctx),
                                 void *ctx);
/* Whether some instruction of the function (wherever it is) may write
 * (or free) the memory that load `load` reads, as
 * zy_llvm_alias_load_clobbered without `after`, but `ignore` is asked
 * about every instruction that writes memory, not only calls. */
int zy_llvm_alias_load_written(ZyAlias *a, LLVMValueRef load,
                               int (*ignore)(LLVMValueRef inst, void *ctx),
                               void *ctx);
/* Whether some instruction of the function that a path from instruction
 * `inst` reaches (in any iteration of the loops around it: `inst` itself
 * too when it is in a loop) may write (or free) memory at any offset from
 * pointer `p`; calls for which `ignore` returns 1 are not asked about. */
int zy_llvm_alias_written_after(ZyAlias *a, LLVMValueRef inst, LLVMValueRef p,
                                int (*ignore)(LLVMValueRef call, void *ctx),
                                void *ctx);
/* Whether memory reached from `p` and `q` (at any offset from each, in
 * any iteration) may overlap: pointers (with the type-based facts of the
 * loads and stores through them), or loads and stores. */
int zy_llvm_alias_may_overlap(ZyAlias *a, LLVMValueRef p, LLVMValueRef q);
void zy_llvm_alias_free(ZyAlias *a);
/* How the address `p` (a pointer of the function) depends on the GPU
 * thread (nvptx x coordinates), by scalar evolution: 1 when it is the same
 * for every thread (built only from constants and values `uniform`
 * accepts), 2 when it is injective in the grid's x thread number
 * (u + c*(ctaid.x*ntid.x + tid.x), or a grid-stride recurrence from there
 * by c*ntid.x*nctaid.x, u uniform), 0 otherwise. */
int zy_llvm_alias_gpu_address(ZyAlias *a, LLVMValueRef p,
                              int (*uniform)(LLVMValueRef v, void *ctx),
                              void *ctx);

/* Decomposes the byte offset of GEP `gep` (of module `m`) as `*constant` plus multiples
 * of `*stride` (0 when every index is constant).  Returns 0 when the
 * offset cannot be decomposed. */
int zy_llvm_gep_offset(LLVMModuleRef m, LLVMValueRef gep, long long *constant,
                       long long *stride);

/* Turns indirect call `call` into a call of `fn`: guarded by a test of
 * the callee (the indirect call stays on the other path) when
 * `conditional`, unconditionally otherwise.  Returns 0 when the
 * signatures make that illegal. */
int zy_llvm_promote_call(LLVMValueRef call, LLVMValueRef fn, int conditional);

/* Replaces the uses of `old` by `repl` in the instructions of function
 * `fn` only. */
void zy_llvm_replace_uses_in(LLVMValueRef old, LLVMValueRef repl,
                             LLVMValueRef fn);

/* Memory effects of a call site (including its callee's attributes). */
int zy_llvm_call_reads_only(LLVMValueRef call);
int zy_llvm_call_no_memory(LLVMValueRef call);

/* GPU on CPU (lib/gpu).  Turns every constant expression using global
 * `g` into instructions in the functions using it; 0 when a use is left
 * outside any function (a global initializer). */
int zy_llvm_constants_to_instructions(LLVMValueRef g);
/* Gives every fence and atomic instruction of `fn` the system sync scope. */
void zy_llvm_system_sync_scopes(LLVMValueRef fn);
/* Sets `m`'s triple to the host's and its data layout to the host
 * target's; 0 when the host target is not available. */
int zy_llvm_set_host_target(LLVMModuleRef m);
/* Appends `fn` to `m`'s llvm.global_ctors (priority 65535). */
void zy_llvm_add_global_ctor(LLVMModuleRef m, LLVMValueRef fn);

/* Command-line options (-zymase-...). */
int zy_opt_print_gradient(void);  /* -zymase-print           */
int zy_opt_preopt(void);          /* !-zymase-no-preopt      */
int zy_opt_postopt(void);         /* !-zymase-no-postopt     */
int zy_opt_verify_steps(void);    /* -zymase-verify          */
int zy_opt_check_fwd(void);       /* -zymase-check-fwd       */
int zy_opt_loose_types(void);     /* -zymase-loose-types     */
int zy_opt_print_cache(void);     /* -zymase-print-cache     */
int zy_opt_print_stats(void);     /* -zymase-print-stats     */
unsigned zy_opt_keep_buffers_mb(void); /* -zymase-keep-buffers-mb */
unsigned zy_opt_gpu_local_cache_bytes(void); /* -zymase-gpu-local-cache-bytes */
int zy_opt_gpu_no_device_malloc(void); /* -zymase-gpu-no-device-malloc */
int zy_opt_recompute_math_given(void);       /* ... on the command line */
int zy_opt_recompute_math(void);       /* -zymase-recompute-math */
int zy_opt_recompute_regions_given(void);    /* ... on the command line */
int zy_opt_recompute_regions(void);    /* -zymase-recompute-regions */
unsigned zy_opt_replay_log_mb(void);   /* -zymase-replay-log-mb */
unsigned zy_opt_math_log_mb(void);     /* -zymase-math-log-mb   */
int zy_opt_gpu_sanitize_thread(void); /* -zymase-gpu-sanitize-thread */
int zy_opt_gpu_all_atomic(void);  /* -zymase-gpu-all-atomic  */
int zy_opt_gpu_count_atomics(void); /* -zymase-gpu-count-atomics */
int zy_opt_gpu_sanitize_address(void); /* -zymase-gpu-sanitize-address */
const char *zy_opt_gpu_module_id(void); /* -zymase-gpu-module-id      */

/* --- Provided by the engine (C) ----------------------------------------- */

/* At the start of the optimizer (`optimizing`: above -O0): keeps an
 * unoptimized copy of each function that `m` differentiates (see
 * zy_preprocess; device code at -O0 too).  A module that uses no entry
 * point is not changed.  Returns 1 if the module changed. */
int zy_start_module(LLVMModuleRef m, int optimizing);

/* Differentiates every __enzyme_autodiff* call in `m`.  Returns 1 if the
 * module changed; a module that uses no entry point is not changed. */
int zy_run_on_module(LLVMModuleRef m);

/* Printer passes: the activity, and the types, of every value of `fn`,
 * into a malloc'd string. */
void zy_print_activity(LLVMValueRef fn, char **out);
void zy_print_types(LLVMValueRef fn, char **out);

#ifdef __cplusplus
}
#endif

#endif
