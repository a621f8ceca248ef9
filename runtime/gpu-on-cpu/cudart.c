/* cudart.c - the CUDA runtime API on the host: memory (plain host memory),
 * registration of kernels and device variables, launches, streams and
 * events (everything runs in order, synchronously), the device and its
 * limits, errors.  What needs CUDA's own structures (cudaDeviceProp, ...)
 * is in zymase_cuda_api.h, compiled with the program's CUDA headers.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#define _GNU_SOURCE
#include "zymase_gpu.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* CUDA's values (driver_types.h); the runtime builds without CUDA. */
enum {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidSymbol = 13,
  cudaErrorInvalidDeviceFunction = 98,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
};
typedef int cudaError_t;
typedef ZgDim3 dim3;
typedef void *cudaStream_t;
typedef struct ZgEvent *cudaEvent_t;

static __thread cudaError_t last_error;

static cudaError_t ret(cudaError_t e) {
  if (e)
    last_error = e;
  return e;
}

/* --- Registration ------------------------------------------------------ */

typedef struct Name {
  const void *key; /* host stub or host shadow variable */
  const char *unit, *name;
} Name;
typedef struct Var {
  const char *unit, *name;
  void *addr;
  uint64_t size;
} Var;

static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static ZgKernel *kernels;
static Var *vars;
static Name *funcs, *hvars;
static size_t nkernels, nvars, nfuncs, nhvars;

static void *grow(void *p, size_t n, size_t size) {
  if (n & (n - 1))
    return p;
  p = realloc(p, (n ? 2 * n : 1) * size);
  if (!p)
    zg_fatal("out of memory registering kernels");
  return p;
}

/* libstdc++'s demangler, when the program links it (CUDA programs are C++). */
extern char *__cxa_demangle(const char *name, char *buf, size_t *n, int *status)
    __attribute__((weak));

/* The same unit: an empty or missing identity matches any. */
static int same_unit(const char *a, const char *b) {
  return !a || !b || !*a || !*b || !strcmp(a, b);
}

void __zy_gpu_register_kernel(const char *unit, const char *name,
                              void (*entry)(void **), uint64_t static_shared,
                              uint64_t flags) {
  int status = -1;
  char *display =
      __cxa_demangle ? __cxa_demangle(name, NULL, NULL, &status) : NULL;
  pthread_mutex_lock(&reg_mu);
  kernels = grow(kernels, nkernels, sizeof *kernels);
  kernels[nkernels++] = (ZgKernel){unit,
                                   name,
                                   display && !status ? display : name,
                                   entry,
                                   static_shared,
                                   0,
                                   (flags & ZG_KERNEL_SYNC) != 0,
                                   (flags & ZG_KERNEL_WAVE64) != 0};
  pthread_mutex_unlock(&reg_mu);
}

void __zy_gpu_register_var(const char *unit, const char *name, void *addr,
                           uint64_t size) {
  pthread_mutex_lock(&reg_mu);
  vars = grow(vars, nvars, sizeof *vars);
  vars[nvars++] = (Var){unit, name, addr, size};
  pthread_mutex_unlock(&reg_mu);
}

ZgKernel *zg_kernel_named(const char *unit, const char *name) {
  ZgKernel *k = NULL;
  pthread_mutex_lock(&reg_mu);
  for (size_t i = 0; i < nkernels && !k; i++)
    if (!strcmp(kernels[i].name, name) && same_unit(kernels[i].unit, unit))
      k = &kernels[i];
  pthread_mutex_unlock(&reg_mu);
  return k;
}

static const Name *name_of(Name *tab, size_t n, const void *key) {
  const Name *s = NULL;
  pthread_mutex_lock(&reg_mu);
  for (size_t i = 0; i < n && !s; i++)
    if (tab[i].key == key)
      s = &tab[i];
  pthread_mutex_unlock(&reg_mu);
  return s;
}

static ZgKernel *kernel_of(const void *stub) {
  const Name *n = name_of(funcs, nfuncs, stub);
  const char *name = n ? n->name : NULL;
  ZgKernel *k = name ? zg_kernel_named(n->unit, name) : NULL;
  if (name && !k)
    fprintf(stderr,
            "zymase-gpu: kernel '%s' has no CPU version (was its file "
            "compiled with zymase-clang --gpu-on-cpu?)\n",
            name);
  return k;
}

static Var *var_of(const void *shadow) {
  const Name *n = name_of(hvars, nhvars, shadow);
  Var *v = NULL;
  pthread_mutex_lock(&reg_mu);
  for (size_t i = 0; n && i < nvars && !v; i++)
    if (!strcmp(vars[i].name, n->name) && same_unit(vars[i].unit, n->unit))
      v = &vars[i];
  pthread_mutex_unlock(&reg_mu);
  return v;
}

/* The handle of a translation unit's registrations holds its identity,
 * the string zymase-clang --gpu-on-cpu embeds as its fat binary (clang's
 * wrapper: magic, version, data, unused). */
typedef struct FatbinWrapper {
  int magic, version;
  const char *data;
  void *unused;
} FatbinWrapper;

void **__cudaRegisterFatBinary(void *fatbin) {
  const FatbinWrapper *w = fatbin;
  const char **handle = malloc(sizeof *handle);
  if (!handle)
    zg_fatal("out of memory registering kernels");
  *handle =
      w && w->data && !strncmp(w->data, "zymase-gpu:", 11) ? w->data : NULL;
  return (void **)handle;
}
void __cudaRegisterFatBinaryEnd(void **h) {}
void __cudaUnregisterFatBinary(void **h) {}

int __cudaRegisterFunction(void **h, const void *stub, char *device_fun,
                           const char *device_name, int thread_limit, void *tid,
                           void *bid, void *bdim, void *gdim, int *wsize) {
  pthread_mutex_lock(&reg_mu);
  funcs = grow(funcs, nfuncs, sizeof *funcs);
  funcs[nfuncs++] = (Name){stub, h ? *(const char **)h : NULL, device_name};
  pthread_mutex_unlock(&reg_mu);
  return 0;
}

void __cudaRegisterVar(void **h, char *shadow, char *device_addr,
                       const char *device_name, int ext, size_t size,
                       int constant, int global) {
  pthread_mutex_lock(&reg_mu);
  hvars = grow(hvars, nhvars, sizeof *hvars);
  hvars[nhvars++] = (Name){shadow, h ? *(const char **)h : NULL, device_name};
  pthread_mutex_unlock(&reg_mu);
}

/* --- Launches ---------------------------------------------------------- */

typedef struct Config {
  dim3 grid, block;
  size_t shared;
  void *stream;
} Config;
static __thread Config configs[16];
static __thread unsigned nconfigs;

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared,
                                     void *stream) {
  if (nconfigs == 16)
    zg_fatal("kernel launches nested too deeply");
  configs[nconfigs++] = (Config){grid, block, shared, stream};
  return 0;
}

int __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shared,
                               void **stream) {
  if (!nconfigs)
    return cudaErrorInvalidConfiguration;
  Config c = configs[--nconfigs];
  *grid = c.grid;
  *block = c.block;
  *shared = c.shared;
  *stream = c.stream;
  return 0;
}

cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block,
                             void **args, size_t shared, cudaStream_t stream) {
  ZgKernel *k = kernel_of(func);
  if (!k)
    return ret(cudaErrorInvalidDeviceFunction);
  return ret(zg_launch(k, grid, block, shared, args));
}

int __zy_gpu_func_info(const void *stub, uint64_t *static_shared,
                       uint64_t *max_dynamic_shared) {
  ZgKernel *k = kernel_of(stub);
  if (!k)
    return -1;
  *static_shared = k->static_shared;
  *max_dynamic_shared = k->max_dynamic_shared;
  return 0;
}

/* Blocks of `block` threads resident at once per multiprocessor: 2048
 * threads and 32 blocks per multiprocessor, 228 KiB of shared memory (an
 * sm_70-like device; each emulated multiprocessor is a core). */
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *n, const void *func, int block, size_t dyn, unsigned flags) {
  ZgKernel *k = kernel_of(func);
  if (!n)
    return ret(cudaErrorInvalidValue);
  if (!k)
    return ret(cudaErrorInvalidDeviceFunction);
  if (block <= 0 || block > ZG_MAX_BLOCK) {
    *n = 0;
    return cudaSuccess;
  }
  int by_threads = 2048 / block, by_shared = 32;
  uint64_t shared = k->static_shared + dyn;
  if (shared)
    by_shared = (int)((uint64_t)ZG_SHARED_OPTIN / shared);
  *n = by_threads < by_shared ? by_threads : by_shared;
  if (*n > 32)
    *n = 32;
  return cudaSuccess;
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n,
                                                          const void *func,
                                                          int block,
                                                          size_t dyn) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(n, func, block,
                                                                dyn, 0);
}

cudaError_t cudaFuncSetAttribute(const void *func, int attr, int value) {
  ZgKernel *k = kernel_of(func);
  if (!k)
    return ret(cudaErrorInvalidDeviceFunction);
  if (attr == 8) /* cudaFuncAttributeMaxDynamicSharedMemorySize */
    k->max_dynamic_shared = (uint64_t)value;
  return cudaSuccess;
}

/* --- Memory ------------------------------------------------------------ */

/* The exact size (aligned like CUDA's 256 bytes), so that AddressSanitizer
 * sees an access past the end. */
cudaError_t cudaMalloc(void **p, size_t n) {
  if (!p)
    return ret(cudaErrorInvalidValue);
  *p = NULL;
  if (n && posix_memalign(p, 256, n))
    return ret(cudaErrorMemoryAllocation);
  return cudaSuccess;
}
cudaError_t cudaMallocManaged(void **p, size_t n, unsigned flags) {
  return cudaMalloc(p, n);
}
cudaError_t cudaMallocHost(void **p, size_t n) { return cudaMalloc(p, n); }
cudaError_t cudaHostAlloc(void **p, size_t n, unsigned flags) {
  return cudaMalloc(p, n);
}
cudaError_t cudaFree(void *p) {
  free(p);
  return cudaSuccess;
}
cudaError_t cudaFreeHost(void *p) { return cudaFree(p); }

cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, int kind) {
  if (n && (!dst || !src))
    return ret(cudaErrorInvalidValue);
  memmove(dst, src, n);
  return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind,
                            cudaStream_t s) {
  return cudaMemcpy(dst, src, n, kind);
}
cudaError_t cudaMemset(void *p, int v, size_t n) {
  if (n && !p)
    return ret(cudaErrorInvalidValue);
  memset(p, v, n);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t s) {
  return cudaMemset(p, v, n);
}

static cudaError_t symbol(const void *sym, size_t count, size_t offset,
                          char **addr) {
  Var *v = var_of(sym);
  if (!v) {
    fprintf(stderr,
            "zymase-gpu: %p is not a registered __device__ or "
            "__constant__ variable\n",
            sym);
    return ret(cudaErrorInvalidSymbol);
  }
  if (offset > v->size || count > v->size - offset)
    return ret(cudaErrorInvalidValue);
  *addr = (char *)v->addr + offset;
  return cudaSuccess;
}
cudaError_t cudaMemcpyToSymbol(const void *sym, const void *src, size_t count,
                               size_t offset, int kind) {
  char *addr;
  cudaError_t e = symbol(sym, count, offset, &addr);
  if (!e)
    memcpy(addr, src, count);
  return e;
}
cudaError_t cudaMemcpyFromSymbol(void *dst, const void *sym, size_t count,
                                 size_t offset, int kind) {
  char *addr;
  cudaError_t e = symbol(sym, count, offset, &addr);
  if (!e)
    memcpy(dst, addr, count);
  return e;
}
cudaError_t cudaMemcpyToSymbolAsync(const void *sym, const void *src,
                                    size_t count, size_t offset, int kind,
                                    cudaStream_t s) {
  return cudaMemcpyToSymbol(sym, src, count, offset, kind);
}
cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *sym, size_t count,
                                      size_t offset, int kind, cudaStream_t s) {
  return cudaMemcpyFromSymbol(dst, sym, count, offset, kind);
}
cudaError_t cudaGetSymbolAddress(void **p, const void *sym) {
  char *addr;
  cudaError_t e = symbol(sym, 0, 0, &addr);
  if (!e)
    *p = addr;
  return e;
}
cudaError_t cudaGetSymbolSize(size_t *n, const void *sym) {
  Var *v = var_of(sym);
  if (!v)
    return ret(cudaErrorInvalidSymbol);
  *n = v->size;
  return cudaSuccess;
}

/* --- Devices, streams, events, errors ---------------------------------- */

cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
cudaError_t cudaThreadSynchronize(void) { return cudaSuccess; }
cudaError_t cudaDeviceReset(void) { return cudaSuccess; }
cudaError_t cudaThreadExit(void) { return cudaSuccess; }
void __zy_gpu_device_info(ZgDeviceInfo *d) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  const char *env = getenv("ZYMASE_GPU_BLOCKS");
  if (env && atol(env) > 0)
    cores = atol(env);
  *d = (ZgDeviceInfo){
      .sms = cores > 0 ? (int)cores : 1,
      .max_threads_per_block = ZG_MAX_BLOCK,
      .max_block = {ZG_MAX_BLOCK, ZG_MAX_BLOCK, 64},
      .max_grid = {0x7fffffff, 65535, 65535},
      .warp = ZG_WARP,
      .shared_per_block = ZG_SHARED_DEFAULT,
      .shared_optin = ZG_SHARED_OPTIN,
      .const_mem = 64 * 1024,
      .total_mem = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0,
      .major = 7,
      .minor = 0};
}

/* cudaLimit: stack size, printf FIFO, malloc heap (the only one the
 * emulation honours), and the others, kept as set. */
static uint64_t limits[8] = {1024, 1u << 20, 8u << 20, 2, 2048, 32, 0, 0};

cudaError_t cudaDeviceSetLimit(int limit, size_t value) {
  if (limit < 0 || limit >= 8)
    return ret(cudaErrorInvalidValue);
  limits[limit] = value;
  if (limit == 2) /* cudaLimitMallocHeapSize */
    zg_set_heap_limit(value);
  return cudaSuccess;
}
cudaError_t cudaDeviceGetLimit(size_t *value, int limit) {
  if (!value || limit < 0 || limit >= 8)
    return ret(cudaErrorInvalidValue);
  *value = limit == 2 ? zg_heap_limit() : limits[limit];
  return cudaSuccess;
}
cudaError_t cudaThreadSetLimit(int limit, size_t value) {
  return cudaDeviceSetLimit(limit, value);
}
cudaError_t cudaThreadGetLimit(size_t *value, int limit) {
  return cudaDeviceGetLimit(value, limit);
}

/* Device memory is the host's: its physical and available memory. */
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total) {
  long page = sysconf(_SC_PAGESIZE);
  long all = sysconf(_SC_PHYS_PAGES), avail = sysconf(_SC_AVPHYS_PAGES);
  if (!free_bytes || !total)
    return ret(cudaErrorInvalidValue);
  *total = all > 0 ? (size_t)all * (size_t)page : 0;
  *free_bytes = avail > 0 ? (size_t)avail * (size_t)page : 0;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceCount(int *n) {
  *n = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int *d) {
  *d = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int d) {
  return d == 0 ? cudaSuccess : ret(cudaErrorInvalidDevice);
}
cudaError_t cudaStreamCreate(cudaStream_t *s) {
  static char stream_tag;
  *s = &stream_tag;
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags) {
  return cudaStreamCreate(s);
}
cudaError_t cudaStreamDestroy(cudaStream_t s) { return cudaSuccess; }
cudaError_t cudaStreamSynchronize(cudaStream_t s) { return cudaSuccess; }
cudaError_t cudaStreamQuery(cudaStream_t s) { return cudaSuccess; }

/* An event: when it was recorded (wall-clock; everything before it has
 * run by then), and whether it was, and takes times (not with
 * cudaEventDisableTiming). */
struct ZgEvent {
  double ms;
  int recorded, timing;
};
static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags) {
  if (!e)
    return ret(cudaErrorInvalidValue);
  *e = calloc(1, sizeof **e);
  if (!*e)
    return ret(cudaErrorMemoryAllocation);
  (*e)->timing = !(flags & 2); /* cudaEventDisableTiming */
  return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t *e) {
  return cudaEventCreateWithFlags(e, 0);
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
  if (!e)
    return ret(cudaErrorInvalidResourceHandle);
  e->ms = now_ms();
  e->recorded = 1;
  return cudaSuccess;
}
cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s,
                                     unsigned flags) {
  return cudaEventRecord(e, s);
}
/* Everything runs in order: a recorded event has always completed. */
cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  return e ? cudaSuccess : ret(cudaErrorInvalidResourceHandle);
}
cudaError_t cudaEventQuery(cudaEvent_t e) {
  return e ? cudaSuccess : ret(cudaErrorInvalidResourceHandle);
}
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags) {
  return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
  if (!ms)
    return ret(cudaErrorInvalidValue);
  if (!a || !b || !a->timing || !b->timing || !a->recorded || !b->recorded)
    return ret(cudaErrorInvalidResourceHandle);
  *ms = (float)(b->ms - a->ms);
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  free(e);
  return cudaSuccess;
}

cudaError_t cudaGetLastError(void) {
  cudaError_t e = last_error;
  last_error = cudaSuccess;
  return e;
}
cudaError_t cudaPeekAtLastError(void) { return last_error; }

const char *cudaGetErrorName(cudaError_t e) {
  switch (e) {
  case cudaSuccess:
    return "cudaSuccess";
  case cudaErrorInvalidValue:
    return "cudaErrorInvalidValue";
  case cudaErrorMemoryAllocation:
    return "cudaErrorMemoryAllocation";
  case cudaErrorInvalidConfiguration:
    return "cudaErrorInvalidConfiguration";
  case cudaErrorInvalidSymbol:
    return "cudaErrorInvalidSymbol";
  case cudaErrorInvalidDeviceFunction:
    return "cudaErrorInvalidDeviceFunction";
  case cudaErrorInvalidDevice:
    return "cudaErrorInvalidDevice";
  case cudaErrorInvalidResourceHandle:
    return "cudaErrorInvalidResourceHandle";
  default:
    return "cudaErrorUnknown";
  }
}
const char *cudaGetErrorString(cudaError_t e) {
  switch (e) {
  case cudaSuccess:
    return "no error";
  case cudaErrorInvalidValue:
    return "invalid argument";
  case cudaErrorMemoryAllocation:
    return "out of memory";
  case cudaErrorInvalidConfiguration:
    return "invalid configuration argument";
  case cudaErrorInvalidSymbol:
    return "invalid device symbol";
  case cudaErrorInvalidDeviceFunction:
    return "invalid device function";
  case cudaErrorInvalidDevice:
    return "invalid device ordinal";
  case cudaErrorInvalidResourceHandle:
    return "invalid resource handle";
  default:
    return "unknown error";
  }
}
