/* rules.c - turns the rows of rules.def into builder functions and looks
 * rules up by callee name.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "rules.h"

#include "analysis/registry.h"

#include "irutil.h"

#include <stdio.h>
#include <string.h>

/* Shorthands used by the rows of rules.def.  `b`, `T` (the type of dy)
 * and the operands are locals of each generated builder. */
#define ADD(a, c) LLVMBuildFAdd(b, a, c, "")
#define SUB(a, c) LLVMBuildFSub(b, a, c, "")
#define MUL(a, c) LLVMBuildFMul(b, a, c, "")
#define DIV(a, c) LLVMBuildFDiv(b, a, c, "")
#define NEG(a) LLVMBuildFNeg(b, a, "")
#define K(c) zy_const_fp(T, c)
#define CALL1(name, a) zy_math1(b, name, a)
#define CALL2(name, a, c) zy_math(b, name, (LLVMValueRef[]){a, c}, 2)
#define SEL(c, a, d) LLVMBuildSelect(b, c, a, d, "")
#define OLT(a, c) LLVMBuildFCmp(b, LLVMRealOLT, a, c, "")
#define OEQ(a, c) LLVMBuildFCmp(b, LLVMRealOEQ, a, c, "")
#define DIGAMMA(a) zy_digamma(b, a)
#define POWI(a, n) zy_powi(b, a, n)
#define SITOFP(n) LLVMBuildSIToFP(b, n, T, "")
#define ISUB1(n) LLVMBuildSub(b, n, LLVMConstInt(LLVMTypeOf(n), 1, 0), "")

#define FIELD(v, k) LLVMBuildExtractValue(b, v, k, "")

/* The floating-point type of a rule's values: dy's, or its first
 * member's when the function returns a struct (llvm.sincos). */
static LLVMTypeRef value_type(LLVMValueRef v) {
  LLVMTypeRef t = LLVMTypeOf(v);
  return LLVMGetTypeKind(t) == LLVMStructTypeKind
             ? LLVMStructGetTypeAtIndex(t, 0)
             : t;
}

#define ZY_RULE(family, arity, where, needs_y, adjoints)                       \
  static void rule_##family(ZyRuleIO *io) {                                    \
    LLVMBuilderRef b = io->b;                                                  \
    LLVMTypeRef T = value_type(io->dy);                                        \
    LLVMValueRef x0 = io->x[0], x1 = io->x[1], x2 = io->x[2], y = io->y;       \
    LLVMValueRef dy = io->dy, dx0 = NULL, dx1 = NULL, dx2 = NULL;              \
    (void)b, (void)T, (void)x0, (void)x1, (void)x2, (void)y, (void)dy;         \
    adjoints;                                                                  \
    io->dx[0] = dx0, io->dx[1] = dx1, io->dx[2] = dx2;                         \
  }
#define ZY_RULE_OUT(family, outs, needs_y, adjoints)                           \
  static void rule_out_##family(ZyRuleIO *io) {                                \
    LLVMBuilderRef b = io->b;                                                  \
    LLVMTypeRef T = LLVMTypeOf(io->x[0]);                                      \
    LLVMValueRef x0 = io->x[0], x1 = io->x[1], x2 = io->x[2], y = io->y;       \
    LLVMValueRef dp0 = io->dp[0], dp1 = io->dp[1], dp2 = io->dp[2];            \
    LLVMValueRef dy = io->dy, dx0 = NULL, dx1 = NULL, dx2 = NULL;              \
    (void)b, (void)T, (void)x0, (void)x1, (void)x2, (void)y, (void)dy;         \
    (void)dp0, (void)dp1, (void)dp2;                                           \
    adjoints;                                                                  \
    io->dx[0] = dx0, io->dx[1] = dx1, io->dx[2] = dx2;                         \
  }
#include "rules.def"
#undef ZY_RULE
#undef ZY_RULE_OUT

static const ZyRule rules[] = {
#define ZY_RULE(family, arity, where, needs_y, adjoints)                       \
  {#family, arity, where, needs_y, rule_##family, NULL},
#define ZY_RULE_OUT(family, outs, needs_y, adjoints)
#include "rules.def"
#undef ZY_RULE
#undef ZY_RULE_OUT
};

static const ZyRule writers[] = {
#define ZY_RULE(family, arity, where, needs_y, adjoints)
#define ZY_RULE_OUT(family, outs, needs_y, adjoints)                           \
  {#family, 0, ZY_LIBM, needs_y, rule_out_##family, outs},
#include "rules.def"
#undef ZY_RULE
#undef ZY_RULE_OUT
};

const ZyRule *zy_rule_named(const char *family) {
  for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
    if (!strcmp(rules[i].family, family))
      return &rules[i];
  return NULL;
}

/* llvm.<family>.<types>, where a '_' in the family stands for a '.' in
 * the intrinsic name (arithmetic_fence: llvm.arithmetic.fence.f64). */
static int intrinsic_matches(const char *name, const char *family) {
  for (; *family; family++, name++)
    if (*name != (*family == '_' ? '.' : *family))
      return 0;
  return *name == '.' || *name == 0;
}

static const ZyRule *intrinsic_rule(const char *name) {
  for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
    if ((rules[i].where & ZY_INTR) && intrinsic_matches(name + 5, rules[i].family))
      return &rules[i];
  return NULL;
}

/* <family>, <family>f, <family>l, with floating-point parameters. */
static const ZyRule *libm_rule(LLVMValueRef callee, const char *name) {
  LLVMTypeRef fty = LLVMGlobalGetValueType(callee);
  LLVMTypeKind rk = LLVMGetTypeKind(LLVMGetReturnType(fty));
  if (rk != LLVMFloatTypeKind && rk != LLVMDoubleTypeKind &&
      rk != LLVMX86_FP80TypeKind && rk != LLVMFP128TypeKind)
    return NULL;
  for (size_t i = 0; i < sizeof rules / sizeof *rules; i++) {
    const ZyRule *r = &rules[i];
    size_t n = strlen(r->family);
    if (!(r->where & ZY_LIBM) || strncmp(name, r->family, n))
      continue;
    const char *suffix = name + n;
    if (strcmp(suffix, "") && strcmp(suffix, "f") && strcmp(suffix, "l"))
      continue;
    /* The differentiated operands are floats, any others integers. */
    unsigned np = LLVMCountParamTypes(fty);
    LLVMTypeRef params[4];
    if (np < r->arity || np > 4)
      return NULL;
    LLVMGetParamTypes(fty, params);
    for (unsigned k = 0; k < np; k++) {
      LLVMTypeKind pk = LLVMGetTypeKind(params[k]);
      if ((k < r->arity) == (pk == LLVMIntegerTypeKind) ||
          pk == LLVMPointerTypeKind)
        return NULL;
    }
    return r;
  }
  return NULL;
}

static int math_library(const char *name) {
  return !strncmp(name, "__nv_", 5) || !strncmp(name, "__ocml_", 7);
}

/* The libm name of a GPU math library function: CUDA's libdevice
 * `__nv_exp`/`__nv_expf` are exp/expf, ROCm's ocml `__ocml_exp_f64`/
 * `_f32` are exp/expf; other names as they are (in `buf`). */
static const char *libm_name(const char *name, char *buf, size_t size) {
  if (!strncmp(name, "__nv_", 5))
    return name + 5;
  if (strncmp(name, "__ocml_", 7))
    return name;
  size_t n = strlen(name + 7);
  if (n < 5 || n + 2 > size)
    return name;
  memcpy(buf, name + 7, n - 4);
  buf[n - 4] = 0;
  if (!strcmp(name + 7 + n - 4, "_f32"))
    strcat(buf, "f");
  else if (strcmp(name + 7 + n - 4, "_f64"))
    return name;
  return buf;
}

const ZyRule *zy_rule_for_call(LLVMValueRef callee) {
  if (!callee || !LLVMIsAFunction(callee))
    return NULL;
  char buf[64], own[64];
  /* Device code: the gradient calls snapshot.c's copy of libdevice's
   * function (`__nv_cosf.zymase.src`). */
  size_t len;
  const char *full = LLVMGetValueName2(callee, &len), *dot = strchr(full, '.');
  if (math_library(full) && dot && !strcmp(dot, ".zymase.src") &&
      (size_t)(dot - full) < sizeof own) {
    snprintf(own, sizeof own, "%.*s", (int)(dot - full), full);
    full = own;
  }
  const char *name = libm_name(full, buf, sizeof buf);
  const char *like = zy_registry_function_like(callee);
  if (like) /* checked when the registration is read: see zy_rule_like */
    return libm_rule(callee, like);
  if (!strncmp(name, "llvm.", 5))
    return intrinsic_rule(name);
  /* A GPU math library's functions may be defined (clang links libdevice
   * into the device module): their rule still applies. */
  if (LLVMIsDeclaration(callee) || math_library(full))
    return libm_rule(callee, name);
  return NULL;
}

static int is_fp(LLVMTypeRef t) {
  LLVMTypeKind k = LLVMGetTypeKind(t);
  return k == LLVMFloatTypeKind || k == LLVMDoubleTypeKind ||
         k == LLVMX86_FP80TypeKind || k == LLVMFP128TypeKind;
}

/* `name` is `family` with the precision suffix "", "f" or "l" (before a
 * final "_r": lgammaf_r). */
static int writer_name_matches(const char *name, const char *family) {
  size_t n = strlen(family), stem = n;
  if (n > 2 && !strcmp(family + n - 2, "_r"))
    stem = n - 2;
  if (strncmp(name, family, stem))
    return 0;
  const char *rest = name + stem;
  if (*rest == 'f' || *rest == 'l')
    rest++;
  return !strcmp(rest, family + stem);
}

const ZyRule *zy_rule_writer_for_call(LLVMValueRef callee) {
  if (!callee || !LLVMIsAFunction(callee) || !LLVMIsDeclaration(callee))
    return NULL;
  const char *name = LLVMGetValueName(callee);
  LLVMTypeRef fty = LLVMGlobalGetValueType(callee);
  LLVMTypeRef params[4], rt = LLVMGetReturnType(fty);
  unsigned np = LLVMCountParamTypes(fty);
  for (size_t i = 0; i < sizeof writers / sizeof *writers; i++) {
    const ZyRule *r = &writers[i];
    if (!writer_name_matches(name, r->family) || np != strlen(r->outs) ||
        np > 4)
      continue;
    LLVMGetParamTypes(fty, params);
    /* The inputs are floats of one type, which a result has too. */
    LLVMTypeRef ft = LLVMGetTypeKind(rt) == LLVMVoidTypeKind ? params[0] : rt;
    int ok = is_fp(ft);
    for (unsigned k = 0; k < np && ok; k++) {
      char o = r->outs[k];
      LLVMTypeKind pk = LLVMGetTypeKind(params[k]);
      ok = o == 'x'   ? params[k] == ft
           : o == 'i' ? pk == LLVMIntegerTypeKind
                      : pk == LLVMPointerTypeKind;
    }
    return ok ? r : NULL;
  }
  return NULL;
}

int zy_rule_known(LLVMValueRef callee) {
  return zy_rule_for_call(callee) != NULL;
}

int zy_rule_call(LLVMValueRef call) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  return callee && LLVMIsAFunction(callee) && zy_rule_known(callee);
}
