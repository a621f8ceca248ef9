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

/* The function an __enzyme_autodiff* call differentiates (through casts
 * and aliases), or NULL when its first argument names none. */
LLVMValueRef zy_autodiff_target(LLVMValueRef call);

#endif
