/* rules.h - derivative rules of math functions: LLVM intrinsics and libm.
 * The rules themselves are rows of rules.def.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_AD_RULES_H
#define ZY_AD_RULES_H

#include <llvm-c/Core.h>

/* What a rule's builder gets and gives.  Inputs are values usable at the
 * reverse position; `y` is set only for rules that need the result. */
typedef struct ZyRuleIO {
  LLVMBuilderRef b;
  LLVMValueRef x[3]; /* the call's operands (raw, any type)            */
  LLVMValueRef y;    /* the call's result (when the rule needs it)     */
  LLVMValueRef dy;   /* adjoint of the result (NULL for void results)  */
  LLVMValueRef dp[3];/* adjoints of the floats written through operand
                        pointers (rules with outputs, 'F' in `outs`)   */
  LLVMValueRef dx[3];/* out: adjoint contributions; NULL means none    */
} ZyRuleIO;

typedef struct ZyRule {
  const char *family; /* base name: sin, atan2, fmuladd, ...           */
  unsigned arity;     /* operands that receive an adjoint              */
  unsigned where;     /* ZY_INTR | ZY_LIBM                              */
  int needs_y;        /* the builder reads the result                  */
  void (*build)(ZyRuleIO *io);
  const char *outs;   /* rules with outputs (ZY_RULE_OUT): one letter per
                         operand, see rules.def; NULL for the others   */
} ZyRule;

enum { ZY_INTR = 1, ZY_LIBM = 2, ZY_BOTH = 3 };

/* The rule for a call to `callee` (llvm.sin.f64, sinf, ...), or NULL. */
const ZyRule *zy_rule_for_call(LLVMValueRef callee);

/* Whether `callee` has a rule: a ZyBenignCall for the effects analysis,
 * as math functions write at most errno. */
int zy_rule_known(LLVMValueRef callee);
/* Whether `call` calls a math function with a rule (whose only effect on
 * memory is errno, which no user pointer reaches). */
int zy_rule_call(LLVMValueRef call);

/* The rule of a libm function that also writes results through pointer
 * operands (sincos, frexp, modf, ...), or NULL.  These are not
 * zy_rule_known: they write memory. */
const ZyRule *zy_rule_writer_for_call(LLVMValueRef callee);

/* The rule for a family name ("fmod" is also used for frem). */
const ZyRule *zy_rule_named(const char *family);

#endif
