/* hiprt.c - the HIP runtime API on the host: each call is its CUDA twin
 * in cudart.c (HIP's error codes are CUDA's for every error the runtime
 * returns), and clang's HIP registration and launch entry points.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "zymase_gpu.h"

#include <stdio.h>

typedef int hipError_t;
typedef ZgDim3 dim3;
typedef void *hipStream_t;
typedef struct ZgEvent *hipEvent_t;

/* cudart.c */
hipError_t cudaMalloc(void **p, size_t n), cudaFree(void *p),
    cudaMemcpy(void *dst, const void *src, size_t n, int kind),
    cudaMemset(void *p, int v, size_t n), cudaDeviceSynchronize(void),
    cudaDeviceReset(void), cudaGetDeviceCount(int *n), cudaGetDevice(int *d),
    cudaSetDevice(int d), cudaStreamCreate(hipStream_t *s),
    cudaStreamDestroy(hipStream_t s), cudaStreamSynchronize(hipStream_t s),
    cudaStreamQuery(hipStream_t s), cudaEventCreate(hipEvent_t *e),
    cudaEventRecord(hipEvent_t e, hipStream_t s),
    cudaEventSynchronize(hipEvent_t e),
    cudaEventElapsedTime(float *ms, hipEvent_t a, hipEvent_t b),
    cudaEventDestroy(hipEvent_t e), cudaGetLastError(void),
    cudaPeekAtLastError(void),
    cudaMemcpyToSymbol(const void *sym, const void *src, size_t count,
                       size_t offset, int kind),
    cudaMemcpyFromSymbol(void *dst, const void *sym, size_t count,
                         size_t offset, int kind),
    cudaGetSymbolAddress(void **p, const void *sym),
    cudaGetSymbolSize(size_t *n, const void *sym),
    cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args,
                     size_t shared, hipStream_t stream),
    cudaFuncSetAttribute(const void *func, int attr, int value);
const char *cudaGetErrorString(hipError_t e), *cudaGetErrorName(hipError_t e);
void **__cudaRegisterFatBinary(void *fatbin);
void __cudaRegisterFatBinaryEnd(void **h), __cudaUnregisterFatBinary(void **h);
int __cudaRegisterFunction(void **h, const void *stub, char *device_fun,
                           const char *device_name, int thread_limit, void *tid,
                           void *bid, void *bdim, void *gdim, int *wsize);
void __cudaRegisterVar(void **h, char *shadow, char *device_addr,
                       const char *device_name, int ext, size_t size,
                       int constant, int global);
unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared,
                                     void *stream);
int __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shared,
                               void **stream);

/* --- Registration and launches (what clang's -x hip emits) ------------ */

void **__hipRegisterFatBinary(void *fatbin) {
  return __cudaRegisterFatBinary(fatbin);
}
void __hipUnregisterFatBinary(void **h) { __cudaUnregisterFatBinary(h); }
int __hipRegisterFunction(void **h, const void *stub, char *device_fun,
                          const char *device_name, int thread_limit, void *tid,
                          void *bid, void *bdim, void *gdim, int *wsize) {
  return __cudaRegisterFunction(h, stub, device_fun, device_name, thread_limit,
                                tid, bid, bdim, gdim, wsize);
}
void __hipRegisterVar(void **h, char *shadow, char *device_addr,
                      const char *device_name, int ext, size_t size,
                      int constant, int global) {
  __cudaRegisterVar(h, shadow, device_addr, device_name, ext, size, constant,
                    global);
}
unsigned __hipPushCallConfiguration(dim3 grid, dim3 block, size_t shared,
                                    hipStream_t stream) {
  return __cudaPushCallConfiguration(grid, block, shared, stream);
}
int __hipPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shared,
                              hipStream_t *stream) {
  return __cudaPopCallConfiguration(grid, block, shared, stream);
}
hipError_t hipLaunchKernel(const void *func, dim3 grid, dim3 block,
                           void **args, size_t shared, hipStream_t stream) {
  return cudaLaunchKernel(func, grid, block, args, shared, stream);
}
hipError_t hipFuncSetAttribute(const void *func, int attr, int value) {
  return cudaFuncSetAttribute(func, attr, value);
}

/* --- Memory ------------------------------------------------------------ */

hipError_t hipMalloc(void **p, size_t n) { return cudaMalloc(p, n); }
hipError_t hipMallocManaged(void **p, size_t n, unsigned flags) {
  return cudaMalloc(p, n);
}
hipError_t hipHostMalloc(void **p, size_t n, unsigned flags) {
  return cudaMalloc(p, n);
}
hipError_t hipMallocHost(void **p, size_t n) { return cudaMalloc(p, n); }
hipError_t hipExtMallocWithFlags(void **p, size_t n, unsigned flags) {
  return cudaMalloc(p, n);
}
hipError_t hipFree(void *p) { return cudaFree(p); }
hipError_t hipHostFree(void *p) { return cudaFree(p); }
hipError_t hipFreeHost(void *p) { return cudaFree(p); }
hipError_t hipMemcpy(void *dst, const void *src, size_t n, int kind) {
  return cudaMemcpy(dst, src, n, kind);
}
hipError_t hipMemcpyAsync(void *dst, const void *src, size_t n, int kind,
                          hipStream_t s) {
  return cudaMemcpy(dst, src, n, kind);
}
hipError_t hipMemcpyHtoD(void *dst, void *src, size_t n) {
  return cudaMemcpy(dst, src, n, 1);
}
hipError_t hipMemcpyDtoH(void *dst, void *src, size_t n) {
  return cudaMemcpy(dst, src, n, 2);
}
hipError_t hipMemcpyDtoD(void *dst, void *src, size_t n) {
  return cudaMemcpy(dst, src, n, 3);
}
hipError_t hipMemset(void *p, int v, size_t n) { return cudaMemset(p, v, n); }
hipError_t hipMemsetAsync(void *p, int v, size_t n, hipStream_t s) {
  return cudaMemset(p, v, n);
}
hipError_t hipMemcpyToSymbol(const void *sym, const void *src, size_t count,
                             size_t offset, int kind) {
  return cudaMemcpyToSymbol(sym, src, count, offset, kind);
}
hipError_t hipMemcpyFromSymbol(void *dst, const void *sym, size_t count,
                               size_t offset, int kind) {
  return cudaMemcpyFromSymbol(dst, sym, count, offset, kind);
}
hipError_t hipMemcpyToSymbolAsync(const void *sym, const void *src,
                                  size_t count, size_t offset, int kind,
                                  hipStream_t s) {
  return cudaMemcpyToSymbol(sym, src, count, offset, kind);
}
hipError_t hipMemcpyFromSymbolAsync(void *dst, const void *sym, size_t count,
                                    size_t offset, int kind, hipStream_t s) {
  return cudaMemcpyFromSymbol(dst, sym, count, offset, kind);
}
hipError_t hipGetSymbolAddress(void **p, const void *sym) {
  return cudaGetSymbolAddress(p, sym);
}
hipError_t hipGetSymbolSize(size_t *n, const void *sym) {
  return cudaGetSymbolSize(n, sym);
}

/* --- Devices, streams, events, errors ---------------------------------- */

hipError_t hipDeviceSynchronize(void) { return cudaDeviceSynchronize(); }
hipError_t hipDeviceReset(void) { return cudaDeviceReset(); }
hipError_t hipGetDeviceCount(int *n) { return cudaGetDeviceCount(n); }
hipError_t hipGetDevice(int *d) { return cudaGetDevice(d); }
hipError_t hipSetDevice(int d) { return cudaSetDevice(d); }
hipError_t hipStreamCreate(hipStream_t *s) { return cudaStreamCreate(s); }
hipError_t hipStreamCreateWithFlags(hipStream_t *s, unsigned flags) {
  return cudaStreamCreate(s);
}
hipError_t hipStreamDestroy(hipStream_t s) { return cudaStreamDestroy(s); }
hipError_t hipStreamSynchronize(hipStream_t s) {
  return cudaStreamSynchronize(s);
}
hipError_t hipStreamQuery(hipStream_t s) { return cudaStreamQuery(s); }
hipError_t hipEventCreate(hipEvent_t *e) { return cudaEventCreate(e); }
hipError_t hipEventCreateWithFlags(hipEvent_t *e, unsigned flags) {
  return cudaEventCreate(e);
}
hipError_t hipEventRecord(hipEvent_t e, hipStream_t s) {
  return cudaEventRecord(e, s);
}
hipError_t hipEventSynchronize(hipEvent_t e) { return cudaEventSynchronize(e); }
hipError_t hipEventElapsedTime(float *ms, hipEvent_t a, hipEvent_t b) {
  return cudaEventElapsedTime(ms, a, b);
}
hipError_t hipEventDestroy(hipEvent_t e) { return cudaEventDestroy(e); }
hipError_t hipGetLastError(void) { return cudaGetLastError(); }
hipError_t hipPeekAtLastError(void) { return cudaPeekAtLastError(); }
const char *hipGetErrorString(hipError_t e) { return cudaGetErrorString(e); }
const char *hipGetErrorName(hipError_t e) {
  switch (e) {
  case 0:
    return "hipSuccess";
  case 2:
    return "hipErrorOutOfMemory";
  case 400:
    return "hipErrorInvalidHandle";
  default: { /* "cudaErrorX" -> "hipErrorX" */
    static __thread char name[64];
    snprintf(name, sizeof name, "hip%s", cudaGetErrorName(e) + 4);
    return name;
  }
  }
}
