/* ptx_asm.c - GPU on CPU: the few inline PTX snippets of CUDA's libdevice
 * (approximate reciprocals, rounded subtractions, carry chains of wide
 * multiplications) made the same arithmetic in host IR, so that programs
 * compiled with libdevice (`zymase-clang --gpu-on-cpu --libdevice`) run;
 * any other inline assembly stays refused by to_host.c.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "gpu.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

enum Kind {
  RCP_F32,     /* rcp.approx.ftz.f32 $0,$1;  -> 1/x */
  RSQRT_F64,   /* rsqrt.approx.ftz.f64 $0, $1;  -> 1/sqrt(x) */
  SELP_EQU,    /* setp.equ + selp: $1 == $2 or unordered ? $3 : $4 */
  MAD_CC32,    /* {lo, hi} of a*b + c, 32-bit operands */
  MUL_WIDE64,  /* {lo, hi} of a*b, 64-bit operands, 128-bit product */
  MAD_WIDE64,  /* {lo, hi} of a*b + c, 64-bit operands */
  ADD128,      /* {lo, hi} of ($2,$3) + ($4,$5) */
  SUB128,      /* {lo, hi} of ($2,$3) - ($4,$5) */
  BFIND_SHIFT, /* bfind.shiftamt.u32: leading zeros, ~0 for 0 */
};

/* libdevice's snippets, whitespace removed. */
static const struct {
  const char *text;
  enum Kind kind;
} SNIPPETS[] = {
    {"rcp.approx.ftz.f32$0,$1;", RCP_F32},
    {"rsqrt.approx.ftz.f64$0,$1;", RSQRT_F64},
    {"{.reg.pred__$$temp3;setp.equ.f64__$$temp3,$1,$2;selp.f64$0,$3,$4,__$$"
     "temp3;}",
     SELP_EQU},
    {"{mad.lo.cc.u32$0,$2,$3,$4;madc.hi.u32$1,$2,$3,0;}", MAD_CC32},
    {"{.reg.u32r0,r1,r2,r3,alo,ahi,blo,bhi;mov.b64{alo,ahi},$2;mov.b64{blo,"
     "bhi},$3;mul.lo.u32r0,alo,blo;mul.hi.u32r1,alo,blo;mad.lo.cc.u32r1,alo,"
     "bhi,r1;madc.hi.u32r2,alo,bhi,0;mad.lo.cc.u32r1,ahi,blo,r1;madc.hi.cc."
     "u32r2,ahi,blo,r2;madc.hi.u32r3,ahi,bhi,0;mad.lo.cc.u32r2,ahi,bhi,r2;"
     "addc.u32r3,r3,0;mov.b64$0,{r0,r1};mov.b64$1,{r2,r3};}",
     MUL_WIDE64},
    {"{.reg.u32r0,r1,r2,r3,alo,ahi,blo,bhi,clo,chi;mov.b64{alo,ahi},$2;mov."
     "b64{blo,bhi},$3;mov.b64{clo,chi},$4;mad.lo.cc.u32r0,alo,blo,clo;madc."
     "hi.cc.u32r1,alo,blo,chi;madc.hi.u32r2,alo,bhi,0;mad.lo.cc.u32r1,alo,"
     "bhi,r1;madc.hi.cc.u32r2,ahi,blo,r2;madc.hi.u32r3,ahi,bhi,0;mad.lo.cc."
     "u32r1,ahi,blo,r1;madc.lo.cc.u32r2,ahi,bhi,r2;addc.u32r3,r3,0;mov.b64$0,"
     "{r0,r1};mov.b64$1,{r2,r3};}",
     MAD_WIDE64},
    {"{.reg.u32r0,r1,r2,r3,a0,a1,a2,a3,b0,b1,b2,b3;mov.b64{a0,a1},$2;mov.b64{"
     "a2,a3},$3;mov.b64{b0,b1},$4;mov.b64{b2,b3},$5;add.cc.u32r0,a0,b0;addc."
     "cc.u32r1,a1,b1;addc.cc.u32r2,a2,b2;addc.u32r3,a3,b3;mov.b64$0,{r0,r1};"
     "mov.b64$1,{r2,r3};}",
     ADD128},
    {"{.reg.u32r0,r1,r2,r3,a0,a1,a2,a3,b0,b1,b2,b3;mov.b64{a0,a1},$2;mov.b64{"
     "a2,a3},$3;mov.b64{b0,b1},$4;mov.b64{b2,b3},$5;sub.cc.u32r0,a0,b0;subc."
     "cc.u32r1,a1,b1;subc.cc.u32r2,a2,b2;subc.u32r3,a3,b3;mov.b64$0,{r0,r1};"
     "mov.b64$1,{r2,r3};}",
     SUB128},
    {"bfind.shiftamt.u32$0,$1;", BFIND_SHIFT},
};

static void squeeze(const char *s, size_t n, char *out, size_t size) {
  size_t k = 0;
  for (size_t i = 0; i < n && k + 1 < size; i++)
    if (!isspace((unsigned char)s[i]))
      out[k++] = s[i];
  out[k] = 0;
}

static LLVMValueRef arg(LLVMValueRef call, unsigned k) {
  return LLVMGetOperand(call, k);
}

static LLVMValueRef unary_intrinsic(LLVMBuilderRef b, LLVMModuleRef m,
                                    const char *name, LLVMValueRef x) {
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef f = LLVMGetIntrinsicDeclaration(
      m, LLVMLookupIntrinsicID(name, strlen(name)), &t, 1);
  return LLVMBuildCall2(b, LLVMGlobalGetValueType(f), f, &x, 1, "");
}

/* The pair {lo, hi} of the asm's struct result from a 2n-bit value. */
static LLVMValueRef split(LLVMBuilderRef b, LLVMTypeRef st, LLVMValueRef wide,
                          LLVMTypeRef half, unsigned bits) {
  LLVMValueRef lo = LLVMBuildTrunc(b, wide, half, "");
  LLVMValueRef hi = LLVMBuildTrunc(
      b, LLVMBuildLShr(b, wide, LLVMConstInt(LLVMTypeOf(wide), bits, 0), ""),
      half, "");
  LLVMValueRef r = LLVMGetUndef(st);
  r = LLVMBuildInsertValue(b, r, lo, 0, "");
  return LLVMBuildInsertValue(b, r, hi, 1, "");
}

/* The 128-bit value of two 64-bit halves. */
static LLVMValueRef join128(LLVMBuilderRef b, LLVMValueRef lo,
                            LLVMValueRef hi) {
  LLVMTypeRef t = LLVMIntTypeInContext(LLVMGetTypeContext(LLVMTypeOf(lo)), 128);
  LLVMValueRef h =
      LLVMBuildShl(b, LLVMBuildZExt(b, hi, t, ""), LLVMConstInt(t, 64, 0), "");
  return LLVMBuildOr(b, LLVMBuildZExt(b, lo, t, ""), h, "");
}

/* `sub.<rnd>[.ftz].f32/.f64 $0, $1, $2;`: the runtime's add of the
 * negated operand in that rounding mode (runtime/gpu-on-cpu/nvvm_math.c). */
static LLVMValueRef rounded_sub(LLVMBuilderRef b, LLVMModuleRef m,
                                const char *text, LLVMValueRef call) {
  char rnd[3] = {0}, ty[4] = {0};
  int ftz = 0;
  if (strncmp(text, "sub.", 4) || strlen(text) < 10)
    return NULL;
  memcpy(rnd, text + 4, 2);
  const char *p = text + 6;
  if (!strncmp(p, ".ftz", 4))
    ftz = 1, p += 4;
  if (*p != '.' || strcmp(p + 4, "$0,$1,$2;"))
    return NULL;
  memcpy(ty, p + 1, 3);
  if (strcmp(rnd, "rn") && strcmp(rnd, "rz") && strcmp(rnd, "rm") &&
      strcmp(rnd, "rp"))
    return NULL;
  int f64 = !strcmp(ty, "f64");
  if (!f64 && strcmp(ty, "f32"))
    return NULL;
  char name[64];
  snprintf(name, sizeof name, "__zy_nvvm_add_%s_%s", rnd,
           f64   ? "d"
           : ftz ? "ftz_f"
                 : "f");
  LLVMTypeRef t = LLVMTypeOf(arg(call, 0));
  LLVMTypeRef params[2] = {t, t};
  LLVMTypeRef fty = LLVMFunctionType(t, params, 2, 0);
  LLVMValueRef f = LLVMGetNamedFunction(m, name);
  if (!f)
    f = LLVMAddFunction(m, name, fty);
  LLVMValueRef args[2] = {arg(call, 0), LLVMBuildFNeg(b, arg(call, 1), "")};
  return LLVMBuildCall2(b, fty, f, args, 2, "");
}

static LLVMValueRef build(LLVMBuilderRef b, LLVMModuleRef m, enum Kind k,
                          LLVMValueRef call) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef rt = LLVMTypeOf(call);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c), i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef i128 = LLVMIntTypeInContext(c, 128);
  switch (k) {
  case RCP_F32:
    return LLVMBuildFDiv(b, LLVMConstReal(rt, 1), arg(call, 0), "");
  case RSQRT_F64:
    return LLVMBuildFDiv(b, LLVMConstReal(rt, 1),
                         unary_intrinsic(b, m, "llvm.sqrt", arg(call, 0)), "");
  case SELP_EQU:
    return LLVMBuildSelect(
        b, LLVMBuildFCmp(b, LLVMRealUEQ, arg(call, 0), arg(call, 1), ""),
        arg(call, 2), arg(call, 3), "");
  case MAD_CC32: {
    LLVMValueRef p = LLVMBuildMul(b, LLVMBuildZExt(b, arg(call, 0), i64, ""),
                                  LLVMBuildZExt(b, arg(call, 1), i64, ""), "");
    p = LLVMBuildAdd(b, p, LLVMBuildZExt(b, arg(call, 2), i64, ""), "");
    return split(b, rt, p, i32, 32);
  }
  case MUL_WIDE64:
  case MAD_WIDE64: {
    LLVMValueRef p = LLVMBuildMul(b, LLVMBuildZExt(b, arg(call, 0), i128, ""),
                                  LLVMBuildZExt(b, arg(call, 1), i128, ""), "");
    if (k == MAD_WIDE64)
      p = LLVMBuildAdd(b, p, LLVMBuildZExt(b, arg(call, 2), i128, ""), "");
    return split(b, rt, p, i64, 64);
  }
  case ADD128:
  case SUB128: {
    LLVMValueRef x = join128(b, arg(call, 0), arg(call, 1));
    LLVMValueRef y = join128(b, arg(call, 2), arg(call, 3));
    LLVMValueRef r =
        k == ADD128 ? LLVMBuildAdd(b, x, y, "") : LLVMBuildSub(b, x, y, "");
    return split(b, rt, r, i64, 64);
  }
  case BFIND_SHIFT: {
    LLVMValueRef x = arg(call, 0);
    LLVMTypeRef t = i32;
    LLVMValueRef f = LLVMGetIntrinsicDeclaration(
        m, LLVMLookupIntrinsicID("llvm.ctlz", 9), &t, 1);
    LLVMValueRef args[2] = {x, LLVMConstInt(LLVMInt1TypeInContext(c), 0, 0)};
    LLVMValueRef z =
        LLVMBuildCall2(b, LLVMGlobalGetValueType(f), f, args, 2, "");
    return LLVMBuildSelect(
        b, LLVMBuildICmp(b, LLVMIntEQ, x, LLVMConstInt(i32, 0, 0), ""),
        LLVMConstInt(i32, 0xffffffffu, 0), z, "");
  }
  }
  return NULL;
}

int zy_gpu_ptx_asm(LLVMModuleRef m, LLVMValueRef call) {
  size_t len;
  const char *s = LLVMGetInlineAsmAsmString(LLVMGetCalledValue(call), &len);
  char text[1024];
  if (len >= sizeof text)
    return 0;
  squeeze(s, len, text, sizeof text);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
  LLVMPositionBuilderBefore(b, call);
  LLVMValueRef v = rounded_sub(b, m, text, call);
  for (size_t k = 0; !v && k < sizeof SNIPPETS / sizeof *SNIPPETS; k++)
    if (!strcmp(text, SNIPPETS[k].text))
      v = build(b, m, SNIPPETS[k].kind, call);
  LLVMDisposeBuilder(b);
  if (!v)
    return 0;
  LLVMReplaceAllUsesWith(call, v);
  LLVMInstructionEraseFromParent(call);
  return 1;
}
