/* zymase_cuda_api.h - the CUDA runtime calls of the GPU-on-CPU runtime
 * whose arguments are CUDA's own structures and enums (cudaDeviceProp,
 * cudaDeviceAttr, cudaFuncAttributes, cudaLaunchConfig_t), compiled with
 * the program's CUDA headers: zymase-clang --gpu-on-cpu includes this file
 * in each CUDA file (weak host definitions: the link keeps one), so that
 * the structures' layout is the headers' own, whichever CUDA release they
 * come from; and the declarations CUDA 13 dropped that programs call.  The
 * numbers come from the runtime
 * (__zy_gpu_device_info, __zy_gpu_func_info in zymase_gpu.h).
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZYMASE_CUDA_API_H
#define ZYMASE_CUDA_API_H

#include "zymase_gpu.h"

#include <cuda_runtime_api.h>
#include <string.h>

extern "C" {

#if CUDART_VERSION >= 13000
/* The thread-named forms of the device calls, which CUDA 13's headers no
 * longer declare and older programs still call (the runtime has them). */
cudaError_t cudaThreadSynchronize(void);
cudaError_t cudaThreadExit(void);
cudaError_t cudaThreadSetLimit(enum cudaLimit limit, size_t value);
cudaError_t cudaThreadGetLimit(size_t *value, enum cudaLimit limit);
#endif

__attribute__((weak)) cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p,
                                                          int device) {
  if (!p)
    return cudaErrorInvalidValue;
  if (device != 0)
    return cudaErrorInvalidDevice;
  ZgDeviceInfo d;
  __zy_gpu_device_info(&d);
  memset(p, 0, sizeof *p);
  strcpy(p->name, "Zymase GPU on CPU");
  p->totalGlobalMem = d.total_mem;
  p->sharedMemPerBlock = d.shared_per_block;
  p->regsPerBlock = 65536;
  p->warpSize = d.warp;
  p->memPitch = 0x7fffffff;
  p->maxThreadsPerBlock = d.max_threads_per_block;
  for (int k = 0; k < 3; k++) {
    p->maxThreadsDim[k] = d.max_block[k];
    p->maxGridSize[k] = d.max_grid[k];
  }
  p->totalConstMem = d.const_mem;
  p->major = d.major;
  p->minor = d.minor;
  p->textureAlignment = 512;
  p->multiProcessorCount = d.sms;
  p->integrated = 1; /* the host's memory */
  p->canMapHostMemory = 1;
  p->concurrentKernels = 0; /* launches run one after another */
  p->unifiedAddressing = 1;
  p->memoryBusWidth = 64;
  p->l2CacheSize = 4 << 20;
  p->maxThreadsPerMultiProcessor = 2048;
  p->sharedMemPerMultiprocessor = d.shared_optin + 1024;
  p->regsPerMultiprocessor = 65536;
  p->managedMemory = 1;
  p->pageableMemoryAccess = 1;
  p->concurrentManagedAccess = 1;
  p->sharedMemPerBlockOptin = d.shared_optin;
  p->maxBlocksPerMultiProcessor = 32;
  p->reservedSharedMemPerBlock = 0;
  return cudaSuccess;
}

/* The attributes the emulation has a value for; any other is 0 (a
 * capability the emulated device does not have). */
__attribute__((weak)) cudaError_t
cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device) {
  if (!value)
    return cudaErrorInvalidValue;
  if (device != 0)
    return cudaErrorInvalidDevice;
  ZgDeviceInfo d;
  __zy_gpu_device_info(&d);
  int v = 0;
  switch (attr) {
  case cudaDevAttrMaxThreadsPerBlock:
    v = d.max_threads_per_block;
    break;
  case cudaDevAttrMaxBlockDimX:
  case cudaDevAttrMaxBlockDimY:
  case cudaDevAttrMaxBlockDimZ:
    v = d.max_block[attr - cudaDevAttrMaxBlockDimX];
    break;
  case cudaDevAttrMaxGridDimX:
  case cudaDevAttrMaxGridDimY:
  case cudaDevAttrMaxGridDimZ:
    v = d.max_grid[attr - cudaDevAttrMaxGridDimX];
    break;
  case cudaDevAttrMaxSharedMemoryPerBlock:
    v = (int)d.shared_per_block;
    break;
  case cudaDevAttrMaxSharedMemoryPerBlockOptin:
    v = (int)d.shared_optin;
    break;
  case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
    v = (int)d.shared_optin + 1024;
    break;
  case cudaDevAttrTotalConstantMemory:
    v = (int)d.const_mem;
    break;
  case cudaDevAttrWarpSize:
    v = d.warp;
    break;
  case cudaDevAttrMaxRegistersPerBlock:
  case cudaDevAttrMaxRegistersPerMultiprocessor:
    v = 65536;
    break;
  case cudaDevAttrMultiProcessorCount:
    v = d.sms;
    break;
  case cudaDevAttrComputeCapabilityMajor:
    v = d.major;
    break;
  case cudaDevAttrComputeCapabilityMinor:
    v = d.minor;
    break;
  case cudaDevAttrMaxThreadsPerMultiProcessor:
    v = 2048;
    break;
  case cudaDevAttrMaxBlocksPerMultiprocessor:
    v = 32;
    break;
  case cudaDevAttrL2CacheSize:
    v = 4 << 20;
    break;
  case cudaDevAttrGlobalMemoryBusWidth:
    v = 64;
    break;
  case cudaDevAttrIntegrated:
  case cudaDevAttrCanMapHostMemory:
  case cudaDevAttrUnifiedAddressing:
  case cudaDevAttrManagedMemory:
  case cudaDevAttrPageableMemoryAccess:
  case cudaDevAttrConcurrentManagedAccess:
    v = 1;
    break;
  default:
    v = 0;
  }
  *value = v;
  return cudaSuccess;
}

__attribute__((weak)) cudaError_t
cudaFuncGetAttributes(struct cudaFuncAttributes *a, const void *func) {
  uint64_t st, dyn;
  if (!a)
    return cudaErrorInvalidValue;
  if (__zy_gpu_func_info(func, &st, &dyn))
    return cudaErrorInvalidDeviceFunction;
  memset(a, 0, sizeof *a);
  a->sharedSizeBytes = st;
  a->maxThreadsPerBlock = ZG_MAX_BLOCK;
  a->numRegs = 32;
  a->ptxVersion = 70;
  a->binaryVersion = 70;
  a->maxDynamicSharedSizeBytes =
      (int)(dyn ? dyn : (st < ZG_SHARED_DEFAULT ? ZG_SHARED_DEFAULT - st : 0));
  return cudaSuccess;
}

/* Launch attributes (clusters, priorities, ...) change nothing here. */
__attribute__((weak)) cudaError_t
cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func,
                    void **args) {
  if (!config)
    return cudaErrorInvalidValue;
  return cudaLaunchKernel(func, config->gridDim, config->blockDim, args,
                          config->dynamicSmemBytes, config->stream);
}
}

#endif
