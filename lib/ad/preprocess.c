/* preprocess.c - step 1 of a gradient: the function to differentiate is a
 * clone of the user's, simplified by the pre-AD pipeline, with indirect
 * calls of known targets made direct.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad.h"

#include "rules.h"

#include <stdio.h>
#include <string.h>

/* The functions an indirect callee can be, through selects, phis and
 * casts; 0 when some value could be anything else. */
static int known_targets(LLVMValueRef v, ZyVec *out, int depth) {
  if (depth > 8 || out->len > 8)
    return 0;
  if (LLVMIsAFunction(v)) {
    if (!zy_vec_contains(out, v))
      zy_vec_push(out, v);
    return 1;
  }
  if (LLVMIsASelectInst(v))
    return known_targets(LLVMGetOperand(v, 1), out, depth + 1) &&
           known_targets(LLVMGetOperand(v, 2), out, depth + 1);
  if (LLVMIsAPHINode(v)) {
    for (unsigned k = 0; k < LLVMCountIncoming(v); k++)
      if (!known_targets(LLVMGetIncomingValue(v, k), out, depth + 1))
        return 0;
    return 1;
  }
  if (LLVMIsABitCastInst(v) || (LLVMIsAConstantExpr(v) &&
                                LLVMGetConstOpcode(v) == LLVMBitCast))
    return known_targets(LLVMGetOperand(v, 0), out, depth + 1);
  return 0;
}

/* Step 1b: an indirect call whose possible targets are known becomes
 * direct calls, one per target, chosen by comparing the pointer. */
static void promote_indirect_calls(LLVMValueRef fn) {
  ZyVec calls = {0};
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMIsACallInst(i) && !LLVMIsAFunction(LLVMGetCalledValue(i)) &&
          !LLVMIsAInlineAsm(LLVMGetCalledValue(i)))
        zy_vec_push(&calls, i);
  for (size_t k = 0; k < calls.len; k++) {
    ZyVec targets = {0};
    if (known_targets(LLVMGetCalledValue(calls.data[k]), &targets, 0))
      for (size_t t = 0; t < targets.len; t++)
        if (!zy_llvm_promote_call(calls.data[k], targets.data[t],
                                  t + 1 < targets.len))
          break;
    zy_vec_free(&targets);
  }
  zy_vec_free(&calls);
}

static LLVMValueRef snapshot_of(LLVMValueRef fn) {
  char name[256];
  snprintf(name, sizeof name, "%s" ZY_SNAPSHOT_SUFFIX, LLVMGetValueName(fn));
  return LLVMGetNamedFunction(LLVMGetGlobalParent(fn), name);
}

static void set_fn_attr(LLVMValueRef fn, const char *attr, int on) {
  unsigned kind = LLVMGetEnumAttributeKindForName(attr, strlen(attr));
  if (on)
    LLVMAddAttributeAtIndex(
        fn, LLVMAttributeFunctionIndex,
        LLVMCreateEnumAttribute(
            LLVMGetModuleContext(LLVMGetGlobalParent(fn)), kind, 0));
  else
    LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, kind);
}

/* The optimizer inlines callees into the function to differentiate before
 * the plugin sees it.  A call that only reads memory is then a loop of
 * its own, which LICM cannot move: in `for i: out[i] = in[i] / mag(in)`
 * the gradient would reverse mag's loop n times.  So, when optimizing,
 * the plugin keeps a copy of the function as the front end made it; the
 * optimizer leaves the copy alone (optnone) and keeps it alive. */
void zy_take_snapshot(LLVMValueRef fn) {
  if (LLVMIsDeclaration(fn) || snapshot_of(fn))
    return;
  char name[256];
  snprintf(name, sizeof name, "%s" ZY_SNAPSHOT_SUFFIX, LLVMGetValueName(fn));
  LLVMValueRef s = zy_llvm_clone_function(fn, name);
  set_fn_attr(s, "noinline", 1);
  set_fn_attr(s, "optnone", 1);
  zy_llvm_keep_alive(s);
}

void zy_release_snapshots(LLVMModuleRef m) {
  size_t n = strlen(ZY_SNAPSHOT_SUFFIX);
  for (LLVMValueRef f = LLVMGetFirstFunction(m), next; f; f = next) {
    next = LLVMGetNextFunction(f);
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    if (len > n && !strcmp(name + len - n, ZY_SNAPSHOT_SUFFIX)) {
      zy_llvm_let_go(f);
      if (!LLVMGetFirstUse(f))
        LLVMDeleteFunction(f);
    }
  }
}

/* Inlines into `p` (made from a snapshot) the calls of the functions the
 * optimizer inlined into `fn`, i.e. those `fn` no longer calls: after
 * LICM, the gradient then sees the code the user's -O level would have
 * made, with invariant calls already out of their loops. */
static void inline_like(LLVMValueRef p, LLVMValueRef fn, LLVMValueRef snap) {
  ZyVec called = {0}, calls = {0};
  for (int pass = 0; pass < 2; pass++) {
    LLVMValueRef f = pass ? p : fn;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i)) {
        LLVMValueRef c = LLVMIsACallInst(i) ? LLVMGetCalledValue(i) : 0;
        if (!c || !LLVMIsAFunction(c) || LLVMIsDeclaration(c))
          continue;
        if (!pass)
          zy_vec_push(&called, c);
        else if (c != fn && c != snap && c != p &&
                 !zy_vec_contains(&called, c))
          zy_vec_push(&calls, i);
      }
  }
  for (size_t k = 0; k < calls.len; k++)
    zy_llvm_inline_call(calls.data[k]);
  zy_vec_free(&called);
  zy_vec_free(&calls);
}

/* Step 1: a clone of the user's function (or of its snapshot), simplified
 * by the pre-AD pipeline.  optnone/noinline are removed so -O0 input is
 * simplified. */
LLVMValueRef zy_preprocess(LLVMValueRef fn) {
  char name[256];
  snprintf(name, sizeof name, "%s.zymase.primal", LLVMGetValueName(fn));
  LLVMValueRef snap = zy_opt_preopt() ? snapshot_of(fn) : NULL;
  LLVMValueRef p = zy_llvm_clone_function(snap ? snap : fn, name);
  set_fn_attr(p, "optnone", 0);
  set_fn_attr(p, "noinline", 0);
  if (zy_opt_preopt()) {
    zy_llvm_infer_call_effects(p, zy_rule_call);
    zy_llvm_simplify_function(p, 2);
    if (snap) {
      inline_like(p, fn, snap);
      zy_llvm_simplify_function(p, 2);
    }
  }
  promote_indirect_calls(p);
  return p;
}
