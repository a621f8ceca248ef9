/* types.h - type analysis: for each value, and for the memory each
 * pointer reaches, what every byte offset holds (float, double, integer,
 * pointer, anything), propagated forward and backward through
 * instructions and through calls, from the LLVM types of values and the
 * way memory is used.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_ANALYSIS_TYPES_H
#define ZY_ANALYSIS_TYPES_H

#include <llvm-c/Core.h>

#include "typetree.h"

typedef struct ZyTypes ZyTypes;

/* Analyses `fn` and the functions with a body it calls (one context per
 * function: facts from all call sites are joined).  `arg_seeds`, when not
 * NULL, holds one tree per parameter of `fn` with facts known from its
 * caller. */
ZyTypes *zy_types_analyze(LLVMValueRef fn, const ZyTT *arg_seeds);
void zy_types_free(ZyTypes *t);

/* The tree of `v`, or NULL when nothing is known. */
const ZyTT *zy_types_of(const ZyTypes *t, LLVMValueRef v);

/* What the memory `ptr` points to holds at byte `off`. */
ZyTy zy_types_memory(const ZyTypes *t, LLVMValueRef ptr, long long off);

/* What the scalar `v` itself is (its -1 entry). */
ZyTy zy_types_scalar(const ZyTypes *t, LLVMValueRef v);

/* Statistics since the process started (-zymase-print-stats): analyses
 * run, fixpoint rounds, and rules evaluated. */
void zy_types_stats(unsigned long long *analyses, unsigned long long *rounds,
                    unsigned long long *rules);

#endif
