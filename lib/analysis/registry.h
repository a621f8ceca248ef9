/* registry.h - what a program tells the AD engine about its functions and
 * globals through Enzyme's registration globals, annotations and
 * attributes: custom gradients, inactive functions and globals, functions
 * that behave like a math function.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_ANALYSIS_REGISTRY_H
#define ZY_ANALYSIS_REGISTRY_H

#include <llvm-c/Core.h>

/* A custom gradient, from `void *__enzyme_register_gradient<any>[3] =
 * {f, augmented_forward, reverse}` (Enzyme's calling conventions: see
 * lib/abi/custom.c). */
typedef struct ZyCustom {
  LLVMValueRef fn, aug, rev; /* the user's function and its pair */
  LLVMValueRef reg;          /* the registration global          */
} ZyCustom;

/* A custom forward derivative, from `void
 * *__enzyme_register_derivative<any>[2] = {f, df}` (Enzyme's convention):
 * df takes f's parameters, each pointer and floating-point one followed by
 * its shadow or tangent, and returns nothing when f returns void, f's
 * result type when that is neither a float nor a pointer (the result),
 * else either that type (the result's tangent) or a struct of two of it
 * ({result, tangent}, `tangent_only` 0). */
typedef struct ZyFwdCustom {
  LLVMValueRef fn, deriv, reg; /* f, df, the registration global */
  int tangent_only;            /* df returns the tangent alone   */
} ZyFwdCustom;

/* An allocator, from `void *__enzyme_allocation_like[4] = {alloc,
 * (void *)SIZE, (void *)"ARGS", dealloc}`: a call of `alloc` allocates a
 * block of as many bytes as its argument SIZE says, and `dealloc` frees
 * it, called with the arguments ARGS lists (comma-separated): k >= 0 is
 * the allocator call's argument k, -1 is the block ("2,-1":
 * dealloc(arg 2 of the alloc call, block)). */
#define ZY_ALLOC_LIKE_MAX_ARGS 16
typedef struct ZyAllocLike {
  LLVMValueRef fn, dealloc, reg; /* allocator, deallocator, registration */
  unsigned size;                 /* the allocator's size parameter      */
  unsigned nargs;                /* the deallocator's arguments:        */
  int args[ZY_ALLOC_LIKE_MAX_ARGS];
  unsigned block;                /* where the block goes (args[block] < 0) */
} ZyAllocLike;

/* Reads the registrations of module `m`, replacing those of any earlier
 * module:
 *   __enzyme_register_gradient*  {fn, augmented forward, reverse}
 *   __enzyme_register_derivative* {fn, forward derivative}
 *   __enzyme_inactivefn*         a function (or an array of them)
 *   __enzyme_inactive_global*    a global (or an array of them)
 *   __enzyme_function_like*      {fn, "name"}: fn computes the math
 *                                function `name` (its derivative rule)
 *   __enzyme_shadow_global*      {&g, &dg, ...}: the shadow of global g
 *   __enzyme_nofree*, __enzyme_shouldrecompute*: functions (hints)
 *   __enzyme_allocation_like*    {alloc, size index, "dealloc args",
 *                                dealloc}: alloc allocates like malloc
 *   annotate("enzyme_inactive"), annotate("enzyme_function_like=name")
 *   (what __attribute__((enzyme_inactive)) and enzyme_function_like
 *   become through Zymase's clang plugin), the function attribute
 *   "enzyme_inactive".
 * Any other global or annotation whose name starts with __enzyme_ or
 * enzyme_, and any malformed registration, is reported as an error (never
 * ignored).  Returns the number of errors reported. */
int zy_registry_scan(LLVMModuleRef m);

/* The host side of a CUDA or HIP program registers each `__device__`
 * variable with the runtime in its module constructor
 * (__cudaRegisterVar, __hipRegisterVar, ...): whether `call` is such a
 * registration, and whether global `g` is the host's copy of a device
 * variable (an operand of one).  A marker or registration global declared
 * as a device variable is the device side's; its host copy is neither a
 * use nor a registration. */
int zy_registry_device_var_call(LLVMValueRef call);
int zy_registry_host_copy(LLVMValueRef g);

/* Before the optimizer runs: the registrations are kept alive
 * (llvm.compiler.used) until the pass reads them.  The functions they name
 * are left as they are: a custom gradient or a rule applies to the calls
 * of them in snapshot.c's copies, taken before the optimizer inlines. */
void zy_registry_protect(LLVMModuleRef m);

/* The custom gradient registered for `fn`, or NULL. */
const ZyCustom *zy_registry_custom(LLVMValueRef fn);
/* The custom forward derivative registered for `fn`, or NULL. */
const ZyFwdCustom *zy_registry_fwd_custom(LLVMValueRef fn);
/* Whether `fn` has a custom gradient or a custom forward derivative: its
 * calls stay calls of it (not inlined into, nor copied for, the functions
 * differentiated). */
int zy_registry_any_custom(LLVMValueRef fn);

/* The allocator registration of `fn` as the allocator, or as the
 * deallocator (the first that names it), or NULL. */
const ZyAllocLike *zy_registry_allocator(LLVMValueRef fn);
const ZyAllocLike *zy_registry_deallocator(LLVMValueRef fn);

/* The math function `fn` was registered to behave like, or NULL. */
const char *zy_registry_function_like(LLVMValueRef fn);

/* The shadow the user supplied for global `gv`, or NULL. */
LLVMValueRef zy_registry_shadow_global(LLVMValueRef gv);

/* Whether function `fn` frees no memory: registered enzyme_nofree
 * (__enzyme_nofree*, the attribute), or so marked by LLVM. */
int zy_registry_nofree(LLVMValueRef fn);

/* Whether calls of `fn` are to be computed again in the reverse sweep
 * rather than cached (enzyme_shouldrecompute: the user says running it
 * again gives the same result and changes nothing). */
int zy_registry_should_recompute(LLVMValueRef fn);

/* Whether the user marked function `fn` / global `gv` inactive. */
int zy_registry_inactive_function(LLVMValueRef fn);
int zy_registry_inactive_global(LLVMValueRef gv);

/* Whether a call of `fn` is differentiated through a gradient: `fn` has a
 * body here, or a custom gradient. */
int zy_registry_differentiable(LLVMValueRef fn);

#endif
