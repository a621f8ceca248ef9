/* to_host.c - the module pass zymase-gpu-to-host: device IR (nvptx64 for
 * CUDA, amdgcn for HIP) made into host IR whose kernels the GPU-on-CPU
 * runtime runs on CPU threads.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "gpu.h"

#include "../llvm/glue.h"

#include <llvm-c/Comdat.h>
#include <llvm-c/Target.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZY_GPU_SYNC 1

typedef struct GpuMap {
  const char *intrinsic, *runtime;
  int flags;
} GpuMap;

static const GpuMap gpu_map[] = {
#define ZY_GPU_INTRINSIC(i, r, f) {i, r, f},
#include "intrinsics.def"
#undef ZY_GPU_INTRINSIC
};

enum {
  CC_PTX_KERNEL = 71,
  CC_PTX_DEVICE = 72,
  CC_AMDGPU_KERNEL = 91,
  AS_SHARED = 3,
  /* The runtime's kernel flags (runtime/gpu-on-cpu/zymase_gpu.h). */
  KERNEL_SYNC = 1,
  KERNEL_WAVE64 = 2
};

static int nerrors;
static LLVMModuleRef cur_module;
static int amdgcn; /* HIP device IR: warps of 64 lanes */

/* Reports "[zymase:gpu] 'fn': <what>" at `inst` (may be NULL); without
 * `fn`, about the module. */
static void gpu_error(LLVMValueRef fn, LLVMValueRef inst, const char *fmt,
                      ...) {
  char what[1024], msg[1400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (fn)
    snprintf(msg, sizeof msg, "[zymase:gpu] '%s': %s (in GPU-on-CPU mode)",
             LLVMGetValueName(fn), what);
  else
    snprintf(msg, sizeof msg, "[zymase:gpu] %s (in GPU-on-CPU mode)", what);
  if (fn || inst)
    zy_llvm_diagnose(fn, inst, msg, 0);
  else
    zy_llvm_diagnose_module(cur_module, msg);
  nerrors++;
}

static LLVMValueRef inst_function(LLVMValueRef inst) {
  return LLVMGetBasicBlockParent(LLVMGetInstructionParent(inst));
}

static const GpuMap *find_map(const char *name) {
  for (size_t i = 0; i < sizeof gpu_map / sizeof gpu_map[0]; i++)
    if (!strcmp(gpu_map[i].intrinsic, name))
      return &gpu_map[i];
  return NULL;
}

/* The first call of `fn`, for locating an error, or NULL. */
static LLVMValueRef first_call(LLVMValueRef fn) {
  for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u))
    if (LLVMIsACallInst(LLVMGetUser(u)))
      return LLVMGetUser(u);
  return NULL;
}

static void add_enum_attr(LLVMValueRef fn, unsigned idx, const char *name) {
  LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(fn));
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  LLVMAddAttributeAtIndex(fn, idx, LLVMCreateEnumAttribute(c, kind, 0));
}

/* The runtime function `name` with type `ty`, declared when missing. */
static LLVMValueRef runtime_decl(LLVMModuleRef m, const char *name,
                                 LLVMTypeRef ty, int flags) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, name);
  if (fn)
    return LLVMGlobalGetValueType(fn) == ty ? fn : NULL;
  fn = LLVMAddFunction(m, name, ty);
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef i1 = LLVMInt1TypeInContext(c);
  if (LLVMGetReturnType(ty) == i1)
    add_enum_attr(fn, LLVMAttributeReturnIndex, "zeroext");
  unsigned n = LLVMCountParamTypes(ty);
  LLVMTypeRef *params = malloc((n + 1) * sizeof *params);
  LLVMGetParamTypes(ty, params);
  for (unsigned i = 0; i < n; i++)
    if (params[i] == i1)
      add_enum_attr(fn, i + 1, "zeroext");
  free(params);
  add_enum_attr(fn, LLVMAttributeFunctionIndex, "nounwind");
  if (flags & ZY_GPU_SYNC)
    add_enum_attr(fn, LLVMAttributeFunctionIndex, "convergent");
  return fn;
}

/* Step 1: each GPU intrinsic (and device library call with a host
 * namesake) becomes a call of its runtime function; an unknown
 * llvm.nvvm.* intrinsic is an error. */
static void map_intrinsics(LLVMModuleRef m) {
  LLVMValueRef next;
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = next) {
    next = LLVMGetNextFunction(fn);
    if (!LLVMIsDeclaration(fn))
      continue;
    const char *name = LLVMGetValueName(fn);
    const GpuMap *row = find_map(name);
    if (!row) {
      LLVMValueRef call = first_call(fn);
      if ((!strncmp(name, "llvm.nvvm.", 10) ||
           !strncmp(name, "llvm.amdgcn.", 12) ||
           !strncmp(name, "__ockl_", 7)) &&
          call)
        gpu_error(inst_function(call), call, "%s has no CPU version", name);
      continue;
    }
    LLVMValueRef rt =
        runtime_decl(m, row->runtime, LLVMGlobalGetValueType(fn), row->flags);
    if (!rt) {
      LLVMValueRef call = first_call(fn);
      gpu_error(call ? inst_function(call) : NULL, call,
                "%s is called with an unexpected signature", name);
      continue;
    }
    LLVMReplaceAllUsesWith(fn, rt);
    LLVMDeleteFunction(fn);
  }
}

/* Step 2: inline assembly is PTX; refused, but for libdevice's own
 * snippets (ptx_asm.c) and the PTX of CUDA's C++ libraries (ptx_insn.c).
 * Sync scopes (block, device) are GPU notions:
 * every fence and atomic becomes system-wide, which the host honours. */
static void check_bodies(LLVMModuleRef m) {
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn;
       fn = LLVMGetNextFunction(fn)) {
    if (LLVMIsDeclaration(fn))
      continue;
    zy_llvm_system_sync_scopes(fn);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb), next; i; i = next) {
        next = LLVMGetNextInstruction(i);
        if (!LLVMIsACallInst(i) || !LLVMIsAInlineAsm(LLVMGetCalledValue(i)))
          continue;
        if (!amdgcn && (zy_gpu_ptx_asm(m, i) || zy_gpu_ptx_insn(m, i)))
          continue;
        size_t len;
        const char *asm_text =
            LLVMGetInlineAsmAsmString(LLVMGetCalledValue(i), &len);
        gpu_error(fn, i, "inline %s assembly '%.*s' cannot run on the CPU",
                  amdgcn ? "AMDGPU" : "PTX", (int)len, asm_text);
      }
  }
}

/* Step 2b (-zymase-gpu-count-atomics): before each atomicrmw and cmpxchg
 * of device code, a relaxed increment of the runtime's counter
 * __zy_gpu_atomics (read by zymase_gpu_atomics()).  Off, nothing is
 * added. */
static void count_atomics(LLVMModuleRef m) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMValueRef counter = NULL;
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn;
       fn = LLVMGetNextFunction(fn))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i)) {
        if (!LLVMIsAAtomicRMWInst(i) && !LLVMIsAAtomicCmpXchgInst(i))
          continue;
        if (!counter) {
          counter = LLVMGetNamedGlobal(m, "__zy_gpu_atomics");
          if (!counter)
            counter = LLVMAddGlobal(m, i64, "__zy_gpu_atomics");
        }
        if (LLVMIsAAtomicRMWInst(i) && LLVMGetOperand(i, 0) == counter)
          continue; /* an increment made here */
        LLVMPositionBuilderBefore(b, i);
        LLVMBuildAtomicRMW(b, LLVMAtomicRMWBinOpAdd, counter,
                           LLVMConstInt(i64, 1, 0),
                           LLVMAtomicOrderingMonotonic, 0);
      }
  LLVMDisposeBuilder(b);
}

/* Whether `fn` is a kernel: the ptx_kernel calling convention (LLVM 22)
 * or a "kernel" entry of !nvvm.annotations (LLVM 19); amdgpu_kernel. */
static int is_kernel(LLVMModuleRef m, LLVMValueRef fn) {
  unsigned cc = LLVMGetFunctionCallConv(fn);
  if (cc == CC_PTX_KERNEL || cc == CC_AMDGPU_KERNEL)
    return 1;
  unsigned n = LLVMGetNamedMetadataNumOperands(m, "nvvm.annotations");
  if (!n)
    return 0;
  LLVMValueRef *nodes = malloc(n * sizeof *nodes);
  LLVMGetNamedMetadataOperands(m, "nvvm.annotations", nodes);
  int found = 0;
  for (unsigned i = 0; i < n && !found; i++) {
    unsigned k = LLVMGetMDNodeNumOperands(nodes[i]);
    if (k < 2)
      continue;
    LLVMValueRef *ops = malloc(k * sizeof *ops);
    LLVMGetMDNodeOperands(nodes[i], ops);
    unsigned len = 0;
    const char *s = ops[1] ? LLVMGetMDString(ops[1], &len) : NULL;
    found = ops[0] == fn && s && len == 6 && !memcmp(s, "kernel", 6);
    free(ops);
  }
  free(nodes);
  return found;
}

/* Step 3: __shared__ variables.  Each block has one arena; the defined
 * variables get fixed offsets in it, and the `extern __shared__` arrays
 * all start at the dynamic part, after the static ones of the kernel
 * running (the runtime knows it: offset ~0).  Variables that no kernel
 * uses together may overlap, so that each kernel's static size is what it
 * reaches (a translation unit of CUB's kernels holds many).  Each
 * function using one gets its address from the runtime on entry. */
enum { MAX_KERNELS = 1024, MAX_REACH = 4096 };
static LLVMValueRef kernel_fn[MAX_KERNELS];
static unsigned long long kernel_shared[MAX_KERNELS];
static unsigned nkernels;

/* The defined functions `fn` reaches through calls, itself included
 * (added to seen); -1 when it makes an indirect call or reaches more
 * than `cap`. */
static int reach(LLVMValueRef fn, LLVMValueRef *seen, unsigned *n,
                 unsigned cap) {
  for (unsigned i = 0; i < *n; i++)
    if (seen[i] == fn)
      return 0;
  if (*n == cap)
    return -1;
  seen[(*n)++] = fn;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      if (!LLVMIsACallInst(i) && !LLVMIsAInvokeInst(i))
        continue;
      LLVMValueRef callee = LLVMGetCalledValue(i);
      if (LLVMIsAInlineAsm(callee))
        continue;
      if (!LLVMIsAFunction(callee))
        return -1;
      if (!LLVMIsDeclaration(callee) && reach(callee, seen, n, cap))
        return -1;
    }
  return 0;
}

/* Whether a function in `fns` uses global `g` (made instructions). */
static int used_in(LLVMValueRef g, LLVMValueRef *fns, unsigned n) {
  for (LLVMUseRef u = LLVMGetFirstUse(g); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef f = inst_function(LLVMGetUser(u));
    for (unsigned j = 0; f && j < n; j++)
      if (fns[j] == f)
        return 1;
  }
  return 0;
}

/* Offsets of the defined variables `shared[0..n)`: each after the end of
 * every kernel that uses it; the kernels' ends are their static sizes. */
static void layout_shared(LLVMModuleRef m, LLVMValueRef *shared, unsigned n,
                          unsigned long long *offset) {
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
  LLVMValueRef *reached = malloc(MAX_REACH * sizeof *reached);
  static unsigned nreach[MAX_KERNELS];
  static LLVMValueRef *reach_of[MAX_KERNELS];
  nkernels = 0;
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn;
       fn = LLVMGetNextFunction(fn)) {
    if (LLVMIsDeclaration(fn) || !is_kernel(m, fn) || nkernels == MAX_KERNELS)
      continue;
    unsigned k = nkernels++, nr = 0;
    kernel_fn[k] = fn;
    kernel_shared[k] = 0;
    int all = reach(fn, reached, &nr, MAX_REACH) != 0;
    nreach[k] = all ? ~0u : nr; /* ~0: it may use any variable */
    reach_of[k] = all ? NULL : malloc(nr * sizeof *reached);
    if (!all)
      memcpy(reach_of[k], reached, nr * sizeof *reached);
  }
  for (unsigned v = 0; v < n; v++) {
    if (offset[v] == ~0ULL) /* extern: the dynamic part */
      continue;
    LLVMTypeRef ty = LLVMGlobalGetValueType(shared[v]);
    unsigned long long align = LLVMGetAlignment(shared[v]), off = 0;
    if (align < LLVMABIAlignmentOfType(td, ty))
      align = LLVMABIAlignmentOfType(td, ty);
    int users[MAX_KERNELS];
    for (unsigned k = 0; k < nkernels; k++) {
      users[k] = nreach[k] == ~0u || used_in(shared[v], reach_of[k], nreach[k]);
      if (users[k] && kernel_shared[k] > off)
        off = kernel_shared[k];
    }
    off = (off + align - 1) / align * align;
    offset[v] = off;
    for (unsigned k = 0; k < nkernels; k++)
      if (users[k])
        kernel_shared[k] = off + LLVMABISizeOfType(td, ty);
  }
  for (unsigned k = 0; k < nkernels; k++)
    free(reach_of[k]);
  free(reached);
}

static void lower_shared(LLVMModuleRef m) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef sptr = LLVMPointerTypeInContext(c, AS_SHARED);
  LLVMTypeRef fty = LLVMFunctionType(sptr, &i64, 1, 0);
  LLVMValueRef get = NULL;
  LLVMValueRef shared[512];
  unsigned long long offset[512];
  unsigned n = 0;
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != AS_SHARED)
      continue;
    if (n == sizeof shared / sizeof shared[0]) {
      gpu_error(NULL, NULL, "more than 512 __shared__ variables");
      return;
    }
    if (!zy_llvm_constants_to_instructions(g)) {
      gpu_error(NULL, NULL,
                "the address of __shared__ variable '%s' is used in a "
                "global initializer",
                LLVMGetValueName(g));
      continue;
    }
    offset[n] = LLVMIsDeclaration(g) ? ~0ULL : 0;
    shared[n++] = g;
  }
  layout_shared(m, shared, n, offset);
  for (unsigned k = 0; k < n; k++) {
    LLVMValueRef g = shared[k];
    if (!get)
      get = runtime_decl(m, "__zy_gpu_shared", fty, 0);
    LLVMValueRef users[256];
    unsigned nu = 0;
    for (LLVMUseRef u = LLVMGetFirstUse(g); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef f = inst_function(LLVMGetUser(u));
      unsigned j = 0;
      while (j < nu && users[j] != f)
        j++;
      if (j == nu && nu < 256)
        users[nu++] = f;
    }
    LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
    for (unsigned j = 0; j < nu; j++) {
      LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(users[j]);
      LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(entry));
      LLVMValueRef off = LLVMConstInt(i64, offset[k], 0);
      LLVMValueRef p = LLVMBuildCall2(b, fty, get, &off, 1, "");
      LLVMSetValueName2(p, LLVMGetValueName(g), strlen(LLVMGetValueName(g)));
      zy_llvm_replace_uses_in(g, p, users[j]);
    }
    LLVMDisposeBuilder(b);
    if (!LLVMGetFirstUse(g))
      LLVMDeleteGlobal(g);
  }
}

/* The static __shared__ bytes of kernel `fn` (lower_shared). */
static unsigned long long static_shared(LLVMValueRef fn) {
  for (unsigned k = 0; k < nkernels; k++)
    if (kernel_fn[k] == fn)
      return kernel_shared[k];
  return 0;
}

/* A private constant C string. */
static LLVMValueRef cstring(LLVMModuleRef m, const char *s) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMValueRef init = LLVMConstStringInContext(c, s, strlen(s), 0);
  LLVMValueRef g = LLVMAddGlobal(m, LLVMTypeOf(init), "__zy_gpu_name");
  LLVMSetInitializer(g, init);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetLinkage(g, LLVMPrivateLinkage);
  LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
  return g;
}

/* The entry `void entry(void **args)` of kernel `k`: args[i] points to
 * the i-th argument (cudaLaunchKernel's convention). */
static LLVMValueRef kernel_entry(LLVMModuleRef m, LLVMValueRef k) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(c), &ptr, 1, 0);
  char name[512];
  snprintf(name, sizeof name, "__zy_gpu_entry.%s", LLVMGetValueName(k));
  LLVMValueRef e = LLVMAddFunction(m, name, fty);
  LLVMSetLinkage(e, LLVMInternalLinkage);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, e, "entry"));
  LLVMTypeRef kty = LLVMGlobalGetValueType(k);
  unsigned n = LLVMCountParams(k);
  LLVMValueRef *args = malloc((n + 1) * sizeof *args);
  LLVMTypeRef *types = malloc((n + 1) * sizeof *types);
  LLVMGetParamTypes(kty, types);
  unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
  unsigned byref = LLVMGetEnumAttributeKindForName("byref", 5);
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef idx = LLVMConstInt(LLVMInt64TypeInContext(c), i, 0);
    LLVMValueRef slot = LLVMBuildGEP2(b, ptr, LLVMGetParam(e, 0), &idx, 1, "");
    LLVMValueRef p = LLVMBuildLoad2(b, ptr, slot, "");
    /* Aggregates: byval (nvptx64), byref in the constant space (amdgcn). */
    if (LLVMGetEnumAttributeAtIndex(k, i + 1, byval) ||
        LLVMGetEnumAttributeAtIndex(k, i + 1, byref))
      args[i] = LLVMGetTypeKind(types[i]) == LLVMPointerTypeKind &&
                        LLVMGetPointerAddressSpace(types[i])
                    ? LLVMBuildAddrSpaceCast(b, p, types[i], "")
                    : p;
    else {
      args[i] = LLVMBuildLoad2(b, types[i], p, "");
      LLVMSetAlignment(args[i], 1);
    }
  }
  LLVMBuildCall2(b, kty, k, args, n, "");
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  free(args);
  free(types);
  return e;
}

/* Whether `fn`, or a function it calls, synchronizes threads (calls a
 * convergent runtime function: a barrier, a warp operation); an indirect
 * call counts as one.  `seen` holds the functions visited. */
static int synchronizes(LLVMValueRef fn, LLVMValueRef *seen, unsigned *nseen,
                        unsigned cap) {
  for (unsigned i = 0; i < *nseen; i++)
    if (seen[i] == fn)
      return 0;
  if (*nseen == cap)
    return 1;
  seen[(*nseen)++] = fn;
  unsigned convergent = LLVMGetEnumAttributeKindForName("convergent", 10);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      if (!LLVMIsACallInst(i) && !LLVMIsAInvokeInst(i))
        continue;
      LLVMValueRef callee = LLVMGetCalledValue(i);
      if (!LLVMIsAFunction(callee))
        return 1;
      if (LLVMIsDeclaration(callee)) {
        if (LLVMGetEnumAttributeAtIndex(callee, LLVMAttributeFunctionIndex,
                                        convergent) &&
            !strncmp(LLVMGetValueName(callee), "__zy_gpu_", 9))
          return 1;
      } else if (synchronizes(callee, seen, nseen, cap))
        return 1;
    }
  return 0;
}

/* Step 4: kernels become C functions with entries, and a constructor
 * registers them and the device variables with the runtime. */
static void register_module(LLVMModuleRef m) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  LLVMTypeRef void_ty = LLVMVoidTypeInContext(c);
  LLVMTypeRef reg_params[5] = {ptr, ptr, ptr, i64, i64};
  LLVMTypeRef reg_ty = LLVMFunctionType(void_ty, reg_params, 4, 0);
  LLVMTypeRef reg_kernel_ty = LLVMFunctionType(void_ty, reg_params, 5, 0);
  /* The translation unit's identity, which its host side registers as
   * its fat binary: names are looked up within one unit. */
  LLVMValueRef unit = cstring(m, zy_opt_gpu_module_id());
  LLVMValueRef reg_kernel =
      runtime_decl(m, "__zy_gpu_register_kernel", reg_kernel_ty, 0);
  LLVMValueRef reg_var = runtime_decl(m, "__zy_gpu_register_var", reg_ty, 0);
  LLVMValueRef ctor = LLVMAddFunction(m, "__zy_gpu_register",
                                      LLVMFunctionType(void_ty, NULL, 0, 0));
  LLVMSetLinkage(ctor, LLVMInternalLinkage);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, ctor, "entry"));
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn;
       fn = LLVMGetNextFunction(fn)) {
    if (LLVMIsDeclaration(fn) || !is_kernel(m, fn))
      continue;
    LLVMValueRef seen[1024];
    unsigned nseen = 0;
    int flags = synchronizes(fn, seen, &nseen, 1024) ? KERNEL_SYNC : 0;
    if (amdgcn)
      flags |= KERNEL_WAVE64;
    LLVMValueRef args[5] = {
        unit, cstring(m, LLVMGetValueName(fn)), kernel_entry(m, fn),
        LLVMConstInt(i64, static_shared(fn), 0), LLVMConstInt(i64, flags, 0)};
    LLVMBuildCall2(b, reg_kernel_ty, reg_kernel, args, 5, "");
  }
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(m);
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    unsigned as = LLVMGetPointerAddressSpace(LLVMTypeOf(g));
    if (LLVMIsDeclaration(g) || (as != 1 && as != 4) ||
        LLVMGetLinkage(g) == LLVMPrivateLinkage ||
        !strncmp(LLVMGetValueName(g), "llvm.", 5))
      continue;
    /* __constant__ memory is written by cudaMemcpyToSymbol. */
    if (LLVMIsExternallyInitialized(g))
      LLVMSetGlobalConstant(g, 0);
    LLVMValueRef args[4] = {
        unit, cstring(m, LLVMGetValueName(g)), LLVMConstAddrSpaceCast(g, ptr),
        LLVMConstInt(i64, LLVMABISizeOfType(td, LLVMGlobalGetValueType(g)), 0)};
    LLVMBuildCall2(b, reg_ty, reg_var, args, 4, "");
  }
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  zy_llvm_add_global_ctor(m, ctor);
}

static void strip_target_attrs(LLVMValueRef fn) {
  static const char *const attrs[] = {"target-cpu", "target-features"};
  for (unsigned i = 0; i < 2; i++)
    LLVMRemoveStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, attrs[i],
                                     strlen(attrs[i]));
}

/* Step 5: every definition internal (the host module defines the same
 * names: shadows of device variables, __host__ __device__ functions),
 * every declaration of default visibility;
 * PTX calling conventions and target attributes dropped; unused
 * declarations (the threadIdx builtins' variables) deleted.  Under
 * -zymase-gpu-sanitize-thread (-address) every function is marked for
 * TSan (ASan). */
static void internalize(LLVMModuleRef m) {
  LLVMValueRef next;
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = next) {
    next = LLVMGetNextFunction(fn);
    unsigned cc = LLVMGetFunctionCallConv(fn);
    if (cc == CC_PTX_KERNEL || cc == CC_PTX_DEVICE || cc == CC_AMDGPU_KERNEL)
      LLVMSetFunctionCallConv(fn, LLVMCCallConv);
    strip_target_attrs(fn);
    if (LLVMIsDeclaration(fn)) {
      if (!LLVMGetFirstUse(fn))
        LLVMDeleteFunction(fn);
      else /* amdgcn declares them hidden; the runtime has them */
        LLVMSetVisibility(fn, LLVMDefaultVisibility);
      continue;
    }
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    LLVMSetVisibility(fn, LLVMDefaultVisibility);
    LLVMSetComdat(fn, NULL);
    if (zy_opt_gpu_sanitize_thread())
      add_enum_attr(fn, LLVMAttributeFunctionIndex, "sanitize_thread");
    if (zy_opt_gpu_sanitize_address())
      add_enum_attr(fn, LLVMAttributeFunctionIndex, "sanitize_address");
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i)) {
        if (!LLVMIsACallInst(i) && !LLVMIsAInvokeInst(i))
          continue;
        cc = LLVMGetInstructionCallConv(i);
        if (cc == CC_PTX_KERNEL || cc == CC_PTX_DEVICE || cc == CC_AMDGPU_KERNEL)
          LLVMSetInstructionCallConv(i, LLVMCCallConv);
      }
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = next) {
    next = LLVMGetNextGlobal(g);
    if (LLVMIsDeclaration(g)) {
      if (!LLVMGetFirstUse(g))
        LLVMDeleteGlobal(g);
      else /* amdgcn's are protected: a symbol even when only dead loads
              (Enzyme's markers at -O0) read it */
        LLVMSetVisibility(g, LLVMDefaultVisibility);
      continue;
    }
    if (!strncmp(LLVMGetValueName(g), "llvm.", 5))
      continue;
    if (LLVMGetLinkage(g) != LLVMPrivateLinkage)
      LLVMSetLinkage(g, LLVMInternalLinkage);
    LLVMSetVisibility(g, LLVMDefaultVisibility);
    LLVMSetComdat(g, NULL);
  }
}

/* Deletes the llvm.lifetime.* calls on `alloca`, which must name an
 * alloca, not a cast of one (they only help the optimizer). */
static void drop_lifetime_markers(LLVMValueRef alloca) {
  LLVMUseRef next;
  for (LLVMUseRef u = LLVMGetFirstUse(alloca); u; u = next) {
    next = LLVMGetNextUse(u);
    LLVMValueRef user = LLVMGetUser(u);
    LLVMValueRef callee =
        LLVMIsACallInst(user) ? LLVMGetCalledValue(user) : NULL;
    if (callee && LLVMIsAFunction(callee) &&
        !strncmp(LLVMGetValueName(callee), "llvm.lifetime.", 14))
      LLVMInstructionEraseFromParent(user);
  }
}

/* amdgcn's allocas are in the private space (5); the host's in 0.  Each
 * becomes a host alloca cast to the private space, which the host takes
 * as the same address.  Runs after the host's data layout is set. */
static void host_allocas(LLVMModuleRef m) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn;
       fn = LLVMGetNextFunction(fn))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
         bb = LLVMGetNextBasicBlock(bb)) {
      LLVMValueRef next;
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = next) {
        next = LLVMGetNextInstruction(i);
        if (!LLVMIsAAllocaInst(i) ||
            !LLVMGetPointerAddressSpace(LLVMTypeOf(i)))
          continue;
        size_t len;
        const char *old = LLVMGetValueName2(i, &len);
        char *name = strndup(old, len);
        LLVMSetValueName2(i, "", 0);
        LLVMPositionBuilderBefore(b, i);
        LLVMValueRef a = LLVMBuildArrayAlloca(b, LLVMGetAllocatedType(i),
                                              LLVMGetOperand(i, 0), "");
        LLVMSetValueName2(a, name ? name : "", name ? len : 0);
        free(name);
        LLVMSetAlignment(a, LLVMGetAlignment(i));
        LLVMValueRef cast = LLVMBuildAddrSpaceCast(b, a, LLVMTypeOf(i), "");
        drop_lifetime_markers(i);
        next = LLVMGetNextInstruction(i);
        LLVMReplaceAllUsesWith(i, cast);
        LLVMInstructionEraseFromParent(i);
      }
    }
  LLVMDisposeBuilder(b);
}

int zy_gpu_to_host(LLVMModuleRef m) {
  nerrors = 0;
  cur_module = m;
  const char *triple = LLVMGetTarget(m);
  amdgcn = !strncmp(triple, "amdgcn", 6);
  if (strncmp(triple, "nvptx", 5) && !amdgcn) {
    gpu_error(NULL, NULL,
              "zymase-gpu-to-host expects device IR (nvptx64 or amdgcn), not "
              "'%s'",
              triple);
    return -1;
  }
  check_bodies(m); /* (first: PTX made nvvm intrinsics, mapped next) */
  map_intrinsics(m);
  if (nerrors)
    return -1;
  if (zy_opt_gpu_count_atomics())
    count_atomics(m);
  if (!zy_llvm_set_host_target(m)) {
    gpu_error(NULL, NULL, "no host target to retarget the device code to");
    return -1;
  }
  if (amdgcn)
    host_allocas(m);
  lower_shared(m);
  if (nerrors)
    return -1;
  register_module(m);
  internalize(m);
  return nerrors ? -1 : 0;
}
