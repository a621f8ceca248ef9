/* ownership.c - who may add to the shadow of a memory location at the
 * same time as this thread, which decides how zy_accumulate_shadow adds an
 * adjoint to it: a plain load-add-store where only this thread can reach
 * the location, an atomic add otherwise.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "parallel.h"

#include "ad/ad.h"

/* In a gradient that only one thread runs at a time, every location is
 * the thread's.  In the body of a parallel region (and the functions it
 * calls), the stack frame of the function is the thread's own; anything
 * else (the caller's memory, globals, the heap) may be read by other
 * threads of the team, whose adjoints go to the same shadow. */
int zy_parallel_acc_kind(ZyGen *g, LLVMValueRef p) {
  if (!zy_parallel_context(g))
    return ZY_ACC_PLAIN;
  LLVMValueRef o = zy_llvm_underlying_object(p);
  if (o && LLVMIsAAllocaInst(o) &&
      LLVMGetBasicBlockParent(LLVMGetInstructionParent(o)) == g->primal)
    return ZY_ACC_PLAIN;
  return ZY_ACC_ATOMIC;
}
