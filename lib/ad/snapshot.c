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
 * last use); a second call, from the copy, would keep it out of line; a
 * function or global whose address the copy takes is no longer
 * unnamed_addr; a global the copy writes is no longer a constant.  So the
 * copy names every function and global variable through a stand-in
 * `g.zymase.ref` (zy_llvm_snapshot_clone), and the functions with a body
 * get copies of their own, which the clone calls: the optimizer may
 * delete `g` once it is inlined everywhere, or specialize it for the
 * calls it saw.  When AD starts, zy_snapshot_bind makes the stand-ins
 * what they stand for.
 *
 * In device code (CUDA, HIP) every callee with a body gets a copy, at
 * every optimization level: clang links libdevice's math functions
 * (`__nv_cosf`, always-inline) into the module, and the optimizer (the
 * always-inliner at -O0) puts their bodies of nvvm arithmetic into the
 * user's code, where no rule applies.  The copies still call them, and
 * the gradient keeps such a call (its rule) until it is made; the user's
 * own functions and the library's are left as the optimizer makes them.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad.h"
#include "analysis/registry.h"
#include "ir/irutil.h"
#include "ir/rules.h"

#include <stdio.h>
#include <string.h>

#define SRC ".zymase.src"
#define REF ".zymase.ref"
#define DECLARED "zymase-declared"

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

/* The stand-in `g.zymase.ref` of function `g` (made on first use), which
 * the copies call or name instead of `g`.  Internal and never run, so a
 * module that leaves the optimizer with it (an LTO pre-link) still links.
 * It stores its arguments and loads its result (volatile): no
 * interprocedural pass may then make an argument at a copy's call poison,
 * nor fold the result (dead arguments, constant results, no return). */
static LLVMValueRef stand_in(LLVMValueRef g, void *named_ones) {
  LLVMModuleRef m = LLVMGetGlobalParent(g);
  LLVMValueRef ref = named(m, LLVMGetValueName(g), REF);
  if (ref)
    return ref;
  char name[1024];
  snprintf(name, sizeof name, "%s" REF, LLVMGetValueName(g));
  ref = LLVMAddFunction(m, name, LLVMGlobalGetValueType(g));
  LLVMSetLinkage(ref, LLVMInternalLinkage);
  zy_set_optnone(ref, 1);
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, ref, ""));
  for (unsigned a = 0; a < LLVMCountParams(ref); a++) {
    LLVMValueRef v = LLVMGetParam(ref, a);
    LLVMValueRef slot = LLVMBuildAlloca(b, LLVMTypeOf(v), "");
    LLVMSetVolatile(LLVMBuildStore(b, v, slot), 1);
  }
  LLVMTypeRef rt = LLVMGetReturnType(LLVMGlobalGetValueType(g));
  if (LLVMGetTypeKind(rt) == LLVMVoidTypeKind) {
    LLVMBuildRetVoid(b);
  } else {
    LLVMValueRef r = LLVMBuildLoad2(b, rt, LLVMBuildAlloca(b, rt, ""), "");
    LLVMSetVolatile(r, 1);
    LLVMBuildRet(b, r);
  }
  LLVMDisposeBuilder(b);
  /* Taken, so that no interprocedural pass changes how it is called (its
   * calling convention, under the copy's call). */
  zy_llvm_keep_alive(ref);
  if (LLVMIsDeclaration(g)) /* bound again by name if the optimizer drops g */
    LLVMAddAttributeAtIndex(
        ref, LLVMAttributeFunctionIndex,
        LLVMCreateStringAttribute(c, DECLARED, sizeof DECLARED - 1, "", 0));
  else
    zy_vec_push(named_ones, g);
  return ref;
}

void zy_take_snapshot(LLVMValueRef fn) {
  if (LLVMIsDeclaration(fn) || zy_snapshot_of(fn))
    return;
  char name[512];
  snprintf(name, sizeof name, "%s" SRC, LLVMGetValueName(fn));
  ZyVec named_ones = {0};
  LLVMValueRef s = zy_llvm_snapshot_clone(fn, name, stand_in, &named_ones);
  zy_set_optnone(s, 1);
  zy_llvm_keep_alive(s);
  /* What the copy names gets a copy in turn (a call of it becomes a call
   * of its copy; a function only named may be gone when AD runs). */
  for (size_t k = 0; k < named_ones.len; k++)
    zy_take_snapshot(named_ones.data[k]);
  zy_vec_free(&named_ones);
}

/* The function `f` (a copy or a reference) stands for, when it is one:
 * the name without the suffix. */
static LLVMValueRef original(LLVMValueRef f, const char *suffix, char *base,
                             size_t n) {
  size_t len;
  const char *name = LLVMGetValueName2(f, &len);
  snprintf(base, n, "%.*s", (int)(len - strlen(suffix)), name);
  return LLVMGetNamedFunction(LLVMGetGlobalParent(f), base);
}

int zy_snapshot_stand_in(LLVMValueRef f) {
  return f && LLVMIsAFunction(f) && has_suffix(f, REF);
}

LLVMValueRef zy_snapshot_original(LLVMValueRef f) {
  char base[512];
  return has_suffix(f, SRC) ? original(f, SRC, base, sizeof base) : NULL;
}

/* Whether the program registered something for `g` (a custom gradient,
 * an inactive or math-like function, an allocator): a copy of it would
 * not be what the registration names. */
static int registered(LLVMValueRef g) {
  return g && (zy_registry_any_custom(g) || zy_registry_function_like(g) ||
               zy_registry_inactive_function(g) || zy_registry_allocator(g) ||
               zy_registry_deallocator(g));
}

LLVMValueRef zy_snapshot_source(LLVMValueRef f) {
  if (!has_suffix(f, REF))
    return zy_snapshot_of(f);
  char base[512];
  original(f, REF, base, sizeof base);
  return named(LLVMGetGlobalParent(f), base, SRC);
}

/* Whether `u`'s user calls the value (rather than naming it). */
static int calls_it(LLVMUseRef u) {
  LLVMValueRef user = LLVMGetUser(u);
  return (LLVMIsACallInst(user) ||
          LLVMGetInstructionOpcode(user) == LLVMInvoke) &&
         LLVMGetCalledValue(user) == LLVMGetUsedValue(u);
}

int zy_snapshot_calls_registered(LLVMValueRef snap) {
  ZyVec seen = {0}, calls = {0};
  zy_vec_push(&seen, snap);
  int found = 0;
  for (size_t k = 0; k < seen.len && !found; k++) {
    calls.len = 0;
    direct_calls(seen.data[k], &calls);
    for (size_t c = 0; c < calls.len && !found; c++) {
      LLVMValueRef g = LLVMGetCalledValue(calls.data[c]);
      if (has_suffix(g, REF)) { /* before zy_snapshot_bind */
        char base[512];
        found = registered(original(g, REF, base, sizeof base));
        g = named(LLVMGetGlobalParent(g), base, SRC);
      } else {
        found = registered(g);
      }
      if (g && has_suffix(g, SRC) && !zy_vec_contains(&seen, g))
        zy_vec_push(&seen, g);
    }
  }
  zy_vec_free(&seen);
  zy_vec_free(&calls);
  return found;
}

/* What a copy's call of `orig` calls: `orig` when the program registered
 * something for it; its copy in device code (the original holds
 * libdevice's inlined bodies) or when the original is local (the
 * optimizer may have specialized it for the calls it saw, or deleted it)
 * or when the copy reaches a registered function (which the optimizer may
 * have inlined into the original); else the original, as the optimizer
 * made it. */
static LLVMValueRef call_target(LLVMValueRef orig, LLVMValueRef copy,
                                int device) {
  if (!copy || registered(orig))
    return orig;
  if (!orig || device)
    return copy;
  LLVMLinkage l = LLVMGetLinkage(orig);
  int local = l == LLVMInternalLinkage || l == LLVMPrivateLinkage;
  return local || zy_snapshot_calls_registered(copy) ? copy : orig;
}

/* Device code: the copies of the GPU math library's functions that have
 * a rule and take no pointer read and write no memory the program sees
 * (libdevice's argument reductions use local arrays and constant tables).
 * The optimizer infers it of the originals; a copy is not optimized, so
 * it is said here, or the pre-AD simplification keeps a second load of
 * `x[i]` across `sin(x[i])` and the gradient saves both. */
static void pure_math_copies(LLVMModuleRef m) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  unsigned memory = LLVMGetEnumAttributeKindForName("memory", 6);
  unsigned willreturn = LLVMGetEnumAttributeKindForName("willreturn", 10);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
       f = LLVMGetNextFunction(f)) {
    const char *name = LLVMGetValueName(f);
    if (!has_suffix(f, SRC) ||
        (strncmp(name, "__nv_", 5) && strncmp(name, "__ocml_", 7)) ||
        !zy_rule_for_call(f))
      continue;
    LLVMTypeRef t = LLVMGlobalGetValueType(f);
    int pointers = LLVMGetTypeKind(LLVMGetReturnType(t)) == LLVMPointerTypeKind;
    for (unsigned a = 0; a < LLVMCountParams(f); a++)
      pointers |= LLVMGetTypeKind(LLVMTypeOf(LLVMGetParam(f, a))) ==
                  LLVMPointerTypeKind;
    if (pointers)
      continue;
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(c, memory, 0));
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(c, willreturn, 0));
  }
}

void zy_snapshot_bind(LLVMModuleRef m) {
  char base[512];
  int device = zy_device_module(m);
  ZyVec refs = {0}; /* collected first: letting go rebuilds the used lists */
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g))
    if (has_suffix(g, REF))
      zy_vec_push(&refs, g);
  for (size_t k = 0; k < refs.len; k++) {
    LLVMValueRef g = refs.data[k];
    size_t len;
    const char *name = LLVMGetValueName2(g, &len);
    snprintf(base, sizeof base, "%.*s", (int)(len - strlen(REF)), name);
    LLVMValueRef orig = LLVMGetNamedGlobal(m, base);
    zy_llvm_let_go(g);
    if (orig) {
      LLVMReplaceAllUsesWith(g, orig);
      LLVMDeleteGlobal(g);
      continue;
    }
    /* Gone: the stand-in is the global now; an external one declared. */
    LLVMSetValueName2(g, base, strlen(base));
    LLVMValueRef init = LLVMGetInitializer(g);
    if (init && LLVMIsUndef(init)) {
      LLVMSetInitializer(g, NULL);
      LLVMSetLinkage(g, LLVMExternalLinkage);
    }
  }
  refs.len = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (has_suffix(f, REF))
      zy_vec_push(&refs, f);
  for (size_t k = 0; k < refs.len; k++) {
    LLVMValueRef f = refs.data[k];
    LLVMValueRef orig = original(f, REF, base, sizeof base);
    LLVMValueRef copy = named(m, base, SRC);
    if (!orig && !copy &&
        LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, DECLARED,
                                      sizeof DECLARED - 1))
      orig = LLVMAddFunction(m, base, LLVMGlobalGetValueType(f));
    zy_llvm_let_go(f);
    LLVMValueRef callee = call_target(orig, copy, device);
    for (LLVMUseRef u = LLVMGetFirstUse(f), un; u; u = un) {
      un = LLVMGetNextUse(u);
      if (callee && calls_it(u))
        set_callee(LLVMGetUser(u), callee);
    }
    LLVMValueRef named_as = orig ? orig : copy;
    if (named_as && LLVMGetFirstUse(f))
      LLVMReplaceAllUsesWith(f, named_as);
    if (!LLVMGetFirstUse(f))
      LLVMDeleteFunction(f);
  }
  zy_vec_free(&refs);
  if (device)
    pure_math_copies(m);
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
      LLVMValueRef orig = original(c, REF, base, sizeof base);
      LLVMValueRef g = registered(orig) ? orig : named(m, base, SRC);
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
      /* A math function with a rule stays a call (device code: a copy
       * of libdevice's, which the optimizer inlined into `fn`). */
      if (g != fn && g != p && !has_suffix(g, REF) && !zy_rule_for_call(g) &&
          !registered(g) && (!orig || !zy_vec_contains(&called, orig)))
        inlined |= zy_llvm_inline_call(calls.data[k]);
    }
    if (!inlined)
      break;
    zy_snapshot_resolve(p);
  }
  zy_vec_free(&called);
  zy_vec_free(&calls);
}

static int is_copy(LLVMValueRef f) {
  return has_suffix(f, SRC) || has_suffix(f, REF);
}

/* Whether a function other than a copy uses `f` (calls it, names it). */
static int used_outside_copies(LLVMValueRef f) {
  for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (!LLVMIsAInstruction(user) ||
        !is_copy(LLVMGetBasicBlockParent(LLVMGetInstructionParent(user))))
      return 1;
  }
  return 0;
}

void zy_release_snapshots(LLVMModuleRef m) {
  ZyVec live = {0};
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (is_copy(f)) {
      zy_llvm_let_go(f);
      if (has_suffix(f, SRC) && used_outside_copies(f))
        zy_vec_push(&live, f);
    }
  /* A copy still called (not inlined into a gradient) calls or names the
   * copies of its callees, which are then live too. */
  for (size_t k = 0; k < live.len; k++) {
    zy_snapshot_resolve(live.data[k]);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(live.data[k]); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i))
        for (int o = 0, n = LLVMGetNumOperands(i); o < n; o++) {
          LLVMValueRef v = LLVMGetOperand(i, o);
          if (v && LLVMIsAFunction(v) && has_suffix(v, SRC) &&
              !zy_vec_contains(&live, v))
            zy_vec_push(&live, v);
        }
  }
  /* The others go; they may still name each other. */
  ZyVec dead = {0};
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (is_copy(f) && !zy_vec_contains(&live, f))
      zy_vec_push(&dead, f);
  for (size_t k = 0; k < dead.len; k++)
    LLVMReplaceAllUsesWith(dead.data[k],
                           LLVMGetPoison(LLVMTypeOf(dead.data[k])));
  for (size_t k = 0; k < dead.len; k++)
    LLVMDeleteFunction(dead.data[k]);
  /* A copy still called is optimized like the function it copies. */
  for (size_t k = 0; k < live.len; k++) {
    zy_set_optnone(live.data[k], 0);
    zy_llvm_simplify_function(live.data[k], 2);
  }
  zy_vec_free(&live);
  zy_vec_free(&dead);
}
