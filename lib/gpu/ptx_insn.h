/* ptx_insn.h - the interpreter of inline PTX (ptx_insn.c) and its
 * instructions (ptx_ops.c), inside lib/gpu: the snippet being interpreted,
 * one instruction, and the helpers the instructions use.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_GPU_PTX_INSN_H
#define ZY_GPU_PTX_INSN_H

#include "gpu.h"

enum {
  ZY_PTX_MAX_OUT = 8,
  ZY_PTX_MAX_REGS = 32,
  ZY_PTX_MAX_OPS = 8,
  ZY_PTX_MAX_TEXT = 2048
};

typedef struct ZyPtxReg {
  char name[24];
  LLVMValueRef v;
} ZyPtxReg;

/* One snippet being interpreted: the asm call, its operands ($0.. are
 * the outputs, then the inputs), the snippet's own registers. */
typedef struct ZyPtx {
  LLVMModuleRef m;
  LLVMContextRef c;
  LLVMBuilderRef b;
  LLVMValueRef call;
  unsigned nout;
  LLVMTypeRef out_type[ZY_PTX_MAX_OUT];
  LLVMValueRef out[ZY_PTX_MAX_OUT];
  ZyPtxReg regs[ZY_PTX_MAX_REGS];
  unsigned nregs;
} ZyPtx;

/* An instruction: opcode parts (`ld`, `global`, `nc`, `u64`), guard,
 * operand texts. */
typedef struct ZyPtxInsn {
  char *part[8];
  unsigned nparts;
  char *guard; /* predicate register, or NULL */
  int negate;  /* @!p */
  char *op[ZY_PTX_MAX_OPS];
  unsigned nops;
} ZyPtxInsn;

/* Text helpers: `s` without surrounding blanks (in place); whether the
 * opcode has part `part`; the width of its type (its last part: b32, u64,
 * f32, pred), with whether it is floating point and signed. */
char *zy_ptx_trim(char *s);
int zy_ptx_has(const ZyPtxInsn *in, const char *part);
unsigned zy_ptx_type_bits(const ZyPtxInsn *in, int *fp, int *sgn);

/* Types and conversions: `v` as an integer of `bits` bits (pointers by
 * address, floats by their bits; truncated or zero-extended), as a float
 * of `bits` bits, or as type `t` (NULL when it cannot be). */
LLVMTypeRef zy_ptx_int_type(ZyPtx *p, unsigned bits);
LLVMTypeRef zy_ptx_float_type(ZyPtx *p, unsigned bits);
LLVMValueRef zy_ptx_as_int(ZyPtx *p, LLVMValueRef v, unsigned bits);
LLVMValueRef zy_ptx_as_float(ZyPtx *p, LLVMValueRef v, unsigned bits);
LLVMValueRef zy_ptx_convert(ZyPtx *p, LLVMValueRef v, LLVMTypeRef t);

/* Emitting: a call of intrinsic `name` (overloaded on `over`), of runtime
 * function `name` (zymase_gpu.h), a special register (`%laneid`, the lane
 * masks; NULL for others), a stack slot in the function's entry. */
LLVMValueRef zy_ptx_intrinsic(ZyPtx *p, const char *name, LLVMTypeRef *over,
                              unsigned nover, LLVMValueRef *args,
                              unsigned nargs);
LLVMValueRef zy_ptx_runtime(ZyPtx *p, const char *name, LLVMTypeRef ret,
                            LLVMTypeRef *params, unsigned n,
                            LLVMValueRef *args);
LLVMValueRef zy_ptx_special(ZyPtx *p, const char *s);
LLVMValueRef zy_ptx_entry_alloca(ZyPtx *p, LLVMTypeRef t);

/* Operands: the value of text `s` ($n, a register, a number, a special
 * register) as an integer of `bits` bits (a float when `fp`; as it is
 * for 0), NULL when unknown; writing destination `s` (0, or -1); the
 * parts of a vector `{a, b}` (in place; 0 when `s` is none); the address
 * of `[x]` or `[x+imm]` as a pointer. */
LLVMValueRef zy_ptx_get(ZyPtx *p, const char *s, unsigned bits, int fp);
int zy_ptx_set(ZyPtx *p, const char *s, LLVMValueRef v);
unsigned zy_ptx_vector(char *s, char **parts, unsigned max);
LLVMValueRef zy_ptx_address(ZyPtx *p, char *s);

/* ptx_ops.c: builds instruction `in`; 0, or -1 when it is one the
 * interpreter does not know (nothing is then kept of the snippet). */
int zy_ptx_run(ZyPtx *p, ZyPtxInsn *in);

#endif
