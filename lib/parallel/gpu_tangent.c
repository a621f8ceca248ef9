/* gpu_tangent.c - device code in forward mode (__enzyme_fwddiff in a
 * kernel).  Forward mode is as parallel as the primal: each thread
 * computes its tangents beside its values and writes them where it
 * writes the values, so no atomics are added and every barrier stays
 * where it is.  What device code needs beyond the host's tangent sweep:
 * a warp shuffle moves the tangent the way it moves the value (this
 * file), the shadow of `__shared__` memory is `__shared__` too, one per
 * lane of vector mode (gpu_sync.c), zeroed on entry by the block as for
 * gradients, and dynamic shared memory's shadow is a device-heap buffer
 * per block (gpu_dynamic_shared.c).
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "parallel.h"

#include "ad/ad.h"

/* The copy of shuffle `call` and, when its result is active, the same
 * shuffle of the tangent: the call again with each floating-point operand
 * (the value moved; the mask, offsets and lane addresses are integers)
 * replaced by its tangent, beside the copy, so under the same mask and
 * convergence. */
int zy_gpu_tangent_shuffle(ZyGen *g, LLVMValueRef call) {
  LLVMValueRef c = zy_tangent_copy(g, call);
  if (!zy_activity_active(g->act, call))
    return 0;
  LLVMValueRef t = LLVMInstructionClone(c);
  LLVMInsertIntoBuilderWithName(g->b, t, "");
  for (unsigned k = 0; k < LLVMGetNumArgOperands(call); k++) {
    LLVMValueRef v = LLVMGetOperand(call, k);
    if (zy_type_differentiable(LLVMTypeOf(v)))
      LLVMSetOperand(t, k, zy_tangent_value(g, v));
  }
  zy_map_put(&g->tangent, call, t);
  return 0;
}
