/* gpu_buffers.c - the loop caches of device gradients (nvptx, amdgcn):
 * which kind of buffer a cache gets (a fixed-size one in each thread's
 * local memory; else one that starts in local memory and moves to device
 * malloc only when the loop runs longer), and the device heap calls,
 * which have no realloc (CUDA has none).
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "cache.h"

#include "ir/irutil.h"

#include <llvm-c/Target.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int zy_gpu_device_kind(LLVMModuleRef m) {
  const char *t = LLVMGetTarget(m);
  if (t && !strncmp(t, "nvptx", 5))
    return ZY_GPU_NVPTX;
  if (t && !strncmp(t, "amdgcn", 6))
    return ZY_GPU_AMDGCN;
  return 0;
}

int zy_gpu_local_buffer(ZyGen *g, unsigned long long bytes) {
  if (g->split || !bytes || bytes > zy_opt_gpu_local_cache_bytes() ||
      g->gpu_local_bytes > zy_opt_gpu_local_cache_bytes() - bytes)
    return 0;
  g->gpu_local_bytes += bytes;
  return 1;
}

int zy_gpu_heap_check(ZyGen *g, ZyLoop *l) {
  if (!zy_gpu_device_kind(g->zm->mod) || !zy_opt_gpu_no_device_malloc() ||
      l->heap_refused)
    return 0;
  l->heap_refused = 1;
  return zy_error(
      ZY_ERR_UNSUPPORTED, g->user, zy_block_located(l->header),
      "bound the loop's trip count by a constant (k < 8), or raise "
      "-zymase-gpu-local-cache-bytes, or drop -zymase-gpu-no-device-malloc",
      "the values this loop keeps for the reverse sweep have no "
      "compile-time bound within -zymase-gpu-local-cache-bytes=%u per "
      "thread, and device malloc is turned off",
      zy_opt_gpu_local_cache_bytes());
}

/* On nvptx, device printf of the bytes the thread asked for, before the
 * assert's message: what the heap must hold per thread resident at once. */
static void print_bytes(LLVMModuleRef m, LLVMBuilderRef b, LLVMValueRef size,
                        LLVMValueRef buf) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMBuildStore(b, size, buf);
  LLVMTypeRef pty = LLVMFunctionType(LLVMInt32TypeInContext(c),
                                     (LLVMTypeRef[]){ptr, ptr}, 2, 0);
  LLVMValueRef args[2] = {
      LLVMBuildGlobalStringPtr(b,
                               "zymase: a thread of a gradient asked the "
                               "device heap for %llu bytes and got none\n",
                               "zymase.gpu.heap.bytes"),
      buf};
  LLVMBuildCall2(b, pty, zy_runtime_fn(m, "vprintf", pty), args, 2, "");
}

/* ptr zymase.gpu.cache.alloc(i64 bytes, ptr message): device malloc
 * (ockl's dm_alloc on amdgcn) that traps when the heap is full, on nvptx
 * after printing the bytes asked for and CUDA's assert `message`. */
static LLVMValueRef alloc_fn(ZyGen *g) {
  LLVMModuleRef m = g->zm->mod;
  LLVMContextRef c = g->zm->ctx;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c),
              ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef fty = LLVMFunctionType(ptr, (LLVMTypeRef[]){i64, ptr}, 2, 0);
  LLVMValueRef fn = LLVMGetNamedFunction(m, "zymase.gpu.cache.alloc");
  if (fn)
    return fn;
  fn = LLVMAddFunction(m, "zymase.gpu.cache.alloc", fty);
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c, fn, "");
  LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(c, fn, "full");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(c, fn, "ok");
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef size = LLVMGetParam(fn, 0), p;
  int amd = zy_gpu_device_kind(m) == ZY_GPU_AMDGCN;
  LLVMValueRef buf = amd ? NULL : LLVMBuildAlloca(b, i64, "");
  if (amd) {
    LLVMTypeRef aty = LLVMFunctionType(i64, &i64, 1, 0);
    p = LLVMBuildIntToPtr(
        b,
        LLVMBuildCall2(b, aty, zy_runtime_fn(m, "__ockl_dm_alloc", aty), &size,
                       1, ""),
        ptr, "");
  } else {
    LLVMTypeRef mty = LLVMFunctionType(ptr, &i64, 1, 0);
    p = LLVMBuildCall2(b, mty, zy_runtime_fn(m, "malloc", mty), &size, 1, "");
  }
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, p, ""), fail, ok);
  LLVMPositionBuilderAtEnd(b, fail);
  if (!amd) { /* CUDA's assert: the message, the thread and the kernel */
    print_bytes(m, b, size, buf);
    LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
    LLVMTypeRef aty =
        LLVMFunctionType(LLVMVoidTypeInContext(c),
                         (LLVMTypeRef[]){ptr, ptr, i32, ptr, i64}, 5, 0);
    LLVMValueRef args[5] = {
        LLVMGetParam(fn, 1),
        LLVMBuildGlobalStringPtr(b, "zymase", "zymase.gpu.heap.file"),
        LLVMConstInt(i32, 0, 0),
        LLVMBuildGlobalStringPtr(b, "zymase.gpu.cache.alloc",
                                 "zymase.gpu.heap.fn"),
        LLVMConstInt(i64, 1, 0)};
    LLVMBuildCall2(b, aty, zy_runtime_fn(m, "__assertfail", aty), args, 5, "");
  }
  LLVMTypeRef vty = LLVMFunctionType(LLVMVoidTypeInContext(c), NULL, 0, 0);
  LLVMBuildCall2(b, vty, zy_runtime_fn(m, "llvm.trap", vty), NULL, 0, "");
  LLVMBuildUnreachable(b);
  LLVMPositionBuilderAtEnd(b, ok);
  LLVMBuildRet(b, p);
  LLVMDisposeBuilder(b);
  return fn;
}

/* The module's constant C string `text`, named zymase.gpu.heap.msg*,
 * made once. */
static LLVMValueRef message_string(LLVMModuleRef m, LLVMBuilderRef b,
                                   const char *text) {
  for (LLVMValueRef gv = LLVMGetFirstGlobal(m); gv;
       gv = LLVMGetNextGlobal(gv)) {
    size_t n;
    const char *s = NULL;
    if (!strncmp(LLVMGetValueName(gv), "zymase.gpu.heap.msg", 19) &&
        LLVMGetInitializer(gv) &&
        LLVMIsAConstantDataSequential(LLVMGetInitializer(gv)))
      s = LLVMGetAsString(LLVMGetInitializer(gv), &n);
    if (s && n == strlen(text) + 1 && !memcmp(s, text, n))
      return gv;
  }
  return LLVMBuildGlobalStringPtr(b, text, "zymase.gpu.heap.msg");
}

LLVMValueRef zy_gpu_alloc(ZyGen *g, LLVMBuilderRef b, LLVMValueRef bytes,
                          const char *message, const char *name) {
  LLVMValueRef fn = alloc_fn(g);
  LLVMValueRef args[2] = {bytes, message_string(g->zm->mod, b, message)};
  return LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, 2, name);
}

/* void zymase.gpu.cache.free(ptr): ockl's dm_dealloc unless null. */
static LLVMValueRef free_fn(ZyGen *g) {
  LLVMModuleRef m = g->zm->mod;
  LLVMContextRef c = g->zm->ctx;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c),
              ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef vty = LLVMFunctionType(LLVMVoidTypeInContext(c), &ptr, 1, 0);
  LLVMValueRef fn = LLVMGetNamedFunction(m, "zymase.gpu.cache.free");
  if (fn)
    return fn;
  fn = LLVMAddFunction(m, "zymase.gpu.cache.free", vty);
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c, fn, "");
  LLVMBasicBlockRef del = LLVMAppendBasicBlockInContext(c, fn, "free");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, fn, "done");
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef p = LLVMGetParam(fn, 0);
  LLVMBuildCondBr(b, LLVMBuildIsNull(b, p, ""), done, del);
  LLVMPositionBuilderAtEnd(b, del);
  LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(c), &i64, 1, 0);
  LLVMValueRef a = LLVMBuildPtrToInt(b, p, i64, "");
  LLVMBuildCall2(b, fty, zy_runtime_fn(m, "__ockl_dm_dealloc", fty), &a, 1, "");
  LLVMBuildBr(b, done);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}

void zy_gpu_free(ZyGen *g, LLVMBuilderRef b, LLVMValueRef p) {
  if (zy_gpu_device_kind(g->zm->mod) != ZY_GPU_AMDGCN) {
    zy_call_free(b, "free", p); /* CUDA's free(NULL) does nothing */
    return;
  }
  LLVMValueRef fn = free_fn(g);
  LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, &p, 1, "");
}

void zy_gpu_free_unless(ZyGen *g, LLVMBuilderRef b, LLVMValueRef p,
                        LLVMValueRef local) {
  if (local)
    p = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, p, local, ""),
                        LLVMConstNull(LLVMTypeOf(p)), p, "");
  zy_gpu_free(g, b, p);
}

void zy_gpu_grow(ZyGen *g, LLVMValueRef slot, LLVMTypeRef t, LLVMValueRef n,
                 LLVMValueRef keep, LLVMValueRef local) {
  LLVMContextRef c = g->zm->ctx;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c),
              ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(g->zm->mod);
  LLVMValueRef size = LLVMConstInt(i64, LLVMABISizeOfType(td, t), 0);
  LLVMValueRef bytes = LLVMBuildNUWMul(g->b, n, size, "");
  LLVMValueRef p = zy_gpu_alloc(
      g, g->b, bytes,
      "zymase: device malloc for a loop cache of a gradient failed: the "
      "heap (cudaLimitMallocHeapSize) must hold the bytes printed above for "
      "each thread resident at once; raise it, or bound the loop's trip "
      "count",
      "zymase.gpu.buffer");
  LLVMValueRef old = LLVMBuildLoad2(g->b, ptr, slot, "");
  if (keep) /* the values stored so far move to the new buffer */
    LLVMBuildMemCpy(g->b, p, LLVMABIAlignmentOfType(td, t), old,
                    LLVMABIAlignmentOfType(td, t),
                    LLVMBuildNUWMul(g->b, keep, size, ""));
  zy_gpu_free_unless(g, g->b, old, local);
  LLVMBuildStore(g->b, p, slot);
}

/* Loops of the gradient whose caches come from the heap (device code, not
 * split), and the bytes one iteration of `l` keeps. */
static unsigned heap_loops(ZyGen *g) {
  unsigned n = 0;
  for (unsigned k = 0; k < g->nloops; k++)
    n += g->loops[k].bufs.len > 0;
  return n;
}
static unsigned long long iteration_bytes(ZyGen *g, ZyLoop *l) {
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(g->zm->mod);
  unsigned long long bytes = 0;
  for (size_t s = 0; s < l->btypes.len; s++)
    bytes += LLVMABISizeOfType(td, l->btypes.data[s]);
  return bytes;
}

/* Local memory takes this many iterations at least, else the heap alone:
 * fewer would spare few calls. */
#define ZY_GPU_LOCAL_START_MIN 4

static ZyLoop *outermost(ZyLoop *l) {
  while (l->parent)
    l = l->parent;
  return l;
}

/* The iterations of `l` per iteration of its outermost loop: the product
 * of the trip counts of `l` and the loops between, 16 for one that is not
 * constant (as the cache plan weighs them). */
static unsigned long long per_outer(ZyLoop *l) {
  unsigned long long m = 1;
  for (; l->parent; l = l->parent) {
    unsigned long long t = l->trip && LLVMIsAConstantInt(l->trip)
                               ? LLVMConstIntGetZExtValue(l->trip)
                               : 16;
    m *= t ? t : 1;
    if (m > (1ull << 20))
      return 1ull << 20;
  }
  return m;
}

/* The local iterations of heap loop `l` out of `room` bytes: shared
 * equally among the `nests` (outermost loops) with heap loops, and within
 * a nest in proportion to the bytes each loop keeps per iteration of the
 * outermost loop, so that all of a nest's caches hold as many of its
 * outermost iterations (RSBench's nuclide loop keeps 88 B per nuclide, its
 * phase loop 4 per l: an equal split held 22 nuclides and 520 phases, this
 * one 39 nuclides and their 156 phases). */
static unsigned long long
local_iterations(ZyGen *g, ZyLoop *l, unsigned long long room, unsigned nests) {
  unsigned long long sum = 0, per = iteration_bytes(g, l);
  for (unsigned k = 0; k < g->nloops; k++) {
    ZyLoop *j = &g->loops[k];
    if (j->bufs.len && outermost(j) == outermost(l))
      sum += iteration_bytes(g, j) * per_outer(j);
  }
  return per && sum ? room / nests * per_outer(l) / sum : 0;
}

void zy_gpu_local_start(ZyGen *g) {
  if (!zy_gpu_device_kind(g->zm->mod) || g->split || !heap_loops(g))
    return;
  unsigned nests = 0;
  for (unsigned k = 0; k < g->nloops; k++) {
    ZyLoop *l = &g->loops[k];
    int first = l->bufs.len > 0;
    for (unsigned j = 0; j < k && first; j++)
      first =
          !(g->loops[j].bufs.len && outermost(&g->loops[j]) == outermost(l));
    nests += first;
  }
  unsigned long long budget = zy_opt_gpu_local_cache_bytes();
  unsigned long long room =
      budget > g->gpu_local_bytes ? budget - g->gpu_local_bytes : 0;
  LLVMTypeRef i64 = LLVMInt64TypeInContext(g->zm->ctx);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(g->zm->ctx);
  for (unsigned k = 0; k < g->nloops; k++) {
    ZyLoop *l = &g->loops[k];
    if (!l->bufs.len)
      continue;
    unsigned long long per = iteration_bytes(g, l);
    unsigned long long n = local_iterations(g, l, room, nests);
    if (n < ZY_GPU_LOCAL_START_MIN || !zy_gpu_local_buffer(g, n * per))
      continue;
    for (size_t s = 0; s < l->bufs.len; s++) {
      zy_loops_stack_buffer(g, l->bufs.data[s], l->btypes.data[s], n);
      /* the buffer just stored into the slot: the entry block's last
       * store */
      LLVMPositionBuilderAtEnd(b, g->allocas);
      LLVMValueRef st = LLVMGetLastInstruction(g->allocas);
      zy_vec_push(&l->locals, LLVMGetOperand(st, 0));
    }
    LLVMPositionBuilderAtEnd(b, g->allocas);
    LLVMBuildStore(b, LLVMConstInt(i64, n, 0), l->cap);
    if (zy_opt_print_cache()) {
      char line[256];
      snprintf(line, sizeof line,
               "  loop %u: its %zu per-iteration caches start in local "
               "memory (%llu iterations, %llu bytes per thread); device "
               "malloc only for more",
               k + 1, l->bufs.len, n, n * per);
      zy_vec_push(&g->report, strdup(line));
    }
  }
  LLVMDisposeBuilder(b);
}
