/* gpu_target.c - the few things device-code generation builds differently
 * for nvptx (CUDA, warps of 32) and amdgcn (HIP, wavefronts of 64): thread
 * numbers and block sizes, lane number, the lanes present, a shuffle down
 * the warp, a block barrier, the one-dimensional launch test, the launch's
 * dynamic shared bytes, and which primal values are the same in every
 * thread.  One table row per target.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "parallel.h"

#include <string.h>

static LLVMValueRef intrinsic(LLVMModuleRef m, const char *name,
                              LLVMTypeRef *over, LLVMTypeRef *fty) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMValueRef f = LLVMGetIntrinsicDeclaration(m, id, over, over ? 1 : 0);
  *fty = LLVMGlobalGetValueType(f);
  return f;
}

static LLVMValueRef call(LLVMBuilderRef b, LLVMModuleRef m, const char *name,
                         LLVMValueRef *args, unsigned n) {
  LLVMTypeRef t;
  LLVMValueRef f = intrinsic(m, name, NULL, &t);
  return LLVMBuildCall2(b, t, f, args, n, "");
}

static LLVMValueRef k32(LLVMModuleRef m, long long v) {
  return LLVMConstInt(LLVMInt32TypeInContext(LLVMGetModuleContext(m)),
                      (unsigned long long)v, 1);
}

static const char *callee_name(LLVMValueRef v) {
  LLVMValueRef f = LLVMIsACallInst(v) ? LLVMGetCalledValue(v) : NULL;
  return f && LLVMIsAFunction(f) ? LLVMGetValueName(f) : "";
}

/* --- nvptx --------------------------------------------------------------- */

static LLVMValueRef ptx_thread(LLVMBuilderRef b, LLVMModuleRef m, int size,
                               int dim) {
  static const char *const names[2][3] = {
      {"llvm.nvvm.read.ptx.sreg.tid.x", "llvm.nvvm.read.ptx.sreg.tid.y",
       "llvm.nvvm.read.ptx.sreg.tid.z"},
      {"llvm.nvvm.read.ptx.sreg.ntid.x", "llvm.nvvm.read.ptx.sreg.ntid.y",
       "llvm.nvvm.read.ptx.sreg.ntid.z"}};
  return call(b, m, names[size][dim], NULL, 0);
}

static LLVMValueRef ptx_lane(LLVMBuilderRef b, LLVMModuleRef m) {
  return call(b, m, "llvm.nvvm.read.ptx.sreg.laneid", NULL, 0);
}

static LLVMValueRef ptx_present(LLVMBuilderRef b, LLVMModuleRef m) {
  return call(b, m, "llvm.nvvm.activemask", NULL, 0);
}

static LLVMValueRef ptx_down(LLVMBuilderRef b, LLVMModuleRef m,
                             LLVMValueRef mask, LLVMValueRef lane,
                             LLVMValueRef v, int off) {
  (void)lane;
  LLVMValueRef args[4] = {mask, v, k32(m, off), k32(m, 0x1f)};
  return call(b, m, "llvm.nvvm.shfl.sync.down.i32", args, 4);
}

static void ptx_barrier(LLVMBuilderRef b, LLVMModuleRef m) {
  const char *name = "llvm.nvvm.barrier.cta.sync.aligned.all";
  if (!LLVMLookupIntrinsicID(name, strlen(name))) {
    call(b, m, "llvm.nvvm.barrier0", NULL, 0); /* LLVM 19 */
    return;
  }
  LLVMValueRef zero = k32(m, 0);
  call(b, m, name, &zero, 1);
}

static LLVMValueRef ptx_one_dim(LLVMBuilderRef b, LLVMModuleRef m) {
  static const char *const dims[] = {
      "llvm.nvvm.read.ptx.sreg.ntid.y", "llvm.nvvm.read.ptx.sreg.ntid.z",
      "llvm.nvvm.read.ptx.sreg.nctaid.y", "llvm.nvvm.read.ptx.sreg.nctaid.z"};
  LLVMValueRef n = call(b, m, dims[0], NULL, 0);
  for (int k = 1; k < 4; k++)
    n = LLVMBuildMul(b, n, call(b, m, dims[k], NULL, 0), "");
  return LLVMBuildICmp(b, LLVMIntEQ, n, k32(m, 1), "");
}

/* %dynamic_smem_size: an intrinsic in LLVM 22 (not in 19: inline PTX). */
static LLVMValueRef ptx_dynamic_shared(LLVMBuilderRef b, LLVMModuleRef m) {
  const char *name = "llvm.nvvm.read.ptx.sreg.dynamic_smem_size";
  if (LLVMLookupIntrinsicID(name, strlen(name)))
    return call(b, m, name, NULL, 0);
  LLVMTypeRef fty = LLVMFunctionType(
      LLVMInt32TypeInContext(LLVMGetModuleContext(m)), NULL, 0, 0);
  static const char text[] = "mov.u32 $0, %dynamic_smem_size;";
  LLVMValueRef asm_ = LLVMGetInlineAsm(fty, text, sizeof text - 1, "=r", 2, 0,
                                       0, LLVMInlineAsmDialectATT, 0);
  return LLVMBuildCall2(b, fty, asm_, NULL, 0, "");
}

static int ptx_uniform(LLVMValueRef v) {
  const char *n = callee_name(v);
  return !strncmp(n, "llvm.nvvm.read.ptx.sreg.ntid.", 29) ||
         !strncmp(n, "llvm.nvvm.read.ptx.sreg.nctaid.", 31) ||
         !strcmp(n, "llvm.nvvm.read.ptx.sreg.warpsize");
}

/* --- amdgcn -------------------------------------------------------------- */

/* Field `offset` (of `bits`) of the HSA dispatch packet: workgroup_size
 * (i16 at 4, 6, 8), grid_size in work-items (i32 at 12, 16, 20); as i32. */
static LLVMValueRef amd_packet(LLVMBuilderRef b, LLVMModuleRef m, int offset,
                               unsigned bits) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMValueRef p = call(b, m, "llvm.amdgcn.dispatch.ptr", NULL, 0);
  LLVMValueRef off = LLVMConstInt(LLVMInt64TypeInContext(c), offset, 0);
  p = LLVMBuildGEP2(b, LLVMInt8TypeInContext(c), p, &off, 1, "");
  LLVMTypeRef t = LLVMIntTypeInContext(c, bits);
  LLVMValueRef v = LLVMBuildLoad2(b, t, p, "");
  LLVMSetAlignment(v, bits / 8);
  return LLVMBuildZExt(b, v, LLVMInt32TypeInContext(c), "");
}

static LLVMValueRef amd_thread(LLVMBuilderRef b, LLVMModuleRef m, int size,
                               int dim) {
  static const char *const ids[3] = {"llvm.amdgcn.workitem.id.x",
                                     "llvm.amdgcn.workitem.id.y",
                                     "llvm.amdgcn.workitem.id.z"};
  return size ? amd_packet(b, m, 4 + 2 * dim, 16)
              : call(b, m, ids[dim], NULL, 0);
}

static LLVMValueRef amd_lane(LLVMBuilderRef b, LLVMModuleRef m) {
  LLVMValueRef lo[2] = {k32(m, -1), k32(m, 0)};
  LLVMValueRef hi[2] = {k32(m, -1), call(b, m, "llvm.amdgcn.mbcnt.lo", lo, 2)};
  return call(b, m, "llvm.amdgcn.mbcnt.hi", hi, 2);
}

/* The exec mask: a ballot of true. */
static LLVMValueRef amd_present(LLVMBuilderRef b, LLVMModuleRef m) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c), t;
  LLVMValueRef f = intrinsic(m, "llvm.amdgcn.ballot", &i64, &t);
  LLVMValueRef yes = LLVMConstInt(LLVMInt1TypeInContext(c), 1, 0);
  return LLVMBuildCall2(b, t, f, &yes, 1, "");
}

/* Lane + off's `v` by ds_bpermute (a byte address). */
static LLVMValueRef amd_down(LLVMBuilderRef b, LLVMModuleRef m,
                             LLVMValueRef mask, LLVMValueRef lane,
                             LLVMValueRef v, int off) {
  (void)mask;
  LLVMValueRef src = LLVMBuildAdd(b, lane, k32(m, off), "");
  LLVMValueRef args[2] = {LLVMBuildShl(b, src, k32(m, 2), ""), v};
  return call(b, m, "llvm.amdgcn.ds.bpermute", args, 2);
}

/* __syncthreads: release fence, s_barrier, acquire fence. */
static void amd_barrier(LLVMBuilderRef b, LLVMModuleRef m) {
  LLVMBuildFence(b, LLVMAtomicOrderingRelease, 0, "");
  call(b, m, "llvm.amdgcn.s.barrier", NULL, 0);
  LLVMBuildFence(b, LLVMAtomicOrderingAcquire, 0, "");
}

/* grid_size.y * grid_size.z == 1 (each is blocks times threads). */
static LLVMValueRef amd_one_dim(LLVMBuilderRef b, LLVMModuleRef m) {
  LLVMValueRef n =
      LLVMBuildMul(b, amd_packet(b, m, 16, 32), amd_packet(b, m, 20, 32), "");
  return LLVMBuildICmp(b, LLVMIntEQ, n, k32(m, 1), "");
}

/* Code object v5's hidden_dynamic_lds_size (byte 120 of the hidden
 * arguments), which the runtime fills for kernels using dynamic LDS. */
static LLVMValueRef amd_dynamic_shared(LLVMBuilderRef b, LLVMModuleRef m) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMValueRef p = call(b, m, "llvm.amdgcn.implicitarg.ptr", NULL, 0);
  LLVMValueRef off = LLVMConstInt(LLVMInt64TypeInContext(c), 120, 0);
  p = LLVMBuildGEP2(b, LLVMInt8TypeInContext(c), p, &off, 1, "");
  LLVMValueRef v = LLVMBuildLoad2(b, LLVMInt32TypeInContext(c), p, "");
  LLVMSetAlignment(v, 4);
  return v;
}

/* ockl's sizes, and loads from the dispatch packet or the hidden
 * arguments. */
static int amd_uniform(LLVMValueRef v) {
  static const char *const sizes[] = {
      "__ockl_get_local_size", "__ockl_get_enqueued_local_size",
      "__ockl_get_num_groups", "__ockl_get_global_size", "__ockl_get_work_dim"};
  const char *n = callee_name(v);
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
    if (!strcmp(n, sizes[k])) {
      for (unsigned a = 0; a < LLVMGetNumArgOperands(v); a++)
        if (!LLVMIsAConstant(LLVMGetOperand(v, a)))
          return 0;
      return 1;
    }
  if (!LLVMIsALoadInst(v))
    return 0;
  LLVMValueRef p = LLVMGetOperand(v, 0);
  for (int depth = 0; depth < 4 && LLVMIsAGetElementPtrInst(p); depth++) {
    for (int k = 1; k < LLVMGetNumOperands(p); k++)
      if (!LLVMIsAConstant(LLVMGetOperand(p, k)))
        return 0;
    p = LLVMGetOperand(p, 0);
  }
  n = callee_name(p);
  return !strcmp(n, "llvm.amdgcn.dispatch.ptr") ||
         !strcmp(n, "llvm.amdgcn.implicitarg.ptr");
}

static const ZyGpuTarget targets[] = {
    {"nvptx", 5, ptx_thread, ptx_lane, ptx_present, ptx_down, ptx_barrier,
     ptx_one_dim, ptx_dynamic_shared, ptx_uniform},
    {"amdgcn", 6, amd_thread, amd_lane, amd_present, amd_down, amd_barrier,
     amd_one_dim, amd_dynamic_shared, amd_uniform},
};

const ZyGpuTarget *zy_gpu_target(LLVMModuleRef m) {
  const char *t = LLVMGetTarget(m);
  for (size_t k = 0; t && k < sizeof targets / sizeof *targets; k++)
    if (!strncmp(t, targets[k].name, strlen(targets[k].name)))
      return &targets[k];
  return NULL;
}

/* HIP's accessors of threadIdx, blockIdx, blockDim, gridDim (calls at -O0:
 * `__HIP_Coordinates<__HIP_BlockIdx>::__X::operator unsigned`, ...) and
 * its `__syncthreads` (`__barrier`, `__work_group_barrier`: fences around
 * `s.barrier`), with a body in an amdgcn module. */
static int hip_coordinate(LLVMValueRef f) {
  static const char *const parts[] = {
      "__HIP_Coordinates", "__HIP_ThreadIdx", "__HIP_BlockIdx",
      "__HIP_BlockDim",    "__HIP_GridDim",   "__syncthreads",
      "__barrier",         "__work_group_barrier"};
  if (!f || !LLVMIsAFunction(f) || LLVMIsDeclaration(f) ||
      strncmp(LLVMGetTarget(LLVMGetGlobalParent(f)), "amdgcn", 6))
    return 0;
  const char *n = LLVMGetValueName(f);
  for (size_t k = 0; k < sizeof parts / sizeof *parts; k++)
    if (strstr(n, parts[k]))
      return 1;
  return 0;
}

int zy_gpu_wrapper(LLVMValueRef call) {
  return zy_gpu_shuffle_wrapper(call) ||
         hip_coordinate(LLVMGetCalledValue(call));
}
