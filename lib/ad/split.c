/* split.c - turns a combined gradient (forward sweep, then reverse sweep,
 * in one function) into an augmented forward function and a reverse
 * function.  In split mode every forward value the reverse sweep uses
 * goes through a slot (see zy_reload); the augmented function saves those
 * slots in a heap tape (or the caller's memory, for an inline tape) and
 * returns it with the primal result, and the reverse function reloads
 * them from the tape and frees it.  Values outside loops that the reverse
 * can compute again from the arguments and the thread's numbers are not
 * saved (zy_split_recomputable).
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad.h"

#include "cache.h"
#include "ir/irutil.h"
#include "ir/rules.h"

#include <llvm-c/Target.h>
#include <string.h>

/* --- Values computed again instead of saved ------------------------------ */

/* The thread's and block's numbers and sizes in a GPU grid: the reverse
 * runs in the thread its forward ran in (as Enzyme assumes), so they are
 * the same there. */
static int thread_number(LLVMValueRef v) {
  LLVMValueRef f = LLVMIsACallInst(v) ? LLVMGetCalledValue(v) : NULL;
  if (!f || !LLVMIsAFunction(f) || !LLVMGetIntrinsicID(f))
    return 0;
  static const char *const prefixes[] = {
      "llvm.nvvm.read.ptx.sreg.tid.",     "llvm.nvvm.read.ptx.sreg.ntid.",
      "llvm.nvvm.read.ptx.sreg.ctaid.",   "llvm.nvvm.read.ptx.sreg.nctaid.",
      "llvm.nvvm.read.ptx.sreg.warpsize", "llvm.nvvm.read.ptx.sreg.laneid",
      "llvm.amdgcn.workitem.id.",         "llvm.amdgcn.workgroup.id."};
  const char *name = LLVMGetValueName(f);
  for (size_t k = 0; k < sizeof prefixes / sizeof *prefixes; k++)
    if (!strncmp(name, prefixes[k], strlen(prefixes[k])))
      return 1;
  return 0;
}

/* A math call of floating-point arguments with a derivative rule. */
static int math_call(LLVMValueRef v) {
  if (!LLVMIsACallInst(v) || !zy_rule_call(v) ||
      !zy_type_differentiable(LLVMTypeOf(v)))
    return 0;
  for (unsigned k = 0; k < LLVMGetNumArgOperands(v); k++)
    if (!zy_type_differentiable(LLVMTypeOf(LLVMGetOperand(v, k))))
      return 0;
  return 1;
}

static unsigned long long size_of(ZyGen *g, LLVMValueRef v) {
  return LLVMABISizeOfType(LLVMGetModuleDataLayout(g->zm->mod), LLVMTypeOf(v));
}

/* How many bytes the tape holds for `v` (an instruction outside loops)
 * when the reverse computes it again: those of the operands, somewhere
 * below, that are saved instead; -1 when `v` is saved itself.  Only what
 * computes its value from its operands alone is computed again:
 * arithmetic, casts, GEPs, the thread's numbers, and (for an inline tape,
 * whose size the user fixed) math calls. */
static long long split_cost(ZyGen *g, LLVMValueRef v, int depth) {
  if (!LLVMIsAInstruction(v))
    return 0;
  if (depth > 8 || zy_loop_of(g, LLVMGetInstructionParent(v)) ||
      LLVMIsAPHINode(v))
    return -1;
  if (thread_number(v))
    return 0;
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  int fn = LLVMIsACallInst(v) ? 1 : 0; /* the callee is no operand */
  if (!zy_cheap_opcode(op) && !zy_arith_intrinsic(v) &&
      !(g->sig.inline_tape && math_call(v)))
    return -1;
  long long total = 0;
  for (int k = 0; k < LLVMGetNumOperands(v) - fn; k++) {
    LLVMValueRef o = LLVMGetOperand(v, k);
    long long c = split_cost(g, o, depth + 1);
    if (c < 0 && zy_loop_of(g, LLVMGetInstructionParent(o)))
      return -1;
    total += c < 0 ? (long long)size_of(g, o) : c;
  }
  /* Without an inline tape only what needs nothing saved; with one, what
   * needs fewer bytes than itself. */
  if (total == 0 || (g->sig.inline_tape && total <= (long long)size_of(g, v)))
    return total;
  return -1;
}

int zy_split_recomputable(ZyGen *g, LLVMValueRef v) {
  return g->split && LLVMIsAInstruction(v) && split_cost(g, v, 0) >= 0;
}

LLVMValueRef zy_split_recompute(ZyGen *g, LLVMValueRef v) {
  LLVMValueRef fv = zy_map_get(&g->vmap, v);
  if (!zy_map_has(&g->reported, fv)) {
    zy_map_put(&g->reported, fv, fv);
    zy_loops_report(g, fv, "recomputed");
  }
  LLVMValueRef c = LLVMInstructionClone(fv);
  int fn = LLVMIsACallInst(v) ? 1 : 0;
  for (int k = 0; k < LLVMGetNumOperands(v) - fn; k++) {
    LLVMValueRef op = LLVMGetOperand(v, k);
    if (LLVMIsAInstruction(op) || LLVMIsAArgument(op))
      LLVMSetOperand(c, k, zy_lookup(g, op));
  }
  LLVMInsertIntoBuilderWithName(g->b, c, "");
  return c;
}

int zy_split_shadow_recomputable(ZyGen *g, LLVMValueRef p) {
  if (!g->split || !LLVMIsAGetElementPtrInst(p) ||
      zy_loop_of(g, LLVMGetInstructionParent(p)))
    return 0;
  LLVMValueRef base = LLVMGetOperand(p, 0);
  if (!LLVMIsAArgument(base) && !zy_split_shadow_recomputable(g, base))
    return 0;
  for (int k = 1; k < LLVMGetNumOperands(p); k++)
    if (split_cost(g, LLVMGetOperand(p, k), 0) != 0)
      return 0;
  return 1;
}

/* --- The split ------------------------------------------------------------ */

/* Moves every block of `from` that `keep` says into `to`, in order. */
static void move_blocks(LLVMValueRef from, LLVMValueRef to, ZyMap *keep,
                        int want) {
  ZyVec blocks = {0};
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(from); bb;
       bb = LLVMGetNextBasicBlock(bb))
    if (zy_map_has(keep, bb) == want)
      zy_vec_push(&blocks, bb);
  for (size_t k = 0; k < blocks.len; k++) {
    LLVMRemoveBasicBlockFromParent(blocks.data[k]);
    LLVMAppendExistingBasicBlock(to, blocks.data[k]);
  }
  zy_vec_free(&blocks);
}

static LLVMValueRef tape_field(LLVMBuilderRef b, LLVMTypeRef tt,
                               LLVMValueRef tape, unsigned k) {
  return LLVMBuildStructGEP2(b, tt, tape, k, "");
}

/* In `aug`: each jump to the reverse start becomes: save the slots in a
 * new tape (the caller's memory, for an inline tape), return { result,
 * tape } ({ result }). */
static void save_tapes(ZyGen *g, LLVMValueRef aug, LLVMTypeRef tt) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(g->zm->ctx);
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(g->zm->mod);
  LLVMValueRef size = LLVMConstInt(i64, LLVMABISizeOfType(td, tt), 0);
  LLVMTypeRef rty = LLVMGetReturnType(LLVMGlobalGetValueType(aug));
  for (size_t j = 0; j < g->retblocks.len; j++) {
    LLVMBasicBlockRef fb = zy_map_get(&g->fend, g->retblocks.data[j]);
    LLVMValueRef br = LLVMGetBasicBlockTerminator(fb);
    LLVMPositionBuilderBefore(g->b, br);
    LLVMValueRef tape = g->sig.inline_tape ? LLVMGetLastParam(aug)
                                           : zy_call_malloc(g->b, size, "tape");
    for (size_t k = 0; k < g->tape.len; k++) {
      LLVMValueRef slot = g->tape.data[k];
      LLVMValueRef v =
          LLVMBuildLoad2(g->b, LLVMGetAllocatedType(slot), slot, "");
      LLVMBuildStore(g->b, v, tape_field(g->b, tt, tape, k));
    }
    if (LLVMGetTypeKind(rty) == LLVMVoidTypeKind) { /* inline, no result */
      LLVMBuildRetVoid(g->b);
      LLVMInstructionEraseFromParent(br);
      continue;
    }
    LLVMValueRef r = LLVMGetUndef(rty);
    unsigned f = 0;
    LLVMValueRef pv = g->retvals.data[j];
    unsigned tapes = g->sig.inline_tape ? 0 : 1;
    unsigned shadows = g->sig.dup_ret ? ZY_LANES(g->sig) : 0;
    if (LLVMCountStructElementTypes(rty) >= 1 + tapes + shadows) {
      LLVMValueRef fv = zy_map_get(&g->vmap, pv);
      r = LLVMBuildInsertValue(g->b, r, fv ? fv : pv, f++, "");
    }
    for (unsigned l = 0; l < shadows; l++) /* checked by zy_check_supported */
      r = LLVMBuildInsertValue(g->b, r, zy_lane_shadow_forward(g, pv, l), f++,
                               "");
    if (tapes)
      r = LLVMBuildInsertValue(g->b, r, tape, f, "");
    LLVMBuildRet(g->b, r);
    LLVMInstructionEraseFromParent(br);
  }
}

/* The reverse function's entry: its own slots, the saved ones reloaded
 * from the tape, which is then freed. */
static void load_tape(ZyGen *g, LLVMValueRef rev, LLVMTypeRef tt,
                      LLVMBasicBlockRef entry) {
  LLVMValueRef tape = LLVMGetLastParam(rev);
  LLVMPositionBuilderAtEnd(g->b, entry);
  /* Every slot of the combined function that the reverse blocks use. */
  for (LLVMValueRef i = LLVMGetFirstInstruction(g->allocas); i;
       i = LLVMGetNextInstruction(i)) {
    if (!LLVMIsAAllocaInst(i))
      continue;
    LLVMTypeRef t = LLVMGetAllocatedType(i);
    LLVMValueRef s = LLVMBuildAlloca(g->b, t, LLVMGetValueName(i));
    zy_llvm_replace_uses_in(i, s, rev);
    int k = -1;
    for (size_t j = 0; j < g->tape.len; j++)
      if (g->tape.data[j] == i)
        k = (int)j;
    LLVMValueRef v = k >= 0 ? LLVMBuildLoad2(g->b, t,
                                             tape_field(g->b, tt, tape, k), "")
                            : LLVMConstNull(t);
    LLVMBuildStore(g->b, v, s);
  }
  if (!g->sig.nofree && !g->sig.inline_tape)
    zy_call_free(g->b, "free", tape);
  LLVMBuildBr(g->b, g->rstart);
}

void zy_split(ZyGen *g, LLVMValueRef aug, LLVMValueRef rev) {
  LLVMValueRef work = g->grad;
  LLVMContextRef c = g->zm->ctx;
  /* Which return the forward took matters to the reverse only when there
   * are several. */
  for (size_t k = 0; k < g->tape.len && g->retblocks.len <= 1; k++)
    if (g->tape.data[k] == g->retslot) {
      memmove(&g->tape.data[k], &g->tape.data[k + 1],
              (g->tape.len - k - 1) * sizeof *g->tape.data);
      g->tape.len--;
      break;
    }

  /* The tape: one field per saved slot. */
  LLVMTypeRef fields[512];
  unsigned n = 0;
  for (size_t k = 0; k < g->tape.len && n < 512; k++)
    fields[n++] = LLVMGetAllocatedType(g->tape.data[k]);
  ZY_ASSERT(n == g->tape.len);
  LLVMTypeRef tt = LLVMStructTypeInContext(c, fields, n, 0);
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(g->zm->mod);
  g->tape_bytes = LLVMABISizeOfType(td, tt);
  g->tape_align = LLVMABIAlignmentOfType(td, tt);

  /* Forward blocks (and the slots block) to aug, the rest to rev. */
  ZyMap forward = {0};
  zy_map_put(&forward, g->allocas, (void *)1);
  for (size_t k = 0; k < g->order.len; k++)
    zy_map_put(&forward, zy_map_get(&g->vmap, g->order.data[k]), (void *)1);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
       bb = LLVMGetNextBasicBlock(bb))
    zy_map_put(&forward, zy_map_get(&g->vmap, bb), (void *)1);
  for (size_t k = 0; k < g->fextra.len; k++)
    zy_map_put(&forward, g->fextra.data[k], (void *)1);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c, rev, "slots");
  move_blocks(work, rev, &forward, 0);
  move_blocks(work, aug, &forward, 1);
  zy_map_free(&forward);

  /* The returns first: a function may return a parameter itself or its
   * shadow (`return x;`), which the loop below then maps to aug's. */
  save_tapes(g, aug, tt);
  load_tape(g, rev, tt, entry);
  /* Parameters: the combined function's are a prefix of both. */
  unsigned np = LLVMCountParams(work);
  for (unsigned i = 0; i < np; i++) {
    LLVMValueRef p = LLVMGetParam(work, i);
    if (i < LLVMCountParams(aug))
      zy_llvm_replace_uses_in(p, LLVMGetParam(aug, i), aug);
    zy_llvm_replace_uses_in(p, LLVMGetParam(rev, i), rev);
  }
  LLVMDeleteFunction(work);
}
