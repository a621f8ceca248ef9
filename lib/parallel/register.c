/* register.c - what the parallel runtimes (OpenMP, GPU device code,
 * privatized loops) register with the engine at start-up: their hooks
 * (ZyParallel), the adjoint and tangent of warp shuffles (a
 * ZyCallRuntime) and the accumulation strategies, asked in this order
 * (ad/runtime.h).
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "parallel.h"

#include "ad/ad.h"
#include "ad/runtime.h"

/* The last strategy: plain where only this thread can reach the memory,
 * atomic otherwise, or plain while no other thread runs (ownership.c). */
static int owned_applies(ZyGen *g, LLVMValueRef p, LLVMValueRef delta) {
  (void)g, (void)p, (void)delta;
  return 1;
}

static const ZyAccStrategy privatized = {"privatized", zy_priv_applies,
                                         zy_priv_accumulate};
static const ZyAccStrategy device = {"device", zy_gpu_acc_applies,
                                     zy_gpu_accumulate};
static const ZyAccStrategy ownership = {"ownership", owned_applies,
                                        zy_parallel_owned_add};

static const ZyParallel hooks = {
    .omp_prepare = zy_omp_prepare,
    .gpu_dynamic_shared_prepare = zy_gpu_dynamic_shared_prepare,
    .gpu_wrapper = zy_gpu_wrapper,
    .omp_type_regions = zy_omp_type_regions,
    .gpu_shuffle_fuse = zy_gpu_shuffle_fuse,
    .omp_is_region = zy_omp_is_region,
    .gpu_shuffle_mode = zy_gpu_shuffle_mode,
    .context = zy_parallel_context,
    .omp_check = zy_omp_check,
    .gpu_shuffle_check = zy_gpu_shuffle_check,
    .gpu_dynamic_shared_check = zy_gpu_dynamic_shared_check,
    .priv_plan = zy_priv_plan,
    .priv_forward_block_end = zy_priv_forward_block_end,
    .priv_forward_block_begin = zy_priv_forward_block_begin,
    .priv_forward_access = zy_priv_forward_access,
    .priv_reverse_enter = zy_priv_reverse_enter,
    .priv_reverse_leave = zy_priv_reverse_leave,
    .priv_free = zy_priv_free,
    .omp_forward_region = zy_omp_forward_region,
    .omp_reverse_region = zy_omp_reverse_region,
    .omp_reverse_needed = zy_omp_reverse_needed,
    .omp_reverse_sync = zy_omp_reverse_sync,
    .omp_tangent_region = zy_omp_tangent_region,
    .gpu_reverse_needed = zy_gpu_reverse_needed,
    .gpu_reverse_sync = zy_gpu_reverse_sync,
    .gpu_shared_shadow = zy_gpu_shared_shadow,
    .gpu_shared_lanes = zy_gpu_shared_lanes,
    .gpu_dynamic_shadow_expr = zy_gpu_dynamic_shadow_expr,
    .gpu_zero_shared = zy_gpu_zero_shared,
    .gpu_finish = zy_gpu_finish,
    .gpu_dynamic_release = zy_gpu_dynamic_release,
};

static const ZyCallRuntime shuffles = {.name = "warp shuffles",
                                       .reverse = zy_gpu_reverse_shuffle,
                                       .tangent = zy_gpu_tangent_shuffle};

void zy_parallel_register(void) {
  zy_parallel_hooks_register(&hooks);
  zy_runtime_register(ZY_CALL_SHUFFLE, &shuffles);
  zy_acc_register(&privatized); /* a per-thread buffer, added after the loop */
  zy_acc_register(&device);     /* device code: see gpu_accumulate.c */
  zy_acc_register(&ownership);
}
