/* split.c - turns a combined gradient (forward sweep, then reverse sweep,
 * in one function) into an augmented forward function and a reverse
 * function.  In split mode every forward value the reverse sweep uses
 * goes through a slot (see zy_reload); the augmented function saves those
 * slots in a heap tape and returns it with the primal result, and the
 * reverse function reloads them from the tape and frees it.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad.h"

#include "irutil.h"

#include <llvm-c/Target.h>

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
 * new tape, return { result, tape }. */
static void save_tapes(ZyGen *g, LLVMValueRef aug, LLVMTypeRef tt) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(g->zm->ctx);
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(g->zm->mod);
  LLVMValueRef size = LLVMConstInt(i64, LLVMABISizeOfType(td, tt), 0);
  LLVMTypeRef rty = LLVMGetReturnType(LLVMGlobalGetValueType(aug));
  for (size_t j = 0; j < g->retblocks.len; j++) {
    LLVMBasicBlockRef fb = zy_map_get(&g->fend, g->retblocks.data[j]);
    LLVMValueRef br = LLVMGetBasicBlockTerminator(fb);
    LLVMPositionBuilderBefore(g->b, br);
    LLVMValueRef tape = zy_call_malloc(g->b, size, "tape");
    for (size_t k = 0; k < g->tape.len; k++) {
      LLVMValueRef slot = g->tape.data[k];
      LLVMValueRef v =
          LLVMBuildLoad2(g->b, LLVMGetAllocatedType(slot), slot, "");
      LLVMBuildStore(g->b, v, tape_field(g->b, tt, tape, k));
    }
    LLVMValueRef r = LLVMGetUndef(rty);
    unsigned f = 0;
    LLVMValueRef pv = g->retvals.data[j];
    if (LLVMCountStructElementTypes(rty) >= 2) {
      LLVMValueRef fv = zy_map_get(&g->vmap, pv);
      r = LLVMBuildInsertValue(g->b, r, fv ? fv : pv, f++, "");
    }
    if (g->sig.dup_ret) /* checked to exist by zy_check_supported */
      r = LLVMBuildInsertValue(g->b, r, zy_shadow_forward_of(g, pv), f++, "");
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
  if (!g->sig.nofree)
    zy_call_free(g->b, "free", tape);
  LLVMBuildBr(g->b, g->rstart);
}

void zy_split(ZyGen *g, LLVMValueRef aug, LLVMValueRef rev) {
  LLVMValueRef work = g->grad;
  LLVMContextRef c = g->zm->ctx;

  /* The tape: one field per saved slot. */
  LLVMTypeRef fields[512];
  unsigned n = 0;
  for (size_t k = 0; k < g->tape.len && n < 512; k++)
    fields[n++] = LLVMGetAllocatedType(g->tape.data[k]);
  ZY_ASSERT(n == g->tape.len);
  LLVMTypeRef tt = LLVMStructTypeInContext(c, fields, n, 0);

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
