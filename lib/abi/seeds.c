/* seeds.c - what the caller's code says about the arguments of an entry
 * point call, as seeds of the differentiated function's type analysis.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "abi.h"

#include <stdlib.h>
#include <string.h>

/* The trees of one entry-point call's operands, taken when its caller was
 * analysed.  `ops` tells that the call is still the one analysed. */
typedef struct CallTrees {
  unsigned n;
  LLVMValueRef *ops;
  ZyTT *trees;
} CallTrees;

/* Per caller: entry-point call -> CallTrees*. */
typedef struct CallerSeeds {
  ZyMap calls;
} CallerSeeds;

static int is_entry_call(LLVMValueRef i) {
  if (!LLVMIsACallInst(i))
    return 0;
  LLVMValueRef f = LLVMGetCalledValue(i);
  return f && LLVMIsAFunction(f) &&
         !strncmp(zy_abi_entry_name(LLVMGetValueName(f)), "__enzyme_", 9);
}

/* One type analysis of the caller answers for all its entry-point calls:
 * analysing it again for each call (the caller, its callees and the
 * gradients lowered so far) made compile time quadratic in the number of
 * calls.  The seeds are what the caller's own code (and its callees')
 * says, before any call of it was lowered. */
static CallerSeeds *analyse_caller(LLVMValueRef caller) {
  CallerSeeds *cs = calloc(1, sizeof *cs);
  ZyTypes *ct = zy_types_analyze(caller, NULL);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(caller); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      if (!is_entry_call(i))
        continue;
      CallTrees *t = calloc(1, sizeof *t);
      t->n = (unsigned)LLVMGetNumOperands(i);
      t->ops = calloc(t->n + 1, sizeof *t->ops);
      t->trees = calloc(t->n + 1, sizeof *t->trees);
      for (unsigned k = 0; k < t->n; k++) {
        t->ops[k] = LLVMGetOperand(i, k);
        const ZyTT *tt = zy_types_of(ct, t->ops[k]);
        if (tt)
          zy_tt_merge(&t->trees[k], tt);
      }
      zy_map_put(&cs->calls, i, t);
    }
  zy_types_free(ct);
  return cs;
}

/* The kept trees of `call`, or NULL when it is not the call analysed
 * (created later, or another instruction at the same address). */
static const CallTrees *call_trees(ZyModule *zm, ZyCall *c) {
  CallerSeeds *cs = zy_map_get(&zm->caller_seeds, c->caller);
  if (!cs) {
    cs = analyse_caller(c->caller);
    zy_map_put(&zm->caller_seeds, c->caller, cs);
  }
  const CallTrees *t = zy_map_get(&cs->calls, c->call);
  if (!t || t->n != (unsigned)LLVMGetNumOperands(c->call))
    return NULL;
  for (unsigned k = 0; k < t->n; k++)
    if (t->ops[k] != LLVMGetOperand(c->call, k))
      return NULL;
  return t;
}

/* A scalar argument converted from what C passed (float promoted to
 * double, a narrower integer): its type says what it is. */
static void converted(LLVMValueRef v, ZyTT *seed) {
  LLVMTypeRef ty = LLVMTypeOf(v);
  const long long whole[1] = {-1};
  switch (LLVMGetTypeKind(ty)) {
  case LLVMIntegerTypeKind:
    zy_tt_insert(seed, whole, 1, ZY_TY_INT);
    break;
  case LLVMHalfTypeKind:
    zy_tt_insert(seed, whole, 1, ZY_TY_HALF);
    break;
  case LLVMBFloatTypeKind:
    zy_tt_insert(seed, whole, 1, ZY_TY_BFLOAT);
    break;
  case LLVMFloatTypeKind:
    zy_tt_insert(seed, whole, 1, ZY_TY_FLOAT);
    break;
  default:
    break;
  }
}

ZyTT *zy_abi_seeds(ZyCall *c) {
  unsigned np = LLVMCountParams(c->fn);
  ZyTT *seeds = calloc(np + 1, sizeof *seeds);
  const CallTrees *t = call_trees(c->zm, c);
  if (t) {
    for (unsigned k = 0; k < np && k < c->nargs; k++) {
      unsigned op = c->argop[k];
      if (op < t->n && c->args[k] == t->ops[op])
        zy_tt_merge(&seeds[k], &t->trees[op]);
      else
        converted(c->args[k], &seeds[k]);
    }
    return seeds;
  }
  /* A call the caller's analysis did not see: analyse the caller now. */
  ZyTypes *ct = zy_types_analyze(c->caller, NULL);
  for (unsigned k = 0; k < np; k++) {
    const ZyTT *tt = zy_types_of(ct, c->args[k]);
    if (tt)
      zy_tt_merge(&seeds[k], tt);
  }
  zy_types_free(ct);
  return seeds;
}

void zy_abi_free_seeds(ZyCall *c, ZyTT *seeds) {
  unsigned np = LLVMCountParams(c->fn);
  for (unsigned k = 0; k < np; k++)
    zy_tt_free(&seeds[k]);
  free(seeds);
}

void zy_abi_seeds_release(ZyModule *zm) {
  for (size_t i = 0; i < zm->caller_seeds.order.len; i++) {
    CallerSeeds *cs = zy_map_get(&zm->caller_seeds,
                                 zm->caller_seeds.order.data[i]);
    for (size_t k = 0; k < cs->calls.order.len; k++) {
      CallTrees *t = zy_map_get(&cs->calls, cs->calls.order.data[k]);
      for (unsigned j = 0; j < t->n; j++)
        zy_tt_free(&t->trees[j]);
      free(t->trees);
      free(t->ops);
      free(t);
    }
    zy_map_free(&cs->calls);
    free(cs);
  }
  zy_map_free(&zm->caller_seeds);
}
