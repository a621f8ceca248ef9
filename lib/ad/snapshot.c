/* snapshot.c - the functions to differentiate as the front end made them.
 *
 * When optimizing, clang inlines callees into the function to
 * differentiate before the plugin sees it.  A call that only reads memory
 * has then become a loop of its own, which LICM cannot move out of the
 * loop around it: in  for i: out[i] = in[i] / mag(in)  the gradient would
 * reverse mag's loop n times.  So at the start of the optimizer the plugin
 * copies each function passed to __enzyme_autodiff (`f.zymase.src`,
 * optnone, kept alive in llvm.compiler.used).  The pre-AD pipeline
 * simplifies a clone of that copy, where LICM moves the call, and only
 * then inlines what the optimizer inlined into `f`.
 *
 * The copy must not change how the optimizer treats the user's code.  A
 * static function called once is inlined at any size (the call is its
 * last use); a second call, from the copy, would keep it out of line.  So
 * the copy calls static functions through stand-ins `g.zymase.ref`,
 * and static callees get copies of their own, which the clone calls: the
 * optimizer may delete `g` once it is inlined everywhere, or specialize
 * it for the calls it saw.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad.h"
#include "irutil.h"

#include <stdio.h>
#include <string.h>

#define SRC ".zymase.src"
#define REF ".zymase.ref"

static LLVMValueRef named(LLVMModuleRef m, const char *base,
                          const char *suffix) {
  char name[1024];
  snprintf(name, sizeof name, "%s%s", base, suffix);
  return LLVMGetNamedFunction(m, name);
}

LLVMValueRef zy_snapshot_of(LLVMValueRef fn) {
  return named(LLVMGetGlobalParent(fn), LLVMGetValueName(fn), SRC);
}

static int has_suffix(LLVMValueRef f, const char *suffix) {
  size_t len, n = strlen(suffix);
  const char *name = LLVMGetValueName2(f, &len);
  return len > n && !strcmp(name + len - n, suffix);
}

static int is_local(LLVMValueRef f) {
  LLVMLinkage l = LLVMGetLinkage(f);
  return l == LLVMInternalLinkage || l == LLVMPrivateLinkage;
}

/* The direct calls of `fn` to functions with a body. */
static void direct_calls(LLVMValueRef fn, ZyVec *out) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      LLVMValueRef c = LLVMIsACallInst(i) ? LLVMGetCalledValue(i) : NULL;
      if (c && LLVMIsAFunction(c) && !LLVMIsDeclaration(c))
        zy_vec_push(out, i);
    }
}

static void set_callee(LLVMValueRef call, LLVMValueRef f) {
  LLVMSetOperand(call, LLVMGetNumOperands(call) - 1, f);
}

void zy_take_snapshot(LLVMValueRef fn) {
  if (LLVMIsDeclaration(fn) || zy_snapshot_of(fn))
    return;
  LLVMModuleRef m = LLVMGetGlobalParent(fn);
  char name[512];
  snprintf(name, sizeof name, "%s" SRC, LLVMGetValueName(fn));
  LLVMValueRef s = zy_llvm_clone_function(fn, name);
  zy_set_optnone(s, 1);
  zy_llvm_keep_alive(s);
  ZyVec calls = {0};
  direct_calls(s, &calls);
  for (size_t k = 0; k < calls.len; k++) {
    LLVMValueRef g = LLVMGetCalledValue(calls.data[k]);
    if (!is_local(g) || g == fn)
      continue;
    LLVMValueRef ref = named(m, LLVMGetValueName(g), REF);
    if (!ref) {
      /* Internal and never run, so a module that leaves the optimizer
       * with it (an LTO pre-link) still links. */
      snprintf(name, sizeof name, "%s" REF, LLVMGetValueName(g));
      ref = LLVMAddFunction(m, name, LLVMGlobalGetValueType(g));
      LLVMSetLinkage(ref, LLVMInternalLinkage);
      zy_set_optnone(ref, 1);
      LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
      LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(
                                      LLVMGetModuleContext(m), ref, ""));
      LLVMBuildUnreachable(b);
      LLVMDisposeBuilder(b);
    }
    set_callee(calls.data[k], ref);
    zy_take_snapshot(g);
  }
  zy_vec_free(&calls);
}

/* The function `f` (a copy or a reference) stands for, when it is one:
 * the name without the suffix. */
static LLVMValueRef original(LLVMValueRef f, const char *suffix,
                             char *base, size_t n) {
  size_t len;
  const char *name = LLVMGetValueName2(f, &len);
  snprintf(base, n, "%.*s", (int)(len - strlen(suffix)), name);
  return LLVMGetNamedFunction(LLVMGetGlobalParent(f), base);
}

LLVMValueRef zy_snapshot_source(LLVMValueRef f) {
  if (!has_suffix(f, REF))
    return zy_snapshot_of(f);
  char base[512];
  original(f, REF, base, sizeof base);
  return named(LLVMGetGlobalParent(f), base, SRC);
}

void zy_snapshot_resolve(LLVMValueRef p) {
  LLVMModuleRef m = LLVMGetGlobalParent(p);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(p); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      LLVMValueRef c = LLVMIsACallInst(i) ? LLVMGetCalledValue(i) : NULL;
      if (!c || !LLVMIsAFunction(c) || !has_suffix(c, REF))
        continue;
      /* Always the copy: the optimizer may have specialized a static
       * function for the calls it saw (constant arguments, a changed
       * signature), and this call is not one of them. */
      char base[512];
      original(c, REF, base, sizeof base);
      LLVMValueRef g = named(m, base, SRC);
      if (g)
        set_callee(i, g);
    }
}

void zy_snapshot_inline(LLVMValueRef p, LLVMValueRef fn) {
  ZyVec called = {0}, calls = {0};
  direct_calls(fn, &calls);
  for (size_t k = 0; k < calls.len; k++)
    zy_vec_push(&called, LLVMGetCalledValue(calls.data[k]));
  /* An inlined body may call what the optimizer inlined into `fn` only
   * after inlining it there: a few rounds. */
  for (int round = 0; round < 8; round++) {
    calls.len = 0;
    direct_calls(p, &calls);
    int inlined = 0;
    for (size_t k = 0; k < calls.len; k++) {
      LLVMValueRef g = LLVMGetCalledValue(calls.data[k]), orig = g;
      char base[512];
      if (has_suffix(g, SRC))
        orig = original(g, SRC, base, sizeof base);
      if (g != fn && g != p && !has_suffix(g, REF) &&
          (!orig || !zy_vec_contains(&called, orig)))
        inlined |= zy_llvm_inline_call(calls.data[k]);
    }
    if (!inlined)
      break;
    zy_snapshot_resolve(p);
  }
  zy_vec_free(&called);
  zy_vec_free(&calls);
}

void zy_release_snapshots(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m), next; f; f = next) {
    next = LLVMGetNextFunction(f);
    if (has_suffix(f, SRC))
      zy_llvm_let_go(f);
  }
  /* Copies may call each other's references: until nothing changes. */
  for (int changed = 1; changed;) {
    changed = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(m), next; f; f = next) {
      next = LLVMGetNextFunction(f);
      if ((has_suffix(f, SRC) || has_suffix(f, REF)) && !LLVMGetFirstUse(f)) {
        LLVMDeleteFunction(f);
        changed = 1;
      }
    }
  }
  /* A copy still called (not inlined into a gradient) is optimized like
   * the function it copies. */
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (has_suffix(f, SRC)) {
      zy_snapshot_resolve(f);
      zy_set_optnone(f, 0);
      zy_llvm_simplify_function(f, 2);
    }
}
