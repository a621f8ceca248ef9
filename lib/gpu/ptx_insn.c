/* ptx_insn.c - GPU on CPU: the inline PTX of CUDA's C++ libraries (CUB,
 * Thrust, libcu++ as CUDA 13 ships them under include/cccl), interpreted
 * once at compile time into the same operations in IR: straight-line
 * snippets of moves (special registers, packing and unpacking), integer
 * and float arithmetic, shifts, compares, selects, bit masks, shuffles
 * with their lane predicate, votes, loads and stores (read-only caches,
 * memory orders), fences, nanosleep and exit, each optionally guarded by
 * a predicate.  The GPU intrinsics it emits are mapped to the runtime by
 * to_host.c like clang's own; anything else stays refused there.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ptx_insn.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *zy_ptx_trim(char *s) {
  while (isspace((unsigned char)*s))
    s++;
  char *e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1]))
    *--e = 0;
  return s;
}

int zy_ptx_has(const ZyPtxInsn *in, const char *part) {
  for (unsigned k = 1; k < in->nparts; k++)
    if (!strcmp(in->part[k], part))
      return 1;
  return 0;
}

/* The width in bits of the instruction's type (its last part: b32, u64,
 * f32, pred, ...), 0 if none. */
unsigned zy_ptx_type_bits(const ZyPtxInsn *in, int *fp, int *sgn) {
  const char *t = in->part[in->nparts - 1];
  *fp = t[0] == 'f';
  *sgn = t[0] == 's';
  if (!strcmp(t, "pred"))
    return 1;
  if (strchr("bsuf", t[0]) && isdigit((unsigned char)t[1]))
    return (unsigned)atoi(t + 1);
  return 0;
}

LLVMTypeRef zy_ptx_int_type(ZyPtx *p, unsigned bits) {
  return LLVMIntTypeInContext(p->c, bits);
}

LLVMTypeRef zy_ptx_float_type(ZyPtx *p, unsigned bits) {
  return bits == 64 ? LLVMDoubleTypeInContext(p->c)
                    : LLVMFloatTypeInContext(p->c);
}

/* `v` as an integer of `bits` bits (pointers by address, floats by their
 * bits; wider values truncated, narrower ones zero-extended). */
LLVMValueRef zy_ptx_as_int(ZyPtx *p, LLVMValueRef v, unsigned bits) {
  LLVMTypeRef t = LLVMTypeOf(v);
  LLVMTypeKind k = LLVMGetTypeKind(t);
  if (k == LLVMPointerTypeKind)
    v = LLVMBuildPtrToInt(p->b, v, zy_ptx_int_type(p, 64), ""),
    t = LLVMTypeOf(v);
  else if (k == LLVMFloatTypeKind || k == LLVMDoubleTypeKind ||
           k == LLVMHalfTypeKind)
    v = LLVMBuildBitCast(p->b, v,
                         zy_ptx_int_type(p, k == LLVMDoubleTypeKind  ? 64
                                            : k == LLVMFloatTypeKind ? 32
                                                                     : 16),
                         ""),
    t = LLVMTypeOf(v);
  unsigned have = LLVMGetIntTypeWidth(t);
  if (have > bits)
    return LLVMBuildTrunc(p->b, v, zy_ptx_int_type(p, bits), "");
  if (have < bits)
    return LLVMBuildZExt(p->b, v, zy_ptx_int_type(p, bits), "");
  return v;
}

LLVMValueRef zy_ptx_as_float(ZyPtx *p, LLVMValueRef v, unsigned bits) {
  if (LLVMTypeOf(v) == zy_ptx_float_type(p, bits))
    return v;
  return LLVMBuildBitCast(p->b, zy_ptx_as_int(p, v, bits),
                          zy_ptx_float_type(p, bits), "");
}

/* `v` converted to type `t` (an output's or a pointer). */
LLVMValueRef zy_ptx_convert(ZyPtx *p, LLVMValueRef v, LLVMTypeRef t) {
  if (LLVMTypeOf(v) == t)
    return v;
  LLVMTypeKind k = LLVMGetTypeKind(t);
  if (k == LLVMPointerTypeKind)
    return LLVMBuildIntToPtr(p->b, zy_ptx_as_int(p, v, 64), t, "");
  if (k == LLVMFloatTypeKind || k == LLVMDoubleTypeKind)
    return zy_ptx_as_float(p, v, k == LLVMDoubleTypeKind ? 64 : 32);
  if (k == LLVMIntegerTypeKind)
    return zy_ptx_as_int(p, v, LLVMGetIntTypeWidth(t));
  return NULL;
}

static ZyPtxReg *zy_ptx_reg(ZyPtx *p, const char *name, int make) {
  for (unsigned k = 0; k < p->nregs; k++)
    if (!strcmp(p->regs[k].name, name))
      return &p->regs[k];
  if (!make || p->nregs == ZY_PTX_MAX_REGS ||
      strlen(name) >= sizeof p->regs[0].name)
    return NULL;
  ZyPtxReg *r = &p->regs[p->nregs++];
  strcpy(r->name, name);
  r->v = NULL;
  return r;
}

LLVMValueRef zy_ptx_intrinsic(ZyPtx *p, const char *name, LLVMTypeRef *over,
                              unsigned nover, LLVMValueRef *args,
                              unsigned nargs) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  if (!id)
    return NULL;
  LLVMValueRef f = LLVMGetIntrinsicDeclaration(p->m, id, over, nover);
  return LLVMBuildCall2(p->b, LLVMGlobalGetValueType(f), f, args, nargs, "");
}

/* A stack slot in the entry block of the function being rewritten. */
LLVMValueRef zy_ptx_entry_alloca(ZyPtx *p, LLVMTypeRef t) {
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(
      LLVMGetBasicBlockParent(LLVMGetInstructionParent(p->call)));
  LLVMBuilderRef eb = LLVMCreateBuilderInContext(p->c);
  LLVMPositionBuilderBefore(eb, LLVMGetFirstInstruction(entry));
  LLVMValueRef a = LLVMBuildAlloca(eb, t, "ptx.tmp");
  LLVMSetAlignment(a, 16);
  LLVMDisposeBuilder(eb);
  return a;
}

/* A runtime function of the GPU-on-CPU runtime (zymase_gpu.h). */
LLVMValueRef zy_ptx_runtime(ZyPtx *p, const char *name, LLVMTypeRef ret,
                            LLVMTypeRef *params, unsigned n,
                            LLVMValueRef *args) {
  LLVMTypeRef fty = LLVMFunctionType(ret, params, n, 0);
  LLVMValueRef f = LLVMGetNamedFunction(p->m, name);
  if (!f)
    f = LLVMAddFunction(p->m, name, fty);
  return LLVMBuildCall2(p->b, fty, f, args, n, "");
}

/* Special registers: the lane, the lane masks. */
LLVMValueRef zy_ptx_special(ZyPtx *p, const char *s) {
  static const char *const names[] = {
      "laneid",      "lanemask_eq", "lanemask_lt", "lanemask_le", "lanemask_gt",
      "lanemask_ge", "warpsize",    "tid.x",       "tid.y",       "tid.z",
      "ntid.x",      "ntid.y",      "ntid.z",      "ctaid.x",     "ctaid.y",
      "ctaid.z",     "nctaid.x",    "nctaid.y",    "nctaid.z",    "clock",
      "clock64",     "globaltimer"};
  char full[64];
  for (size_t k = 0; k < sizeof names / sizeof *names; k++)
    if (!strcmp(s + 1, names[k])) {
      snprintf(full, sizeof full, "llvm.nvvm.read.ptx.sreg.%s", names[k]);
      for (char *q = full; *q; q++)
        if (*q == '_')
          *q = '.';
      return zy_ptx_intrinsic(p, full, NULL, 0, NULL, 0);
    }
  return NULL;
}

/* A literal: an integer (decimal, hex, octal, an optional U), a float's
 * bits (0fXXXXXXXX, 0dXXXXXXXXXXXXXXXX) or a decimal float, the latter
 * only where a float of `bits` bits is wanted (`fp`); NULL for anything
 * else, never a misread value. */
static LLVMValueRef literal(ZyPtx *p, const char *s, unsigned bits, int fp) {
  const char *t = s + (s[0] == '-');
  char *end;
  if (t[0] == '0' && strchr("fFdD", t[1]) && t[1]) {
    unsigned w = t[1] == 'f' || t[1] == 'F' ? 32 : 64;
    unsigned long long u = strtoull(t + 2, &end, 16);
    if (*end || end == t + 2)
      return NULL;
    LLVMValueRef v =
        zy_ptx_as_float(p, LLVMConstInt(zy_ptx_int_type(p, w), u, 0), w);
    if (s[0] == '-')
      v = LLVMBuildFNeg(p->b, v, "");
    if (fp && bits && bits != w)
      v = LLVMBuildFPCast(p->b, v, zy_ptx_float_type(p, bits), "");
    return v;
  }
  int hex = t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
  if (!hex && strpbrk(t, ".eE")) {
    double d = strtod(s, &end);
    if (*end || !fp || (bits != 32 && bits != 64))
      return NULL;
    return LLVMConstReal(zy_ptx_float_type(p, bits), d);
  }
  unsigned long long u = strtoull(t, &end, 0);
  if (*end == 'U' || *end == 'u')
    end++;
  if (*end || end == t)
    return NULL;
  if (s[0] == '-')
    u = 0 - u;
  return LLVMConstInt(zy_ptx_int_type(p, bits ? bits : 32), u, 0);
}

/* The value of operand text `s` as an integer of `bits` bits (a float of
 * them when `fp`); NULL when it is none this interpreter knows. */
LLVMValueRef zy_ptx_get(ZyPtx *p, const char *s, unsigned bits, int fp) {
  LLVMValueRef v = NULL;
  if (s[0] == '$') {
    unsigned k = (unsigned)atoi(s + 1);
    unsigned nargs = LLVMGetNumArgOperands(p->call);
    if (k < p->nout)
      v = p->out[k] ? p->out[k] : LLVMGetUndef(p->out_type[k]);
    else if (k - p->nout < nargs)
      v = LLVMGetOperand(p->call, k - p->nout);
  } else if (s[0] == '%') {
    v = zy_ptx_special(p, s);
  } else if (isdigit((unsigned char)s[0]) || s[0] == '-') {
    v = literal(p, s, bits, fp);
  } else {
    ZyPtxReg *r = zy_ptx_reg(p, s, 0);
    v = r ? r->v : NULL;
    if (r && !v)
      v = LLVMGetUndef(zy_ptx_int_type(p, bits ? bits : 32));
  }
  if (!v || !bits)
    return v;
  return fp ? zy_ptx_as_float(p, v, bits) : zy_ptx_as_int(p, v, bits);
}

int zy_ptx_set(ZyPtx *p, const char *s, LLVMValueRef v) {
  if (s[0] == '$') {
    unsigned k = (unsigned)atoi(s + 1);
    if (k >= p->nout)
      return -1;
    p->out[k] = v;
    return 0;
  }
  ZyPtxReg *r = zy_ptx_reg(p, s, 1);
  if (!r)
    return -1;
  r->v = v;
  return 0;
}

/* The parts of a vector operand `{a, b}` (NULL-terminated, in place). */
unsigned zy_ptx_vector(char *s, char **parts, unsigned max) {
  if (s[0] != '{')
    return 0;
  char *e = strchr(s, '}');
  if (!e)
    return 0;
  *e = 0;
  unsigned n = 0;
  for (char *t = strtok(s + 1, ","); t && n < max; t = strtok(NULL, ","))
    parts[n++] = zy_ptx_trim(t);
  return n;
}

/* The address of a memory operand `[x]` or `[x+imm]`, as a pointer. */
LLVMValueRef zy_ptx_address(ZyPtx *p, char *s) {
  if (s[0] != '[')
    return NULL;
  char *e = strchr(s, ']');
  if (!e)
    return NULL;
  *e = 0;
  char *plus = strchr(s + 1, '+');
  long long off = 0;
  if (plus)
    *plus = 0, off = strtoll(zy_ptx_trim(plus + 1), NULL, 0);
  LLVMValueRef a = zy_ptx_get(p, zy_ptx_trim(s + 1), 0, 0);
  if (!a)
    return NULL;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(p->c, 0);
  if (LLVMGetTypeKind(LLVMTypeOf(a)) != LLVMPointerTypeKind)
    a = LLVMBuildIntToPtr(p->b, zy_ptx_as_int(p, a, 64), ptr, "");
  if (off) {
    LLVMValueRef o =
        LLVMConstInt(zy_ptx_int_type(p, 64), (unsigned long long)off, 1);
    a = LLVMBuildGEP2(p->b, LLVMInt8TypeInContext(p->c), a, &o, 1, "");
  }
  return a;
}

/* Splits `text` into instructions and runs them; 0, or -1 at the first
 * one not understood. */
static int interpret(ZyPtx *p, char *text) {
  char *s = zy_ptx_trim(text);
  if (*s == '{') {
    s++;
    char *e = strrchr(s, '}');
    if (!e)
      return -1;
    *e = 0;
  }
  for (char *stmt = s, *next; stmt && *stmt; stmt = next) {
    next = strchr(stmt, ';');
    if (next)
      *next++ = 0;
    stmt = zy_ptx_trim(stmt);
    if (!*stmt || stmt[0] == '.') /* .reg declarations */
      continue;
    ZyPtxInsn in = {0};
    if (stmt[0] == '@') {
      in.negate = stmt[1] == '!';
      in.guard = stmt + 1 + in.negate;
      stmt = strpbrk(in.guard, " \t");
      if (!stmt)
        return -1;
      *stmt++ = 0;
      stmt = zy_ptx_trim(stmt);
    }
    char *ops = strpbrk(stmt, " \t");
    if (ops)
      *ops++ = 0;
    for (char *t = strtok(stmt, "."); t && in.nparts < 8; t = strtok(NULL, "."))
      in.part[in.nparts++] = t;
    /* Operands, split at commas outside braces and brackets. */
    int depth = 0;
    for (char *q = ops, *start = ops; q && in.nops < ZY_PTX_MAX_OPS; q++) {
      if (*q == '{' || *q == '[')
        depth++;
      else if (*q == '}' || *q == ']')
        depth--;
      else if ((*q == ',' && !depth) || !*q) {
        int end = !*q;
        *q = 0;
        if (*zy_ptx_trim(start))
          in.op[in.nops++] = zy_ptx_trim(start);
        start = q + 1;
        if (end)
          break;
      }
    }
    if (!in.nparts || zy_ptx_run(p, &in))
      return -1;
  }
  return 0;
}

static unsigned constraints(ZyPtx *p, LLVMValueRef asm_) {
  size_t len;
  const char *s = LLVMGetInlineAsmConstraintString(asm_, &len);
  unsigned nout = 0;
  for (size_t i = 0; i < len; i++)
    if ((i == 0 || s[i - 1] == ',') && s[i] == '=')
      nout++;
  (void)p;
  return nout;
}

int zy_gpu_ptx_insn(LLVMModuleRef m, LLVMValueRef call) {
  LLVMValueRef asm_ = LLVMGetCalledValue(call);
  size_t len;
  const char *s = LLVMGetInlineAsmAsmString(asm_, &len);
  if (len >= ZY_PTX_MAX_TEXT)
    return 0;
  char text[ZY_PTX_MAX_TEXT];
  memcpy(text, s, len);
  text[len] = 0;
  ZyPtx p = {.m = m, .c = LLVMGetModuleContext(m), .call = call};
  p.nout = constraints(&p, asm_);
  LLVMTypeRef rt = LLVMTypeOf(call);
  if (p.nout > ZY_PTX_MAX_OUT)
    return 0;
  for (unsigned k = 0; k < p.nout; k++)
    p.out_type[k] = p.nout == 1 ? rt : LLVMStructGetTypeAtIndex(rt, k);
  p.b = LLVMCreateBuilderInContext(p.c);
  LLVMPositionBuilderBefore(p.b, call);
  LLVMValueRef first = LLVMGetPreviousInstruction(call);
  int ok = !interpret(&p, text);
  LLVMValueRef r = NULL;
  for (unsigned k = 0; ok && k < p.nout; k++) {
    LLVMValueRef v =
        p.out[k] ? zy_ptx_convert(&p, p.out[k], p.out_type[k]) : NULL;
    ok = v != NULL;
    if (p.nout == 1)
      r = v;
    else if (ok)
      r = LLVMBuildInsertValue(p.b, r ? r : LLVMGetUndef(rt), v, k, "");
  }
  if (!ok) { /* undo what was built */
    for (LLVMValueRef i = LLVMGetPreviousInstruction(call), prev; i != first;
         i = prev) {
      prev = LLVMGetPreviousInstruction(i);
      LLVMInstructionEraseFromParent(i);
    }
    LLVMDisposeBuilder(p.b);
    return 0;
  }
  if (r)
    LLVMReplaceAllUsesWith(call, r);
  LLVMInstructionEraseFromParent(call);
  LLVMDisposeBuilder(p.b);
  return 1;
}
