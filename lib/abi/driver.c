/* driver.c - the module pass: finds the __enzyme_* entry points and
 * lowers every call to them.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad/ad.h"

#include "abi.h"
#include "ad/rules.h"
#include "analysis/registry.h"

#include <stdlib.h>
#include <string.h>

static int starts_with(const char *s, const char *p) {
  return !strncmp(s, p, strlen(p));
}

static int is_entry_point(const char *name) {
  static const char *const prefixes[] = {
      "__enzyme_autodiff", "__enzyme_fwddiff",   "__enzyme_augmentfwd",
      "__enzyme_reverse",  "__enzyme_augmentsize", "__enzyme_batch"};
  for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
    if (starts_with(name, prefixes[i]))
      return 1;
  return 0;
}

/* The calls to entry points, in the order they appear in the module (so
 * errors come out in source order). */
static void collect_calls(LLVMModuleRef m, ZyVec *calls) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i)) {
        LLVMValueRef callee = LLVMIsACallInst(i) ? LLVMGetCalledValue(i) : 0;
        if (callee && LLVMIsAFunction(callee) &&
            is_entry_point(LLVMGetValueName(callee)))
          zy_vec_push(calls, i);
      }
}

static int lower(ZyModule *zm, LLVMValueRef call) {
  const char *name = LLVMGetValueName(LLVMGetCalledValue(call));
  if (starts_with(name, "__enzyme_autodiff"))
    return zy_lower_autodiff_call(zm, call);
  if (starts_with(name, "__enzyme_augmentfwd"))
    return zy_lower_augmentfwd_call(zm, call);
  if (starts_with(name, "__enzyme_reverse"))
    return zy_lower_reverse_call(zm, call);
  if (starts_with(name, "__enzyme_augmentsize"))
    return zy_lower_augmentsize_call(zm, call);
  return zy_error(ZY_ERR_BAD_CALL, NULL, call, NULL,
                  "'%s' is not supported: Zymase implements reverse mode "
                  "(__enzyme_autodiff, __enzyme_augmentfwd, __enzyme_reverse)",
                  name);
}

/* The entry points whose function is differentiated (its snapshot is
 * taken before the optimizer runs). */
static int differentiates(const char *name) {
  return starts_with(name, "__enzyme_autodiff") ||
         starts_with(name, "__enzyme_augmentfwd") ||
         starts_with(name, "__enzyme_reverse");
}

static int is_entry_call(LLVMValueRef v) {
  LLVMValueRef f = LLVMIsACallInst(v) ? LLVMGetCalledValue(v) : NULL;
  return f && LLVMIsAFunction(f) && is_entry_point(LLVMGetValueName(f));
}

/* A user of `v` other than a call to an entry point (one that could not
 * be lowered has been reported already), directly or through a load:
 * where a marker is used for something else.  NULL if there is none. */
static LLVMValueRef live_use(LLVMValueRef v) {
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (is_entry_call(user))
      continue;
    if (!LLVMIsALoadInst(user))
      return user;
    for (LLVMUseRef l = LLVMGetFirstUse(user); l; l = LLVMGetNextUse(l))
      if (!is_entry_call(LLVMGetUser(l)))
        return LLVMGetUser(l);
  }
  return NULL;
}

static LLVMValueRef function_of(LLVMValueRef inst) {
  return LLVMIsAInstruction(inst)
             ? LLVMGetBasicBlockParent(LLVMGetInstructionParent(inst))
             : NULL;
}

/* Once the calls to entry points are lowered, any name of Enzyme's
 * interface still in use is one Zymase does not implement: an error,
 * never skipped (a call to __enzyme_todense, a marker passed elsewhere
 * than to an entry point).  Registrations are checked by registry.c. */
static void check_leftover_names(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    LLVMValueRef user = live_use(f);
    if (starts_with(LLVMGetValueName(f), "__enzyme_") && user &&
        !is_entry_point(LLVMGetValueName(f)))
      zy_error(ZY_ERR_BAD_CALL, function_of(user), user,
               "see README.md, \"Coming from Enzyme\", for what Zymase "
               "implements",
               "'%s' is part of Enzyme's interface that Zymase does not "
               "implement", LLVMGetValueName(f));
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    const char *name = LLVMGetValueName(g);
    LLVMValueRef user = live_use(g);
    if (starts_with(name, "enzyme_") && user && !zy_abi_marker_known(name) &&
        function_of(user))
      zy_error(ZY_ERR_BAD_MARKER, function_of(user), user,
               "markers are only read as arguments of __enzyme_autodiff",
               "'%s' is part of Enzyme's interface that Zymase does not "
               "implement", name);
  }
}

/* Registered math-like functions must match a derivative rule. */
static void check_function_like(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (zy_registry_function_like(f) && !zy_rule_for_call(f))
      zy_error(ZY_ERR_BAD_REGISTRATION, f, NULL,
               "name a math function with a derivative rule (see "
               "lib/ad/rules.def), whose parameters and result have the "
               "types of this function's",
               "it is registered as like '%s', which has no derivative rule "
               "for a function of this type", zy_registry_function_like(f));
}

void zy_snapshot_targets(LLVMModuleRef m) {
  zy_registry_protect(m);
  ZyVec calls = {0};
  collect_calls(m, &calls);
  for (size_t i = 0; i < calls.len; i++) {
    LLVMValueRef call = calls.data[i];
    if (!differentiates(LLVMGetValueName(LLVMGetCalledValue(call))))
      continue;
    LLVMValueRef fn = zy_abi_target(call);
    if (fn && !LLVMIsDeclaration(fn))
      zy_take_snapshot(fn);
  }
  zy_vec_free(&calls);
}

int zy_run_on_module(LLVMModuleRef m) {
  ZyModule zm = {.mod = m, .ctx = LLVMGetModuleContext(m)};
  int changed = 0;
  zy_registry_scan(m);
  check_function_like(m);
  ZyVec calls = {0}, entries = {0};
  collect_calls(m, &calls);
  for (size_t i = 0; i < calls.len; i++) {
    LLVMValueRef callee = LLVMGetCalledValue(calls.data[i]);
    if (!zy_vec_contains(&entries, callee))
      zy_vec_push(&entries, callee);
    if (!lower(&zm, calls.data[i]))
      changed = 1;
  }
  if (zy_check_split_pairs(&zm))
    changed = 1;
  for (size_t i = 0; i < entries.len; i++) {
    LLVMValueRef f = entries.data[i];
    if (!LLVMGetFirstUse(f) && LLVMIsDeclaration(f))
      LLVMDeleteFunction(f);
  }
  zy_vec_free(&calls);
  zy_vec_free(&entries);
  check_leftover_names(m);
  zy_release_snapshots(m);
  for (size_t i = 0; i < zm.grads.len; i++)
    zy_gradient_entry_free(zm.grads.data[i]);
  zy_vec_free(&zm.grads);
  zy_map_free(&zm.global_shadows);
  return changed;
}
