/* driver.c - the module pass: finds the __enzyme_* entry points and
 * lowers every call to them.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad.h"

#include "callconv.h"

#include <stdlib.h>
#include <string.h>

static int starts_with(const char *s, const char *p) {
  return !strncmp(s, p, strlen(p));
}

/* The calls (not other uses) of `fn`. */
static void collect_calls(LLVMValueRef fn, ZyVec *calls) {
  for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsACallInst(user) && LLVMGetCalledValue(user) == fn)
      zy_vec_push(calls, user);
  }
}

static void lower_all(ZyModule *zm, LLVMValueRef entry, int *changed) {
  ZyVec calls = {0};
  collect_calls(entry, &calls);
  const char *name = LLVMGetValueName(entry);
  for (size_t i = 0; i < calls.len; i++) {
    if (starts_with(name, "__enzyme_autodiff")) {
      if (!zy_lower_autodiff_call(zm, calls.data[i]))
        *changed = 1;
    } else {
      LLVMValueRef call = calls.data[i];
      LLVMValueRef caller =
          LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
      zy_error(ZY_ERR_BAD_CALL, caller, call, NULL,
               "'%s' is not supported: Zymase implements reverse mode "
               "(__enzyme_autodiff)", name);
    }
  }
  zy_vec_free(&calls);
}

int zy_run_on_module(LLVMModuleRef m) {
  ZyModule zm = {.mod = m, .ctx = LLVMGetModuleContext(m)};
  int changed = 0;
  ZyVec entries = {0};
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    const char *name = LLVMGetValueName(f);
    if (starts_with(name, "__enzyme_autodiff") ||
        starts_with(name, "__enzyme_fwddiff") ||
        starts_with(name, "__enzyme_augmentfwd") ||
        starts_with(name, "__enzyme_reverse") ||
        starts_with(name, "__enzyme_batch"))
      zy_vec_push(&entries, f);
  }
  for (size_t i = 0; i < entries.len; i++) {
    LLVMValueRef f = entries.data[i];
    lower_all(&zm, f, &changed);
    if (!LLVMGetFirstUse(f) && LLVMIsDeclaration(f))
      LLVMDeleteFunction(f);
  }
  zy_vec_free(&entries);
  for (size_t i = 0; i < zm.grads.len; i++)
    free(zm.grads.data[i]);
  zy_vec_free(&zm.grads);
  return changed;
}
