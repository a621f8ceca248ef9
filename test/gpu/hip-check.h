/* hip-check.h - gpu-check.h for HIP programs: the same checked calls and
 * comparisons, spelled with HIP's runtime API.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_TEST_HIP_CHECK_H
#define ZY_TEST_HIP_CHECK_H

#include <hip/hip_runtime.h>

#define cudaError_t hipError_t
#define cudaSuccess hipSuccess
#define cudaGetErrorString hipGetErrorString
#define cudaMalloc hipMalloc
#define cudaMemcpy hipMemcpy
#define cudaMemcpyHostToDevice hipMemcpyHostToDevice
#define cudaMemcpyDeviceToHost hipMemcpyDeviceToHost
#include "gpu-check.h"

#endif
