/* gpu.h - GPU on CPU: retargets device IR (nvptx64, amdgcn) to the host,
 * so that its kernels run on CPU threads under runtime/gpu-on-cpu.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_GPU_GPU_H
#define ZY_GPU_GPU_H

#include <llvm-c/Core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The module pass zymase-gpu-to-host.  `m` is the device module of one
 * CUDA or HIP translation unit (triple nvptx64-* or amdgcn-*: warps of 64
 * lanes), after the device pipeline (and
 * the AD pass) ran on it.  Rewrites it into a host module: GPU intrinsics
 * become calls of the runtime (runtime/gpu-on-cpu/zymase_gpu.h), __shared__
 * variables become offsets into the block's shared arena, kernels become C
 * functions with an entry `void entry(void **args)`, and a constructor
 * registers the kernels and device variables with the runtime.  Every
 * definition becomes internal, so the host module's symbols never clash
 * with the device's.  Then sets the host's triple and data layout.
 * Returns -1 after reporting errors (located diagnostics), else 0. */
int zy_gpu_to_host(LLVMModuleRef m);

#ifdef __cplusplus
}
#endif

#endif
