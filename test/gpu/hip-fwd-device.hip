// Forward mode in HIP device code (amdgcn): the program of fwd-device.cu
// compiled as HIP, its warp shuffles HIP's __shfl_down / __shfl_xor over
// 32 lanes of a wavefront of 64 (the float and double overloads, kept as
// calls at -O0, ds.bpermute of a double's halves at -O2): scalars through
// ocml math against closed forms; a grid-stride body, a __shared__ stencil
// between barriers, a reduction tree with shuffles and dynamic __shared__
// memory against central differences; forward against reverse; vector
// mode with one __shared__ shadow per direction; no atomics counted while
// the tangent kernels run.  Forward against reverse through the stencil
// only: the reduction's gradient deadlocks in the emulation (its reverse
// exchange, under `t < 32`, waits for the other half of the wavefront,
// which waits at a barrier).
// REQUIRES: hip
// RUN: %gpu-clang -O0 %s -o %t0 && %t0
// RUN: %gpu-clang -O2 %s -o %t2 && %t2
// RUN: %gpu-clang -O2 -mllvm -zymase-gpu-count-atomics -DCOUNT_ATOMICS %s -o %tc && %tc
#include "hip-check.h"

#define cudaFree hipFree
#define cudaGetLastError hipGetLastError
#define __shfl_down_sync(mask, v, off) __shfl_down(v, off, 32)
#define __shfl_xor_sync(mask, v, off) __shfl_xor(v, off, 32)
#define NO_REDUCTION_GRADIENT
#include "fwd-device.cu"
