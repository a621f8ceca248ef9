/* memsnap.c - loads of a small local array that the loop around their
 * loop writes, computed again in the reverse sweep from a copy of the
 * array kept once per iteration of that outer loop.
 *
 * RSBench's pole loop reads the phase factor tf[l] of each pole from a
 * four-entry array that every nuclide (the loop around it) fills before
 * its poles: the load cannot be recomputed from the array, which the next
 * nuclide overwrites, so it was cached per pole.  But nothing writes the
 * array while the pole loop runs: its contents at the loop's preheader
 * are what every iteration of that entry reads.  So when a load of loop
 * L reads an alloca A (a fixed-size array of the entry block, at most
 * 256 bytes and no larger than caching the load for 16 iterations of L)
 * whose every use is a GEP, a load, or a store, memset or memcpy into it
 * outside L and L's preheader (nothing else reaches it: not passed to a
 * call, not stored as a value), the forward sweep copies A at the start
 * of L's preheader as a value of the enclosing loop's iteration (cached
 * there by the loop machinery like any value of it), and the reverse
 * sweep stores that copy into a stack slot and loads at the load's
 * offset in it (the offset from the recomputed pointer).  The cache plan
 * treats such a load as recomputable from its pointer.  Device code only
 * (a cache there is per-thread memory), not in split mode or nested AD,
 * and off with -zymase-recompute-regions=false.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "cache.h"

#include <llvm-c/Target.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BYTES 256

typedef struct Snap {
  LLVMValueRef alloca;
  LLVMBasicBlockRef preheader;
  LLVMValueRef copy, slot; /* forward copy, reverse stack slot */
} Snap;

static int wanted(ZyGen *g) {
  if (zy_opt_recompute_regions_given() && !zy_opt_recompute_regions())
    return 0;
  return zy_gpu_device_kind(g->zm->mod) != 0 && !g->split && !g->zm->nested_ad;
}

static int is_call_to(LLVMValueRef call, const char *prefix) {
  LLVMValueRef f = LLVMGetCalledValue(call);
  return f && LLVMIsAFunction(f) &&
         !strncmp(LLVMGetValueName(f), prefix, strlen(prefix));
}

/* Whether every use of `q` (A or a GEP of it) reads it, or writes it
 * outside loop `l` and block `pre`, without letting it escape. */
static int uses_ok(ZyGen *g, LLVMValueRef q, ZyLoop *l, LLVMBasicBlockRef pre,
                   int depth) {
  if (depth > 8)
    return 0;
  for (LLVMUseRef u = LLVMGetFirstUse(q); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef w = LLVMGetUser(u);
    LLVMBasicBlockRef bb =
        LLVMIsAInstruction(w) ? LLVMGetInstructionParent(w) : NULL;
    int inside = bb && (bb == pre || zy_loop_contains(g, l, bb));
    if (LLVMIsAGetElementPtrInst(w) && LLVMGetOperand(w, 0) == q) {
      if (!uses_ok(g, w, l, pre, depth + 1))
        return 0;
    } else if (LLVMIsALoadInst(w)) {
      continue;
    } else if (LLVMIsAStoreInst(w)) {
      if (LLVMGetOperand(w, 0) == q || inside)
        return 0;
    } else if (LLVMIsACallInst(w)) {
      if (zy_llvm_ignorable_intrinsic(w))
        continue;
      int set = is_call_to(w, "llvm.memset.");
      int copy =
          is_call_to(w, "llvm.memcpy.") || is_call_to(w, "llvm.memmove.");
      if (!set && !copy)
        return 0;
      int dest = LLVMGetOperand(w, 0) == q;
      if ((dest && inside) || (set && !dest))
        return 0;
    } else {
      return 0;
    }
  }
  return 1;
}

/* The alloca load `v` reads through GEPs, when its loop may read it from
 * a copy; NULL otherwise. */
static LLVMValueRef snapped_alloca(ZyGen *g, LLVMValueRef v, ZyLoop **lp) {
  if (!wanted(g) || !LLVMIsALoadInst(v) || LLVMGetVolatile(v))
    return NULL;
  LLVMValueRef a = LLVMGetOperand(v, 0);
  while (LLVMIsAGetElementPtrInst(a))
    a = LLVMGetOperand(a, 0);
  ZyLoop *l = zy_loop_of(g, LLVMGetInstructionParent(v));
  if (!LLVMIsAAllocaInst(a) || !l || !l->parent || !l->preheader ||
      zy_loop_of(g, l->preheader) != l->parent ||
      LLVMGetInstructionParent(a) != LLVMGetEntryBasicBlock(g->primal) ||
      !LLVMIsAConstantInt(LLVMGetOperand(a, 0)) ||
      LLVMConstIntGetZExtValue(LLVMGetOperand(a, 0)) != 1)
    return NULL;
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(g->zm->mod);
  unsigned long long size = LLVMABISizeOfType(td, LLVMGetAllocatedType(a));
  unsigned long long per = LLVMABISizeOfType(td, LLVMTypeOf(v)) *
                           (l->trip && LLVMIsAConstantInt(l->trip)
                                ? LLVMConstIntGetZExtValue(l->trip)
                                : 16);
  if (!size || size > MAX_BYTES || size > per ||
      !uses_ok(g, a, l, l->preheader, 0))
    return NULL;
  *lp = l;
  return a;
}

int zy_memsnap_load(ZyGen *g, LLVMValueRef v) {
  ZyLoop *l;
  return snapped_alloca(g, v, &l) != NULL;
}

LLVMValueRef zy_memsnap_value(ZyGen *g, LLVMValueRef v, LLVMValueRef p) {
  ZyLoop *l;
  LLVMValueRef a = snapped_alloca(g, v, &l);
  if (!a)
    return NULL;
  Snap *s = NULL;
  for (size_t k = 0; k < g->memsnaps.len && !s; k++) {
    Snap *t = g->memsnaps.data[k];
    if (t->alloca == a && t->preheader == l->preheader)
      s = t;
  }
  LLVMContextRef c = g->zm->ctx;
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(g->zm->mod);
  unsigned long long size = LLVMABISizeOfType(td, LLVMGetAllocatedType(a));
  LLVMTypeRef at = size % 8
                       ? LLVMArrayType2(LLVMInt8TypeInContext(c), size)
                       : LLVMArrayType2(LLVMInt64TypeInContext(c), size / 8);
  LLVMValueRef fa = zy_map_get(&g->vmap, a);
  if (!s) {
    s = calloc(1, sizeof *s);
    s->alloca = a;
    s->preheader = l->preheader;
    LLVMBasicBlockRef fb = zy_map_get(&g->vmap, l->preheader);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
    LLVMValueRef first = LLVMGetFirstInstruction(fb);
    while (first && LLVMIsAPHINode(first))
      first = LLVMGetNextInstruction(first);
    LLVMPositionBuilderBefore(b, first);
    s->copy = LLVMBuildLoad2(b, at, fa, "zymase.memsnap");
    LLVMDisposeBuilder(b);
    s->slot = zy_new_slot(g, at, "zymase.memsnap.slot", 0);
    unsigned align = LLVMGetAlignment(a);
    LLVMSetAlignment(s->slot, align > 8 ? align : 8);
    zy_vec_push(&g->memsnaps, s);
  }
  LLVMBuildStore(g->b, zy_loops_reload(g, s->copy, l->parent), s->slot);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c), i8 = LLVMInt8TypeInContext(c);
  LLVMValueRef off =
      LLVMBuildSub(g->b, LLVMBuildPtrToInt(g->b, p, i64, ""),
                   LLVMBuildPtrToInt(g->b, fa, i64, ""), "zymase.memsnap.at");
  LLVMValueRef q = LLVMBuildGEP2(g->b, i8, s->slot, &off, 1, "");
  LLVMValueRef r = LLVMBuildLoad2(g->b, LLVMTypeOf(v), q, "");
  LLVMSetAlignment(r, LLVMGetAlignment(v));
  return r;
}

void zy_memsnap_free(ZyGen *g) {
  for (size_t k = 0; k < g->memsnaps.len; k++)
    free(g->memsnaps.data[k]);
  zy_vec_free(&g->memsnaps);
}
