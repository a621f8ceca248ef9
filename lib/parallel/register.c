/* register.c - what the parallel runtimes (OpenMP, GPU device code,
 * privatized loops) register with the engine at start-up: the accumulation
 * strategies, asked in this order (ad/runtime.h).
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "parallel.h"

#include "ad/ad.h"
#include "ad/runtime.h"

/* The last strategy: plain where only this thread can reach the memory,
 * atomic otherwise (ownership.c). */
static int owned_applies(ZyGen *g, LLVMValueRef p, LLVMValueRef delta) {
  (void)g, (void)p, (void)delta;
  return 1;
}

static void owned_add(ZyGen *g, LLVMValueRef p, LLVMValueRef shadow,
                      LLVMValueRef delta) {
  zy_accumulate(g, shadow, delta, zy_parallel_acc_kind(g, p));
}

static const ZyAccStrategy privatized = {"privatized", zy_priv_applies,
                                         zy_priv_accumulate};
static const ZyAccStrategy device = {"device", zy_gpu_acc_applies,
                                     zy_gpu_accumulate};
static const ZyAccStrategy ownership = {"ownership", owned_applies, owned_add};

void zy_parallel_register(void) {
  zy_acc_register(&privatized); /* a per-thread buffer, added after the loop */
  zy_acc_register(&device);     /* device code: see gpu_accumulate.c */
  zy_acc_register(&ownership);
}
