/* gpu.h - GPU on CPU: retargets device IR (nvptx64, amdgcn) to the host,
 * so that its kernels run on CPU threads under runtime/gpu-on-cpu.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_GPU_GPU_H
#define ZY_GPU_GPU_H

#include <llvm-c/Core.h>

#include "support/vec.h"

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

/* GPU on CPU: replaces `call`, an inline PTX snippet of CUDA's libdevice,
 * by the same arithmetic in host IR (ptx_asm.c).  Returns 0 (nothing
 * changed) for any other inline assembly. */
int zy_gpu_ptx_asm(LLVMModuleRef m, LLVMValueRef call);

/* GPU on CPU: replaces `call`, inline PTX as CUDA's C++ libraries (CUB,
 * Thrust, libcu++) write it, by the same operations in IR (ptx_insn.c);
 * the nvvm intrinsics it emits are for the retargeting to map.  Returns 0
 * (nothing changed) for PTX it does not know. */
int zy_gpu_ptx_insn(LLVMModuleRef m, LLVMValueRef call);

/* Device math after AD (device_math.c): in the functions the plugin made
 * (every function but the program's own with a body, `user`), math
 * intrinsics a GPU backend cannot select (f64 sin, exp, log, pow, ...)
 * become calls of the device library; with libdevice in the module (a CUDA
 * compilation for a real GPU), what it lacks is linked from libdevice's
 * bitcode, and the math they call (libdevice's functions, snapshot.c's
 * copies of them) is inlined into them.  The program's functions are not
 * changed.  Returns -1 after a located error (libdevice not found). */
int zy_gpu_math_finish(LLVMModuleRef m, const ZyMap *user);

#ifdef __cplusplus
}
#endif

#endif
