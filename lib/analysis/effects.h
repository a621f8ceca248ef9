/* effects.h - whether running a function again could be observed: writes
 * to memory other than its own stack, or calls that may write.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_ANALYSIS_EFFECTS_H
#define ZY_ANALYSIS_EFFECTS_H

#include <llvm-c/Core.h>

/* Whether a call to the declared function `callee` has no effect worth
 * preserving (e.g. a math function whose only write is errno). */
typedef int (*ZyBenignCall)(LLVMValueRef callee);

/* The first instruction of `fn` (or of a function it calls) with an
 * effect outside its own stack frame, or NULL when there is none.  Calls
 * to declarations for which `benign` says yes do not count. */
LLVMValueRef zy_effects_first_write(LLVMValueRef fn, ZyBenignCall benign);

/* The same, counting also reads of memory that something else could
 * change (not the function's own stack, not constant globals): the first
 * instruction whose result could differ when `fn` runs again later. */
LLVMValueRef zy_effects_first_access(LLVMValueRef fn, ZyBenignCall benign);

/* Whether instruction `v` points to memory its function allocated and
 * lets nothing outside reach (not stored elsewhere, returned or passed
 * on, except to free, realloc and the memory intrinsics). */
int zy_effects_private(LLVMValueRef v);

#endif
