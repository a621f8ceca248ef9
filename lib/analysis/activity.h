/* activity.h - activity analysis: which values of a function carry
 * derivatives.  A value is active when it depends on an active argument
 * ("varied") and can influence the active return value or memory that
 * has a shadow ("useful").  A pointer is shadowed when it may point to
 * memory that carries derivatives: it then has a shadow pointer, to
 * memory of the same layout that holds the derivatives.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_ANALYSIS_ACTIVITY_H
#define ZY_ANALYSIS_ACTIVITY_H

#include <llvm-c/Core.h>

typedef struct ZyActivity ZyActivity;

/* Analyses `fn` with arguments `active_args` (bit i: argument i) active,
 * pointer arguments `dup_args` shadowed, and the return value active when
 * `active_ret`.  A struct or array holding pointers is shadowed as a
 * pointer is (its shadow: the struct of their shadows), and so are the
 * pointers extracted from it. */
ZyActivity *zy_activity_compute(LLVMValueRef fn,
                                unsigned long long active_args,
                                unsigned long long dup_args, int active_ret);
void zy_activity_free(ZyActivity *a);

int zy_activity_varied(const ZyActivity *a, LLVMValueRef v);
int zy_activity_useful(const ZyActivity *a, LLVMValueRef v);
/* varied and useful: the value needs an adjoint. */
int zy_activity_active(const ZyActivity *a, LLVMValueRef v);
/* The pointer has a shadow. */
int zy_activity_shadowed(const ZyActivity *a, LLVMValueRef v);

/* Whether shadowed `p` is a stack slot holding only pointers that have no
 * shadow: storing them needs no shadow store. */
int zy_activity_unshadowed_slot(const ZyActivity *a, LLVMValueRef p);

/* How a call allocates memory, if it does. */
typedef enum ZyAlloc {
  ZY_ALLOC_NONE,
  ZY_ALLOC_MALLOC,  /* malloc(n), operator new(n): size is argument 0  */
  ZY_ALLOC_CALLOC,  /* calloc(n, m): already zeroed                    */
  ZY_ALLOC_ALIGNED, /* aligned_alloc(a, n): size is argument 1         */
  ZY_ALLOC_REALLOC, /* realloc(p, n)                                   */
  ZY_ALLOC_LIKE,    /* a registered allocator (zy_registry_allocator):
                       the same call again allocates a shadow          */
} ZyAlloc;
ZyAlloc zy_activity_allocation(LLVMValueRef call);
/* The same, from the callee's name. */
ZyAlloc zy_activity_allocation_named(const char *name);

/* The call frees the pointer it is given as argument
 * zy_activity_freed_arg (free, operator delete: 0; a registered
 * deallocator: where its registration passes the block). */
int zy_activity_deallocation(LLVMValueRef call);
unsigned zy_activity_freed_arg(LLVMValueRef call);

/* The byte size of the allocation `p` comes from, as the operands of the
 * allocating call: `*n` and `*m` (m is NULL unless the size is n * m, as
 * for calloc).  0 when `p` is not such an allocation; a null `p` has
 * size 0 (*n is NULL). */
int zy_activity_allocation_size(LLVMValueRef p, LLVMValueRef *n,
                                LLVMValueRef *m);

/* Whether `fn` propagates no derivatives and writes no memory a
 * derivative could flow through: library functions known to be so
 * (printing, time, random numbers, float-to-integer rounding), and
 * functions the user marked inactive (see zy_registry_scan). */
int zy_activity_inactive_function(LLVMValueRef fn);

/* Whether the user marked global `gv` inactive: its memory carries no
 * derivatives, and active values stored there are dropped on purpose. */
int zy_activity_inactive_global(LLVMValueRef gv);

/* Whether global `v` (or a constant GEP/cast of one) has a shadow: a
 * mutable global not marked inactive, or a constant one holding pointers
 * to such globals (a table of pointers). */
int zy_activity_shadowed_global(LLVMValueRef v);

/* Whether function `fn` (with a body), or one it calls, writes floating
 * point into a shadowed global (a store, an atomic, a memcpy or memset
 * into it, a call given a pointer into it): a call of it overwrites
 * derivatives even when it passes none. */
int zy_activity_writes_shadowed_global(ZyActivity *a, LLVMValueRef fn);

/* Whether values of type `t` can carry a derivative: floating point
 * scalars, vectors of them, and aggregates with such a member. */
int zy_type_differentiable(LLVMTypeRef t);
/* Whether type `t` is or holds (in a struct or an array) a pointer. */
int zy_type_holds_pointer(LLVMTypeRef t);
/* Whether `t` is a struct or an array holding a pointer. */
int zy_type_pointer_aggregate(LLVMTypeRef t);

#endif
