/* autodiff.c - lowers __enzyme_autodiff(fn, [marker,] arg, ...) calls.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "abi.h"

#include "ir/irutil.h"

static const char *const HINT =
    "declare a struct with one field per active argument, of the "
    "argument's type, in argument order (or double for one); with "
    "enzyme_width N, an array of N such values per active argument";

static int lower(ZyCall *c) {
  if (zy_abi_read_arguments(c))
    return -1;
  for (unsigned k = 0; k < c->nshadows; k++)
    c->args[c->nargs++] = c->shadows[k];
  LLVMTypeRef fret = LLVMGetReturnType(LLVMGlobalGetValueType(c->fn));
  if (zy_type_differentiable(fret)) {
    LLVMTypeKind k = LLVMGetTypeKind(fret);
    if (k == LLVMStructTypeKind || k == LLVMArrayTypeKind ||
        k == LLVMVectorTypeKind)
      return zy_error(ZY_ERR_BAD_RETURN, c->fn, c->call, NULL,
                      "the function returns an aggregate; __enzyme_autodiff "
                      "needs a scalar floating-point result to seed");
    c->sig.active_ret = 1;
    for (unsigned j = 0; j < c->width; j++) /* each lane seeds 1.0 */
      c->args[c->nargs++] = zy_const_fp(fret, 1.0);
  }
  if (c->width > 1 && zy_device_module(c->zm->mod))
    return zy_error(ZY_ERR_UNSUPPORTED, c->fn, c->call,
                    "call __enzyme_autodiff once per direction (without "
                    "enzyme_width)",
                    "vector reverse mode (enzyme_width %u) in device code is "
                    "not supported",
                    c->width);
  /* What the caller's code says about the arguments' types seeds the
   * function's type analysis. */
  ZyTT *seeds = zy_abi_seeds(c);
  LLVMValueRef grad = zy_gradient(c->zm, c->fn, c->sig, seeds);
  zy_abi_free_seeds(c, seeds);
  if (!grad)
    return -1;
  LLVMValueRef check =
      zy_opt_check_fwd() && c->width == 1 ? zy_fwdcheck_begin(c) : NULL;
  LLVMValueRef grads = LLVMBuildCall2(c->b, LLVMGlobalGetValueType(grad), grad,
                                      c->args, c->nargs, "");
  if (check)
    zy_fwdcheck_end(c, check, grads);
  if (zy_abi_pack(c, grads, "gradient", HINT))
    return -1;
  LLVMInstructionEraseFromParent(c->call);
  return 0;
}

int zy_lower_autodiff_call(ZyModule *zm, LLVMValueRef call) {
  ZyCall c;
  int r = zy_abi_begin(&c, zm, call, 0);
  if (!r)
    r = lower(&c);
  zy_abi_end(&c);
  return r;
}
