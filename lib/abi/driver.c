/* driver.c - the module pass: finds the __enzyme_* entry points and
 * lowers every call to them.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad/ad.h"

#include "abi.h"

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

void zy_snapshot_targets(LLVMModuleRef m) {
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
  zy_activity_scan_module(m);
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
  zy_release_snapshots(m);
  for (size_t i = 0; i < zm.grads.len; i++)
    zy_gradient_entry_free(zm.grads.data[i]);
  zy_vec_free(&zm.grads);
  zy_map_free(&zm.global_shadows);
  return changed;
}
