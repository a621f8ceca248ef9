/* abi.h - Enzyme's user interface, which Zymase shares: the module pass
 * that finds the __enzyme_* entry points and lowers the calls to them
 * (reading the function, markers and arguments of a call, packing the
 * gradients into the return type the user declared).
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_ABI_ABI_H
#define ZY_ABI_ABI_H

#include "ad/ad.h"

/* Replaces one call to an __enzyme_autodiff* function by a call to the
 * generated gradient.  Returns 0, or -1 after reporting an error (the
 * call is then left in place). */
int zy_lower_autodiff_call(ZyModule *zm, LLVMValueRef call);

/* Whether `name` is a marker global Zymase implements (enzyme_const,
 * enzyme_dup, ...). */
int zy_abi_marker_known(const char *name);

/* Fills in the body of a gradient of `fn` (split: the augmented forward
 * `grad` and the reverse `rev`, as zy_gradient_split makes them) from the
 * custom gradient registered for `fn`, called through Enzyme's
 * conventions (custom.c).  Returns 0, or -1 after reporting an error. */
int zy_custom_build(ZyModule *zm, LLVMValueRef fn, ZySig sig,
                    LLVMValueRef grad, LLVMValueRef rev);

/* Checks that a call to a function with a custom gradient can be
 * differentiated: its result, when used, must come from the augmented
 * forward pass (or from running the function again, when that has no
 * side effects).  Returns 0, or -1 after reporting an error. */
int zy_custom_check_call(LLVMValueRef call);

#endif
