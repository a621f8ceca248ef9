/* reverse_aggregate.c - adjoints of aggregate (struct, array) and vector
 * element access: extract/insert value, extract/insert element, shuffle.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad.h"

#include <stdlib.h>

/* The zero aggregate with `d` at index path `idx[0..n)`. */
static LLVMValueRef place(LLVMBuilderRef b, LLVMTypeRef agg, const unsigned *idx,
                          unsigned n, LLVMValueRef d) {
  LLVMValueRef z = LLVMConstNull(agg);
  if (n == 1)
    return LLVMBuildInsertValue(b, z, d, idx[0], "");
  /* Nested path: rebuild from the innermost level outwards. */
  LLVMTypeRef types[16];
  types[0] = agg;
  for (unsigned k = 1; k < n; k++) {
    LLVMTypeRef t = types[k - 1];
    types[k] = LLVMGetTypeKind(t) == LLVMStructTypeKind
                   ? LLVMStructGetTypeAtIndex(t, idx[k - 1])
                   : LLVMGetElementType(t);
  }
  LLVMValueRef v = d;
  for (unsigned k = n; k-- > 0;)
    v = LLVMBuildInsertValue(b, LLVMConstNull(types[k]), v, idx[k], "");
  return v;
}

/* `d` with the member at index path `idx` replaced by zero. */
static LLVMValueRef clear(LLVMBuilderRef b, LLVMValueRef d, const unsigned *idx,
                          unsigned n, LLVMTypeRef member) {
  if (n == 1)
    return LLVMBuildInsertValue(b, d, LLVMConstNull(member), idx[0], "");
  LLVMValueRef inner = LLVMBuildExtractValue(b, d, idx[0], "");
  inner = clear(b, inner, idx + 1, n - 1, member);
  return LLVMBuildInsertValue(b, d, inner, idx[0], "");
}

static LLVMValueRef extract_path(LLVMBuilderRef b, LLVMValueRef d,
                                 const unsigned *idx, unsigned n) {
  for (unsigned k = 0; k < n; k++)
    d = LLVMBuildExtractValue(b, d, idx[k], "");
  return d;
}

static int reverse_shuffle(ZyGen *g, LLVMValueRef i, LLVMValueRef d) {
  LLVMBuilderRef b = g->b;
  LLVMValueRef ops[2] = {LLVMGetOperand(i, 0), LLVMGetOperand(i, 1)};
  LLVMTypeRef vt = LLVMTypeOf(ops[0]);
  unsigned width = LLVMGetVectorSize(vt);
  LLVMValueRef acc[2] = {LLVMConstNull(vt), LLVMConstNull(vt)};
  LLVMTypeRef i32 = LLVMInt32TypeInContext(g->zm->ctx);
  unsigned n = LLVMGetNumMaskElements(i);
  for (unsigned k = 0; k < n; k++) {
    int m = LLVMGetMaskValue(i, k);
    if (m == LLVMGetUndefMaskElem())
      continue;
    int src = (unsigned)m >= width;
    LLVMValueRef lane = LLVMConstInt(i32, src ? (unsigned)m - width : (unsigned)m, 0);
    LLVMValueRef dk = LLVMBuildExtractElement(b, d, LLVMConstInt(i32, k, 0), "");
    LLVMValueRef old = LLVMBuildExtractElement(b, acc[src], lane, "");
    acc[src] = LLVMBuildInsertElement(b, acc[src],
                                      LLVMBuildFAdd(b, old, dk, ""), lane, "");
  }
  zy_add_adjoint(g, ops[0], acc[0]);
  zy_add_adjoint(g, ops[1], acc[1]);
  return 0;
}

int zy_reverse_aggregate(ZyGen *g, LLVMValueRef i, LLVMValueRef d) {
  LLVMBuilderRef b = g->b;
  LLVMValueRef a = LLVMGetOperand(i, 0);
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMExtractValue: { /* r = a.idx: da.idx += d */
    unsigned n = LLVMGetNumIndices(i);
    if (n > 16)
      return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL, "index path too deep");
    zy_add_adjoint(g, a, place(b, LLVMTypeOf(a), LLVMGetIndices(i), n, d));
    return 0;
  }
  case LLVMInsertValue: { /* r = a with .idx = s */
    LLVMValueRef s = LLVMGetOperand(i, 1);
    const unsigned *idx = LLVMGetIndices(i);
    unsigned n = LLVMGetNumIndices(i);
    if (zy_activity_active(g->act, s))
      zy_add_adjoint(g, s, extract_path(b, d, idx, n));
    if (zy_activity_active(g->act, a))
      zy_add_adjoint(g, a, clear(b, d, idx, n, LLVMTypeOf(s)));
    return 0;
  }
  case LLVMExtractElement: { /* r = a[k] */
    LLVMValueRef k = zy_lookup(g, LLVMGetOperand(i, 1));
    zy_add_adjoint(g, a,
                   LLVMBuildInsertElement(b, LLVMConstNull(LLVMTypeOf(a)), d,
                                          k, ""));
    return 0;
  }
  case LLVMInsertElement: { /* r = a with [k] = s */
    LLVMValueRef s = LLVMGetOperand(i, 1);
    LLVMValueRef k = zy_lookup(g, LLVMGetOperand(i, 2));
    if (zy_activity_active(g->act, s))
      zy_add_adjoint(g, s, LLVMBuildExtractElement(b, d, k, ""));
    if (zy_activity_active(g->act, a))
      zy_add_adjoint(g, a,
                     LLVMBuildInsertElement(b, d, LLVMConstNull(LLVMTypeOf(s)),
                                            k, ""));
    return 0;
  }
  case LLVMShuffleVector:
    return reverse_shuffle(g, i, d);
  default:
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                        "no derivative rule for this instruction");
  }
}
