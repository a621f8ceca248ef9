/* reverse_arith.c - adjoints of floating-point arithmetic, conversions
 * between float types, and select.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad.h"

#include "ir/rules.h"

int zy_reverse_arith(ZyGen *g, LLVMValueRef i, LLVMValueRef d) {
  LLVMBuilderRef b = g->b;
  LLVMValueRef a = LLVMGetOperand(i, 0);
  LLVMValueRef c = LLVMGetNumOperands(i) > 1 ? LLVMGetOperand(i, 1) : NULL;
#define ACTIVE(v) zy_activity_active(g->act, v)
#define L(v) zy_lookup(g, v)
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMFAdd: /* r = a + c */
    zy_add_adjoint(g, a, d);
    zy_add_adjoint(g, c, d);
    return 0;
  case LLVMFSub: /* r = a - c */
    zy_add_adjoint(g, a, d);
    if (ACTIVE(c))
      zy_add_adjoint(g, c, LLVMBuildFNeg(b, d, ""));
    return 0;
  case LLVMFreeze:
    zy_add_adjoint(g, a, d);
    return 0;
  case LLVMFNeg:
    zy_add_adjoint(g, a, LLVMBuildFNeg(b, d, ""));
    return 0;
  case LLVMFMul: /* da = d*c, dc = d*a */
    if (ACTIVE(a))
      zy_add_adjoint(g, a, LLVMBuildFMul(b, d, L(c), ""));
    if (ACTIVE(c))
      zy_add_adjoint(g, c, LLVMBuildFMul(b, d, L(a), ""));
    return 0;
  case LLVMFDiv: { /* r = a/c: da = d/c, dc = -d*a/c^2 = -da*r */
    LLVMValueRef da = LLVMBuildFDiv(b, d, L(c), "");
    zy_add_adjoint(g, a, da);
    if (ACTIVE(c))
      zy_add_adjoint(g, c,
                     LLVMBuildFNeg(b, LLVMBuildFMul(b, da, L(i), ""), ""));
    return 0;
  }
  case LLVMFRem: { /* as fmod */
    ZyRuleIO io = {.b = b, .x = {L(a), L(c)}, .dy = d};
    zy_rule_named("fmod")->build(&io);
    zy_add_adjoint(g, a, io.dx[0]);
    zy_add_adjoint(g, c, io.dx[1]);
    return 0;
  }
  case LLVMFPExt:
    zy_add_adjoint(g, a, LLVMBuildFPTrunc(b, d, LLVMTypeOf(a), ""));
    return 0;
  case LLVMFPTrunc:
    zy_add_adjoint(g, a, LLVMBuildFPExt(b, d, LLVMTypeOf(a), ""));
    return 0;
  case LLVMSelect: { /* r = cond ? t : f */
    LLVMValueRef cond = L(a), t = c, f = LLVMGetOperand(i, 2);
    LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(d));
    if (ACTIVE(t))
      zy_add_adjoint(g, t, LLVMBuildSelect(b, cond, d, zero, ""));
    if (ACTIVE(f))
      zy_add_adjoint(g, f, LLVMBuildSelect(b, cond, zero, d, ""));
    return 0;
  }
  default:
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                        "no derivative rule for this instruction");
  }
#undef ACTIVE
#undef L
}
