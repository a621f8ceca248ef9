/* batch.c - lowers __enzyme_batch(fn, enzyme_width, N, args...) calls:
 * fn run for N lanes, as Enzyme's batch mode: an argument is N values,
 * one per lane (enzyme_vector, or no marker), or one value all lanes
 * share (enzyme_scalar); the call returns the N results in a row.  The
 * lanes run one after another, which is the same as running them side by
 * side only when they cannot see each other's writes: fn may write
 * memory outside its frame only through its per-lane pointer arguments,
 * else the call is refused.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "abi.h"

#include "analysis/effects.h"
#include "ir/rules.h"

#include <stdlib.h>
#include <string.h>

static const char *const HINT =
    "declare the result as a struct of N values of the function's result "
    "type (or void)";

/* What `p` points into: through GEPs, casts and their constant forms. */
static LLVMValueRef underlying(LLVMValueRef p) {
  for (int depth = 0; depth < 64; depth++) {
    if (LLVMIsAGetElementPtrInst(p) || LLVMIsABitCastInst(p) ||
        LLVMIsAAddrSpaceCastInst(p) ||
        (LLVMIsAConstantExpr(p) && LLVMGetNumOperands(p) > 0))
      p = LLVMGetOperand(p, 0);
    else
      return p;
  }
  return p;
}

/* Whether a write through `p` in fn stays in this lane: fn's stack, a
 * private heap block, or a pointer argument given per lane (bit i of
 * `lane_ptrs`). */
static int lane_local(LLVMValueRef p, unsigned long long lane_ptrs) {
  LLVMValueRef u = underlying(p);
  if (LLVMIsAAllocaInst(u) || (LLVMIsAInstruction(u) && zy_effects_private(u)))
    return 1;
  if (!LLVMIsAArgument(u))
    return 0;
  LLVMValueRef fn = LLVMGetParamParent(u);
  for (unsigned i = 0; i < LLVMCountParams(fn) && i < 64; i++)
    if (LLVMGetParam(fn, i) == u)
      return lane_ptrs >> i & 1;
  return 0;
}

/* The first instruction of fn through which one lane could write what
 * another sees, or NULL: a write outside the lane's memory, or a call of
 * a function that writes outside its frame. */
static LLVMValueRef shared_write(LLVMValueRef fn,
                                 unsigned long long lane_ptrs) {
  if (!zy_effects_first_write(fn, zy_rule_known))
    return NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      LLVMOpcode op = LLVMGetInstructionOpcode(i);
      if (op == LLVMStore) {
        if (!lane_local(LLVMGetOperand(i, 1), lane_ptrs))
          return i;
      } else if (op == LLVMAtomicRMW || op == LLVMAtomicCmpXchg) {
        return i;
      } else if (op == LLVMCall || op == LLVMInvoke) {
        LLVMValueRef f = LLVMGetCalledValue(i);
        const char *name = f && LLVMIsAFunction(f) ? LLVMGetValueName(f) : "";
        if (!strncmp(name, "llvm.memcpy", 11) ||
            !strncmp(name, "llvm.memmove", 12) ||
            !strncmp(name, "llvm.memset", 11)) {
          if (!lane_local(LLVMGetOperand(i, 0), lane_ptrs))
            return i;
        } else if (!strncmp(name, "llvm.", 5) || (*name && zy_rule_known(f))) {
          continue;
        } else if (!*name || LLVMIsDeclaration(f) ||
                   zy_effects_first_write(f, zy_rule_known)) {
          return i;
        }
      }
    }
  return NULL;
}

/* The values of one parameter: v[j] for lane j, or v[0] for all lanes
 * when shared (enzyme_scalar). */
typedef struct Arg {
  LLVMValueRef v[64];
  int lanes;
} Arg;

static int read_batch_arguments(ZyCall *c, Arg *args, unsigned nparams,
                                LLVMTypeRef *params,
                                unsigned long long *lane_ptrs) {
  unsigned n = LLVMGetNumArgOperands(c->call), p = 0;
  for (unsigned k = c->first + 1; k < n; k++) {
    LLVMValueRef a = LLVMGetOperand(c->call, k);
    const char *mname = NULL;
    ZyMarker m = zy_abi_marker(a, &mname);
    if (m == ZY_MARK_WIDTH) {
      k++;
      continue;
    }
    if (m != ZY_MARK_NONE && m != ZY_MARK_VECTOR && m != ZY_MARK_SCALAR)
      return zy_error(ZY_ERR_BAD_MARKER, c->fn, c->call,
                      "__enzyme_batch reads enzyme_width, enzyme_vector "
                      "and enzyme_scalar",
                      "marker '%s' is not supported by __enzyme_batch", mname);
    if (p >= nparams)
      return zy_error(ZY_ERR_BAD_CALL, c->fn, c->call, NULL,
                      "too many arguments: '%s' takes %u",
                      LLVMGetValueName(c->fn), nparams);
    if (m != ZY_MARK_NONE)
      k++;
    unsigned lanes = m == ZY_MARK_SCALAR ? 1 : c->width;
    args[p].lanes = lanes > 1;
    for (unsigned j = 0; j < lanes; j++, k++) {
      if (k >= n)
        return zy_error(ZY_ERR_BAD_CALL, c->fn, c->call,
                        "pass N values for an argument (one per lane), or "
                        "mark it enzyme_scalar",
                        "value %u of argument %u is missing", j + 1, p + 1);
      LLVMValueRef v =
          zy_abi_convert(c->b, LLVMGetOperand(c->call, k), params[p]);
      if (!v)
        return zy_error(ZY_ERR_BAD_CALL, c->fn, c->call, NULL,
                        "value %u of argument %u does not have the type of "
                        "parameter %u of '%s'",
                        j + 1, p + 1, p + 1, LLVMGetValueName(c->fn));
      args[p].v[j] = v;
    }
    k--;
    if (args[p].lanes && LLVMGetTypeKind(params[p]) == LLVMPointerTypeKind)
      *lane_ptrs |= 1ull << p;
    p++;
  }
  if (p != nparams)
    return zy_error(ZY_ERR_BAD_CALL, c->fn, c->call, NULL,
                    "too few arguments: '%s' takes %u, the call passes %u",
                    LLVMGetValueName(c->fn), nparams, p);
  return 0;
}

static int lower(ZyCall *c) {
  unsigned n = LLVMGetNumArgOperands(c->call);
  c->width = 0;
  for (unsigned k = c->first + 1; k + 1 < n; k++) {
    const char *mname = NULL;
    LLVMValueRef v = LLVMGetOperand(c->call, k + 1);
    if (zy_abi_marker(LLVMGetOperand(c->call, k), &mname) == ZY_MARK_WIDTH)
      c->width = LLVMIsAConstantInt(v) ? LLVMConstIntGetZExtValue(v) : 0;
  }
  if (c->width < 1 || c->width > 64)
    return zy_error(ZY_ERR_BAD_MARKER, c->fn, c->call,
                    "write __enzyme_batch(f, enzyme_width, N, ...)",
                    "__enzyme_batch needs enzyme_width followed by a "
                    "constant number of lanes from 1 to 64");
  LLVMTypeRef fty = LLVMGlobalGetValueType(c->fn);
  unsigned nparams = LLVMCountParamTypes(fty);
  if (nparams > 63)
    return zy_error(ZY_ERR_BAD_CALL, c->fn, c->call, NULL,
                    "functions with more than 63 parameters are not "
                    "supported");
  LLVMTypeRef params[64];
  LLVMGetParamTypes(fty, params);
  Arg *args = calloc(nparams + 1, sizeof *args);
  unsigned long long lane_ptrs = 0;
  int err = read_batch_arguments(c, args, nparams, params, &lane_ptrs);
  /* On the simplified clone the gradients start from, where a pointer
   * argument is no longer reloaded from the stack (-O0). */
  LLVMValueRef clone = err ? NULL : zy_preprocess(c->fn);
  LLVMValueRef w = clone ? shared_write(clone, lane_ptrs) : NULL;
  if (w)
    err = zy_error(ZY_ERR_UNSUPPORTED, c->fn, w,
                   "let the function write only through pointer arguments "
                   "given per lane",
                   "__enzyme_batch: the lanes of '%s' could see each "
                   "other's writes (a write outside the lane's memory, or "
                   "a call that writes outside its frame)",
                   LLVMGetValueName(c->fn));
  if (clone)
    LLVMDeleteFunction(clone);
  if (err) {
    free(args);
    return -1;
  }
  LLVMTypeRef ret = LLVMGetReturnType(fty);
  int has_ret = LLVMGetTypeKind(ret) != LLVMVoidTypeKind;
  LLVMTypeRef fields[64];
  LLVMValueRef call_args[64], r = NULL;
  for (unsigned j = 0; j < c->width; j++)
    fields[j] = ret;
  if (has_ret)
    r = LLVMGetUndef(LLVMStructTypeInContext(c->zm->ctx, fields, c->width, 0));
  for (unsigned j = 0; j < c->width; j++) {
    for (unsigned p = 0; p < nparams; p++)
      call_args[p] = args[p].v[args[p].lanes ? j : 0];
    LLVMValueRef y = LLVMBuildCall2(c->b, fty, c->fn, call_args, nparams, "");
    if (has_ret)
      r = LLVMBuildInsertValue(c->b, r, y, j, "");
  }
  free(args);
  if (has_ret && (c->out || LLVMGetTypeKind(c->rt) != LLVMVoidTypeKind) &&
      zy_abi_pack(c, r, "result", HINT))
    return -1;
  LLVMInstructionEraseFromParent(c->call);
  return 0;
}

int zy_lower_batch_call(ZyModule *zm, LLVMValueRef call) {
  ZyCall c;
  int r = zy_abi_begin(&c, zm, call, 0);
  if (!r)
    r = lower(&c);
  zy_abi_end(&c);
  return r;
}
