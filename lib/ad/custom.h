/* custom.h - custom gradients: calls of a function the program registered
 * with `void *__enzyme_register_gradient_f[3] = {f, aug, rev}` are
 * differentiated through the user's augmented forward and reverse (custom.c).
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_AD_CUSTOM_H
#define ZY_AD_CUSTOM_H

#include "ad.h"

/* Fills in the body of gradient `e` of e->fn (split: the augmented
 * forward e->grad and the reverse e->rev, as zy_gradient_split makes
 * them; with an inline tape, e->tape_bytes and e->tape_align too) from the
 * custom gradient registered for e->fn, called through Enzyme's
 * conventions (custom.c).  Returns 0, or -1 after reporting an error. */
int zy_custom_build(ZyModule *zm, ZyGradEntry *e);

/* Checks that a call to a function with a custom gradient can be
 * differentiated: its result, when used, must come from the augmented
 * forward pass (or from running the function again, when that has no
 * side effects).  Returns 0, or -1 after reporting an error. */
int zy_custom_check_call(LLVMValueRef call);

#endif
