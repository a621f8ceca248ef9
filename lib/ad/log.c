/* log.c - logs of loop values that the reverse sweep can compute again
 * but would rather read back: the forward sweep stores them while the
 * call's iterations of the loop fit in a size limit, and the reverse
 * reads them when every iteration fitted, else computes them again.
 * Replayed recurrences (replay.c) and math calls (mathlog.c) use them.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "cache.h"

#include "ir/irutil.h"

#include <llvm-c/Target.h>
#include <stdio.h>
#include <string.h>

LLVMBasicBlockRef zy_log_branch_off(ZyGen *g, LLVMBasicBlockRef at,
                                    const char *name, LLVMBasicBlockRef *cont) {
  LLVMValueRef br = LLVMGetBasicBlockTerminator(at);
  *cont = LLVMGetSuccessor(br, 0);
  LLVMInstructionEraseFromParent(br);
  LLVMBasicBlockRef bb =
      LLVMAppendBasicBlockInContext(g->zm->ctx, g->grad, name);
  zy_vec_push(&g->fextra, bb);
  LLVMPositionBuilderAtEnd(g->b, at);
  return bb;
}

/* At the end of forward block `at`, a growth site needing room for `need`
 * iterations: the log grown, geometrically, to hold them, or turned off
 * when they are more than its size. */
static void grow(ZyGen *g, LLVMBasicBlockRef at, LLVMValueRef need, ZyLog *lg) {
  LLVMContextRef c = g->zm->ctx;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMBasicBlockRef cont,
      bb = zy_log_branch_off(g, at, "zymase.log.grow", &cont);
  LLVMValueRef size = LLVMConstInt(i64, lg->size, 0),
               one = LLVMConstInt(i64, 1, 0);
  /* The largest need so far: once off, the log stays off. */
  LLVMValueRef old = LLVMBuildLoad2(g->b, i64, lg->need, "");
  need = LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntUGT, need, old, ""),
                         need, old, "");
  LLVMValueRef fits = LLVMBuildICmp(g->b, LLVMIntULE, need, size, "");
  LLVMBuildStore(g->b, need, lg->need);
  LLVMBuildStore(g->b, LLVMBuildZExt(g->b, fits, i64, ""), lg->on);
  LLVMValueRef want =
      LLVMBuildSelect(g->b, fits, need, LLVMConstInt(i64, 0, 0), "");
  LLVMValueRef have = LLVMBuildLoad2(g->b, i64, lg->cap, "");
  LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntUGT, want, have, ""), bb,
                  cont);
  LLVMPositionBuilderAtEnd(g->b, bb);
  LLVMValueRef ncap = LLVMBuildAdd(g->b, LLVMBuildShl(g->b, have, one, ""),
                                   LLVMConstInt(i64, 64, 0), "");
  ncap = LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntUGT, want, ncap, ""),
                         want, ncap, "");
  ncap = LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntUGT, ncap, size, ""),
                         size, ncap, "");
  zy_loops_realloc(g, &lg->slots, &lg->types, ncap, have, NULL);
  LLVMBuildStore(g->b, ncap, lg->cap);
  LLVMBuildBr(g->b, cont);
}

int zy_log_new(ZyGen *g, ZyLoop *l, ZyVec *values, unsigned mb,
               const char *name, ZyLog *lg, LLVMBasicBlockRef *header) {
  LLVMContextRef c = g->zm->ctx;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c),
              ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(g->zm->mod);
  *lg = (ZyLog){0};
  if (header)
    *header = NULL;
  unsigned long long each = 0;
  for (size_t k = 0; k < values->len; k++)
    each += LLVMABISizeOfType(td, LLVMTypeOf(values->data[k]));
  if (!mb || !each || g->zm->nested_ad || !l->idx || !l->body ||
      zy_device_module(g->zm->mod))
    return 0;
  unsigned long long fit = ((unsigned long long)mb << 20) / each;
  if (fit < 2)
    return 0;
  lg->size = fit;
  char n[64];
  snprintf(n, sizeof n, "%s.cap", name);
  lg->cap = zy_new_slot(g, i64, n, 1);
  snprintf(n, sizeof n, "%s.on", name);
  lg->on = zy_new_slot(g, i64, n, 1);
  snprintf(n, sizeof n, "%s.need", name);
  lg->need = zy_new_slot(g, i64, n, 1);
  for (size_t k = 0; k < values->len; k++) {
    zy_vec_push(&lg->slots, zy_new_slot(g, ptr, name, 1));
    zy_vec_push(&lg->types, LLVMTypeOf(values->data[k]));
  }
  /* The log grows where the loop's buffers would (before the loop when
   * its trip count is known, else in its header); the header's own hook,
   * after the growth (a second hook before it where the header is where
   * the log grows), is for the caller's stores. */
  LLVMBasicBlockRef put = NULL;
  for (size_t s = 0, n = l->sites.len; s < n; s++) {
    LLVMValueRef need;
    int is_header;
    LLVMBasicBlockRef hook = zy_loops_site_hook(g, l, s, &need, &is_header);
    if (is_header && header) {
      put = hook;
      if (need)
        hook = zy_loops_site_hook(g, l, s, &need, &is_header);
    }
    if (need)
      grow(g, hook, need, lg);
  }
  if (header)
    *header = put;
  return 1;
}

LLVMValueRef zy_log_held(ZyGen *g, ZyLog *lg) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(g->zm->ctx);
  LLVMValueRef need = LLVMBuildLoad2(g->b, i64, lg->need, "");
  return LLVMBuildICmp(g->b, LLVMIntULE, need, LLVMConstInt(i64, lg->size, 0),
                       "zymase.logged");
}

void zy_log_free(ZyGen *g, ZyLog *lg) {
  LLVMTypeRef ptr = LLVMPointerTypeInContext(g->zm->ctx, 0);
  LLVMPositionBuilderBefore(g->b, g->retinst);
  for (size_t s = 0; s < lg->slots.len; s++)
    zy_call_free(g->b, "free",
                 LLVMBuildLoad2(g->b, ptr, lg->slots.data[s], ""));
  zy_vec_free(&lg->slots);
  zy_vec_free(&lg->types);
}
