/* effects.c - finds observable side effects by walking function bodies
 * and the bodies of the functions they call.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "effects.h"

#include "llvm/glue.h"
#include "support/vec.h"

#include <string.h>

/* The object a pointer is derived from, through GEPs and casts. */
static LLVMValueRef base_object(LLVMValueRef p) {
  for (;;) {
    if (LLVMIsAGetElementPtrInst(p) || LLVMIsABitCastInst(p) ||
        LLVMIsAAddrSpaceCastInst(p))
      p = LLVMGetOperand(p, 0);
    else
      return p;
  }
}

static int writes_stack_only(LLVMValueRef ptr) {
  return LLVMIsAAllocaInst(base_object(ptr)) != NULL;
}

typedef struct Walk {
  ZyVec seen;
  ZyBenignCall benign;
  int reads; /* reads of changeable memory count too */
} Walk;

/* Memory nothing else can change: the stack, constant globals. */
static int reads_fixed_memory(LLVMValueRef ptr) {
  LLVMValueRef b = base_object(ptr);
  return LLVMIsAAllocaInst(b) ||
         (LLVMIsAGlobalVariable(b) && LLVMIsGlobalConstant(b));
}

static LLVMValueRef first_write(LLVMValueRef fn, Walk *w);

static LLVMValueRef call_writes(LLVMValueRef call, Walk *w) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  const char *name = callee && LLVMIsAFunction(callee)
                         ? LLVMGetValueName(callee)
                         : NULL;
  /* A call that only reads: no effect, unless reads count; then what a
   * body reads is found by walking it. */
  if (zy_llvm_call_reads_only(call)) {
    if (!w->reads)
      return NULL;
    if (!name)
      return call;
    if (LLVMIsDeclaration(callee) && strncmp(name, "llvm.", 5))
      return w->benign && w->benign(callee) ? NULL : call;
  }
  if (name && !strncmp(name, "llvm.", 5)) {
    if (!strncmp(name, "llvm.mem", 8)) { /* memcpy, memmove, memset */
      if (w->reads && strncmp(name, "llvm.memset", 11) &&
          !reads_fixed_memory(LLVMGetOperand(call, 1)))
        return call;
      return writes_stack_only(LLVMGetOperand(call, 0)) ? NULL : call;
    }
    return NULL; /* lifetime, dbg, math: no effect we could repeat */
  }
  if (!name)
    return call; /* unknown code: assume it writes */
  if (LLVMIsDeclaration(callee))
    return w->benign && w->benign(callee) ? NULL : call;
  return first_write(callee, w) ? call : NULL;
}

static LLVMValueRef first_write(LLVMValueRef fn, Walk *w) {
  if (zy_vec_contains(&w->seen, fn))
    return NULL;
  zy_vec_push(&w->seen, fn);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      switch (LLVMGetInstructionOpcode(i)) {
      case LLVMStore:
        if (!writes_stack_only(LLVMGetOperand(i, 1)))
          return i;
        break;
      case LLVMLoad:
        if (w->reads && !reads_fixed_memory(LLVMGetOperand(i, 0)))
          return i;
        break;
      case LLVMAtomicRMW:
      case LLVMAtomicCmpXchg:
      case LLVMFence:
      case LLVMInvoke:
        return i;
      case LLVMCall:
        if (call_writes(i, w))
          return i;
        break;
      default:
        break;
      }
    }
  return NULL;
}

LLVMValueRef zy_effects_first_write(LLVMValueRef fn, ZyBenignCall benign) {
  Walk w = {.benign = benign};
  LLVMValueRef i = first_write(fn, &w);
  zy_vec_free(&w.seen);
  return i;
}

LLVMValueRef zy_effects_first_access(LLVMValueRef fn, ZyBenignCall benign) {
  Walk w = {.benign = benign, .reads = 1};
  LLVMValueRef i = first_write(fn, &w);
  zy_vec_free(&w.seen);
  return i;
}
