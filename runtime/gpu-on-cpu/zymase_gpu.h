/* zymase_gpu.h - the GPU-on-CPU runtime: what kernels retargeted by the
 * pass zymase-gpu-to-host (lib/gpu) call, and what the launch machinery
 * shares between the runtime's files.  Linked into user programs; it never
 * includes plugin headers.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZYMASE_GPU_H
#define ZYMASE_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --- Called by retargeted device code (one row of lib/gpu/intrinsics.def
 * each, with the intrinsic's signature). ------------------------------- */
unsigned __zy_gpu_tid_x(void), __zy_gpu_tid_y(void), __zy_gpu_tid_z(void);
unsigned __zy_gpu_ntid_x(void), __zy_gpu_ntid_y(void), __zy_gpu_ntid_z(void);
unsigned __zy_gpu_ctaid_x(void), __zy_gpu_ctaid_y(void), __zy_gpu_ctaid_z(void);
unsigned __zy_gpu_nctaid_x(void), __zy_gpu_nctaid_y(void),
    __zy_gpu_nctaid_z(void);
unsigned __zy_gpu_warpsize(void), __zy_gpu_laneid(void);
unsigned __zy_gpu_lanemask_eq(void), __zy_gpu_lanemask_lt(void),
    __zy_gpu_lanemask_le(void), __zy_gpu_lanemask_gt(void),
    __zy_gpu_lanemask_ge(void);
unsigned __zy_gpu_clock(void);
uint64_t __zy_gpu_clock64(void);
/* __syncthreads (all threads of the block, at the same barrier). */
void __zy_gpu_barrier(void);
void __zy_gpu_barrier_n(unsigned id);
/* __syncthreads_count / _and / _or. */
int __zy_gpu_barrier_popc(int pred), __zy_gpu_barrier_and(int pred),
    __zy_gpu_barrier_or(int pred);
unsigned __zy_gpu_barrier_red_popc(unsigned id, bool pred);
bool __zy_gpu_barrier_red_and(unsigned id, bool pred),
    __zy_gpu_barrier_red_or(unsigned id, bool pred);
/* Warps: the lanes named by `mask` meet. */
void __zy_gpu_syncwarp(unsigned mask);
int __zy_gpu_shfl_idx_i32(unsigned mask, int v, int b, int c),
    __zy_gpu_shfl_up_i32(unsigned mask, int v, int b, int c),
    __zy_gpu_shfl_down_i32(unsigned mask, int v, int b, int c),
    __zy_gpu_shfl_bfly_i32(unsigned mask, int v, int b, int c);
float __zy_gpu_shfl_idx_f32(unsigned mask, float v, int b, int c),
    __zy_gpu_shfl_up_f32(unsigned mask, float v, int b, int c),
    __zy_gpu_shfl_down_f32(unsigned mask, float v, int b, int c),
    __zy_gpu_shfl_bfly_f32(unsigned mask, float v, int b, int c);
bool __zy_gpu_vote_all(unsigned mask, bool p),
    __zy_gpu_vote_any(unsigned mask, bool p),
    __zy_gpu_vote_uni(unsigned mask, bool p);
unsigned __zy_gpu_vote_ballot(unsigned mask, bool p);
unsigned __zy_gpu_activemask(void);
void __zy_gpu_fence(void);
/* The block's shared arena at byte `offset` (static variables first, then
 * the launch's dynamic shared memory, which offset ~0 names). */
void *__zy_gpu_shared(uint64_t offset);
/* The launch's bytes of dynamic shared memory (%dynamic_smem_size). */
unsigned __zy_gpu_dynamic_smem_size(void);
/* amdgcn's dispatch packet and implicit arguments (ZgDispatch). */
void *__zy_gpu_amd_dispatch_ptr(void), *__zy_gpu_amd_implicitarg_ptr(void);
/* PTX exit (the thread ends as if its kernel returned) and nanosleep
 * (a yield). */
_Noreturn void __zy_gpu_exit(void);
void __zy_gpu_nanosleep(unsigned ns);
/* 128-bit loads and stores with a memory order (PTX ld/st.relaxed.v2.u64,
 * CUB's tile states): atomic with respect to each other; `acq_rel` makes a
 * load acquire, a store release. */
void __zy_gpu_ld128(const void *p, uint64_t out[2], int acq_rel);
void __zy_gpu_st128(void *p, const uint64_t in[2], int acq_rel);
/* The device heap (malloc and free in device code): the host's, within
 * cudaLimitMallocHeapSize (8 MiB unless cudaDeviceSetLimit says more); a
 * full heap returns NULL, as on a GPU. */
void *__zy_gpu_malloc(uint64_t size);
void __zy_gpu_free(void *p);
/* Device printf (CUDA's argument buffer) and assert. */
int __zy_gpu_vprintf(const char *fmt, const void *args);
void __zy_gpu_assertfail(const char *msg, const char *file, unsigned line,
                         const char *func, size_t charsize);

/* The counter that code built with -mllvm -zymase-gpu-count-atomics
 * increments (relaxed) before each atomic read-modify-write and
 * compare-exchange of device code. */
extern uint64_t __zy_gpu_atomics;

/* --- Called by user programs (host code). ----------------------------- */
/* The atomic read-modify-writes and compare-exchanges device code has
 * executed so far (all kernels, all threads), counted in the translation
 * units built with -mllvm -zymase-gpu-count-atomics (0 in the others). */
unsigned long long zymase_gpu_atomics(void);
/* The device-heap allocations (malloc in device code, loop caches of
 * gradients among them) that have succeeded so far, and their bytes: all
 * kernels, all threads, every translation unit (counted always). */
unsigned long long zymase_gpu_heap_allocs(void);
unsigned long long zymase_gpu_heap_bytes(void);

/* --- Called by the constructor of each retargeted module. ------------- */
/* Kernel `name` (mangled, as the host side registers it) of translation
 * unit `unit` (the string its host side embeds as its fat binary):
 * `entry(args)` runs one GPU thread, args[i] pointing to the i-th
 * argument; the unit's __shared__ variables take `static_shared` bytes;
 * `flags`: ZG_KERNEL_SYNC unless the kernel calls no barrier or warp
 * operation, ZG_KERNEL_WAVE64 for warps of 64 lanes (HIP). */
void __zy_gpu_register_kernel(const char *unit, const char *name,
                              void (*entry)(void **), uint64_t static_shared,
                              uint64_t flags);
enum { ZG_KERNEL_SYNC = 1, ZG_KERNEL_WAVE64 = 2 };
/* Device variable (__device__, __constant__) `name` of `unit` at `addr`. */
void __zy_gpu_register_var(const char *unit, const char *name, void *addr,
                           uint64_t size);

/* --- Inside the runtime. ---------------------------------------------- */
typedef struct ZgDim3 {
  unsigned x, y, z;
} ZgDim3;

typedef struct ZgKernel {
  const char *unit;    /* translation unit                        */
  const char *name;    /* mangled, as registered                  */
  const char *display; /* demangled when the C++ runtime can, for messages */
  void (*entry)(void **);
  uint64_t static_shared;
  uint64_t max_dynamic_shared; /* cudaFuncSetAttribute */
  int synchronizes;            /* calls barriers or warp operations */
  int wave64;                  /* warps of 64 lanes (HIP) */
} ZgKernel;

/* What amdgcn code reads through llvm.amdgcn.dispatch.ptr (the HSA kernel
 * dispatch packet) and llvm.amdgcn.implicitarg.ptr (the hidden arguments
 * of code object v5: hidden_dynamic_lds_size at byte 120), filled for each
 * launch. */
typedef struct ZgDispatch {
  struct {
    uint16_t header, setup, workgroup_size[3], reserved0;
    uint32_t grid_size[3], private_segment_size, group_segment_size;
    uint64_t kernel_object;
    void *kernarg_address;
    uint64_t reserved2, completion_signal;
  } packet;
  struct {
    uint32_t block_count[3];
    uint16_t group_size[3], remainder[3];
    char reserved[96];
    uint32_t dynamic_lds_size;
    char rest[132];
  } implicit;
} ZgDispatch;

/* Limits of the emulated device. */
enum {
  ZG_MAX_BLOCK = 1024,
  ZG_WARP = 32,     /* CUDA */
  ZG_WARP_MAX = 64, /* HIP  */
  ZG_SHARED_DEFAULT = 48 * 1024,
  ZG_SHARED_OPTIN = 227 * 1024
};

/* The device heap's limit in bytes (cudaLimitMallocHeapSize), and the
 * bytes allocated in it now. */
uint64_t zg_heap_limit(void);
void zg_set_heap_limit(uint64_t bytes);
uint64_t zg_heap_used(void);
/* Counts one device-heap allocation of `size` bytes (CUDA's malloc and
 * HIP's __ockl_dm_alloc). */
void zg_heap_count(uint64_t size);

/* The emulated device, for cudaGetDeviceProperties and
 * cudaDeviceGetAttribute (zymase_cuda_api.h): what the launches honour,
 * and the host's memory. */
typedef struct ZgDeviceInfo {
  int sms;                       /* blocks run at once: the cores   */
  int max_threads_per_block;     /* ZG_MAX_BLOCK                    */
  int max_block[3], max_grid[3]; /* dimensions                      */
  int warp;                      /* ZG_WARP                         */
  uint64_t shared_per_block, shared_optin, const_mem;
  uint64_t total_mem; /* the host's physical memory      */
  int major, minor;   /* sm_70                           */
} ZgDeviceInfo;
void __zy_gpu_device_info(ZgDeviceInfo *d);
/* Kernel attributes (cudaFuncGetAttributes) of the kernel whose host stub
 * is `stub`: 0, or -1 when it is none. */
int __zy_gpu_func_info(const void *stub, uint64_t *static_shared,
                       uint64_t *max_dynamic_shared);

/* The kernel registered as `name` by `unit` (any unit when NULL), or
 * NULL. */
ZgKernel *zg_kernel_named(const char *unit, const char *name);
/* Runs the grid to completion.  Returns 0, or a CUDA error code after
 * printing why (a launch that breaks the GPU's rules). */
int zg_launch(ZgKernel *k, ZgDim3 grid, ZgDim3 block, size_t dyn_shared,
              void **args);
/* Prints "zymase-gpu: <what>" and ends the program (status 70): an error
 * inside a kernel that the GPU would not survive either. */
_Noreturn void zg_fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* The kernel the calling thread runs, or NULL outside kernels. */
const char *zg_current_kernel(void);
/* Device printf to `f`: `argbuf` packs the arguments as CUDA's vprintf
 * takes them. */
int zg_vfprintf(FILE *f, const char *fmt, const void *argbuf);
/* The calling thread's lane in its warp. */
int zg_lane(void);
/* A HIP warp operation (amdgcn has no lane masks: every lane of the warp
 * that has not returned takes part): the lanes exchange `v`; `out[l]` is
 * lane l's value, and the result the lanes that took part. */
uint64_t zg_warp_exchange(const char *what, uint32_t v,
                          uint32_t out[ZG_WARP_MAX]);

#ifdef __cplusplus
}
#endif

#endif
