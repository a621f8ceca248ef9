/* activity.h - activity analysis: which values of a function carry
 * derivatives.  A value is active when it depends on an active argument
 * ("varied") and can influence the active return value ("useful").
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_ANALYSIS_ACTIVITY_H
#define ZY_ANALYSIS_ACTIVITY_H

#include <llvm-c/Core.h>

typedef struct ZyActivity ZyActivity;

/* Analyses `fn` with arguments `active_args` (bit i: argument i) active and
 * the return value active when `active_ret`. */
ZyActivity *zy_activity_compute(LLVMValueRef fn,
                                unsigned long long active_args,
                                int active_ret);
void zy_activity_free(ZyActivity *a);

int zy_activity_varied(const ZyActivity *a, LLVMValueRef v);
int zy_activity_useful(const ZyActivity *a, LLVMValueRef v);
/* varied and useful: the value needs an adjoint. */
int zy_activity_active(const ZyActivity *a, LLVMValueRef v);

/* Whether `fn` is a library function known not to propagate derivatives
 * nor to write memory a derivative could flow through (printing,
 * float-to-integer rounding). */
int zy_activity_inactive_function(LLVMValueRef fn);

/* Whether values of type `t` can carry a derivative: floating point
 * scalars, vectors of them, and aggregates with such a member. */
int zy_type_differentiable(LLVMTypeRef t);

#endif
