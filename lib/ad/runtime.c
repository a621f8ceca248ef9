/* runtime.c - the table of the runtimes' call handlers (runtime.h).
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "runtime.h"

enum { NMODES = ZY_CALL_SHUFFLE + 1 };
static const ZyCallRuntime *handlers[NMODES];

void zy_runtime_register(ZyCallMode mode, const ZyCallRuntime *rt) {
  ZY_ASSERT((unsigned)mode < NMODES && rt);
  handlers[mode] = rt;
}

const ZyCallRuntime *zy_runtime(ZyCallMode mode) {
  ZY_ASSERT((unsigned)mode < NMODES && handlers[mode]);
  return handlers[mode];
}

int zy_runtimes_prepare(ZyGen *g) {
  int changed = 0;
  for (unsigned m = 0; m < NMODES; m++)
    if (handlers[m] && handlers[m]->prepare)
      changed |= handlers[m]->prepare(g);
  return changed;
}

int zy_runtimes_check(ZyGen *g) {
  for (unsigned m = 0; m < NMODES; m++)
    if (handlers[m] && handlers[m]->check && handlers[m]->check(g))
      return -1;
  return 0;
}

void zy_runtimes_release(ZyGen *g) {
  for (unsigned m = 0; m < NMODES; m++)
    if (handlers[m] && handlers[m]->release)
      handlers[m]->release(g);
}

enum { NSTRATEGIES = 8 };
static const ZyAccStrategy *strategies[NSTRATEGIES];
static unsigned nstrategies;

void zy_acc_register(const ZyAccStrategy *s) {
  ZY_ASSERT(s && s->applies && s->add);
  for (unsigned k = 0; k < nstrategies; k++)
    if (strategies[k] == s)
      return;
  ZY_ASSERT(nstrategies < NSTRATEGIES);
  strategies[nstrategies++] = s;
}

const ZyAccStrategy *zy_acc_strategy(ZyGen *g, LLVMValueRef p,
                                     LLVMValueRef delta) {
  for (unsigned k = 0; k < nstrategies; k++)
    if (strategies[k]->applies(g, p, delta))
      return strategies[k];
  return NULL;
}

static const ZyParallel *parallel_hooks;

void zy_parallel_hooks_register(const ZyParallel *p) {
  ZY_ASSERT(p);
  parallel_hooks = p;
}

const ZyParallel *zy_parallel(void) {
  ZY_ASSERT(parallel_hooks);
  return parallel_hooks;
}
