/* callconv.h - Enzyme's calling convention for __enzyme_autodiff: reading
 * the function, markers and arguments of a call, and packing the
 * gradients into the return type the user declared.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_AD_CALLCONV_H
#define ZY_AD_CALLCONV_H

#include "ad.h"

/* Replaces one call to an __enzyme_autodiff* function by a call to the
 * generated gradient.  Returns 0, or -1 after reporting an error (the
 * call is then left in place). */
int zy_lower_autodiff_call(ZyModule *zm, LLVMValueRef call);

#endif
