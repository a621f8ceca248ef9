/* sizes.c - step 2b: the size of the memory a realloc resizes when its
 * pointer comes through phis (a buffer grown in a loop, as Zymase's own
 * caches are, so that a gradient can be differentiated again): integer
 * phis beside the pointer phis, added to the primal, carry the size.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad.h"

static LLVMValueRef strip(LLVMValueRef p) {
  while (LLVMIsABitCastInst(p))
    p = LLVMGetOperand(p, 0);
  return p;
}

/* Whether every value `p` can be (through phis and selects) is null or
 * an allocation of known size. */
static int sizable(LLVMValueRef p, ZyVec *seen) {
  LLVMValueRef n, m;
  p = strip(p);
  if (zy_activity_allocation_size(p, &n, &m) || zy_vec_contains(seen, p))
    return 1;
  if (seen->len > 64)
    return 0;
  zy_vec_push(seen, p);
  if (LLVMIsASelectInst(p))
    return sizable(LLVMGetOperand(p, 1), seen) &&
           sizable(LLVMGetOperand(p, 2), seen);
  if (!LLVMIsAPHINode(p))
    return 0;
  for (unsigned k = 0; k < LLVMCountIncoming(p); k++)
    if (!sizable(LLVMGetIncomingValue(p, k), seen))
      return 0;
  return 1;
}

/* The byte size of `p` as an i64 value of the primal (built once per
 * value, in `made`), after sizable(p). */
static LLVMValueRef build(ZyGen *g, LLVMBuilderRef b, LLVMValueRef p,
                          ZyMap *made) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(g->zm->ctx);
  LLVMValueRef n, m, s;
  p = strip(p);
  if ((s = zy_map_get(made, p)))
    return s;
  if (zy_activity_allocation_size(p, &n, &m)) {
    if (!n)
      return LLVMConstInt(i64, 0, 0);
    LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(p));
    s = LLVMBuildZExtOrBitCast(b, n, i64, "zymase.size");
    if (m)
      s = LLVMBuildMul(b, s, LLVMBuildZExtOrBitCast(b, m, i64, ""),
                       "zymase.size");
  } else if (LLVMIsAPHINode(p)) {
    LLVMPositionBuilderBefore(b, p);
    s = LLVMBuildPhi(b, i64, "zymase.size");
    zy_map_put(made, p, s); /* before the incoming values: cycles */
    for (unsigned k = 0; k < LLVMCountIncoming(p); k++) {
      LLVMValueRef v = build(g, b, LLVMGetIncomingValue(p, k), made);
      LLVMBasicBlockRef bb = LLVMGetIncomingBlock(p, k);
      LLVMAddIncoming(s, &v, &bb, 1);
    }
  } else { /* a select */
    LLVMValueRef t = build(g, b, LLVMGetOperand(p, 1), made);
    LLVMValueRef f = build(g, b, LLVMGetOperand(p, 2), made);
    LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(p));
    s = LLVMBuildSelect(b, LLVMGetOperand(p, 0), t, f, "zymase.size");
  }
  zy_map_put(made, p, s);
  return s;
}

void zy_sizes_analyze(ZyGen *g) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(g->zm->ctx);
  ZyMap made = {0};
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      if (!LLVMIsACallInst(i) || zy_activity_allocation(i) != ZY_ALLOC_REALLOC)
        continue;
      LLVMValueRef p = LLVMGetOperand(i, 0), n, m;
      ZyVec seen = {0};
      if (!zy_activity_allocation_size(p, &n, &m) && sizable(p, &seen))
        zy_map_put(&g->sizes, p, build(g, b, p, &made));
      zy_vec_free(&seen);
    }
  zy_map_free(&made);
  LLVMDisposeBuilder(b);
}

int zy_allocation_size(ZyGen *g, LLVMValueRef p, LLVMValueRef *n,
                       LLVMValueRef *m) {
  if (zy_activity_allocation_size(p, n, m))
    return 1;
  *n = zy_map_get(&g->sizes, p);
  return *n != NULL;
}
