// gpu_address.h - how a device address depends on the GPU thread (scalar
// evolution), for gpu_accumulate.c through zy_llvm_alias_gpu_address.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef ZY_LLVM_GPU_ADDRESS_H
#define ZY_LLVM_GPU_ADDRESS_H

#include "llvm-c/Core.h"
#include "llvm/Analysis/ScalarEvolution.h"

// 1 when `P` is the same in every thread (built from values `Uniform`
// accepts), 2 when it is injective in the grid's x thread number (nvptx
// special registers or amdgcn work-item intrinsics, ockl calls, dispatch
// packet loads), 0 otherwise.
int zyGpuAddress(llvm::ScalarEvolution &SE, llvm::Value *P,
                 int (*Uniform)(LLVMValueRef, void *), void *Ctx);

#endif
