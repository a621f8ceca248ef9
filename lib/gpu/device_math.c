/* device_math.c - the GPU's math library around AD: libdevice's __nv_*
 * (and ocml's __ocml_*) functions, linked into the device module by clang,
 * stay calls until the gradients are made (their rules apply, their bodies
 * of nvvm intrinsics are not differentiated), then are inlined as clang
 * would have; the math the derivatives call is made device math, and on
 * nvptx what libdevice has of it and the module lacks is linked in.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "gpu.h"

#include "ad/rules.h"
#include "support/diag.h"
#include "llvm/glue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Function attribute on the math functions kept as calls; its value
 * "A L": whether they were `alwaysinline` before (A) and their linkage
 * (L). */
static const char KEPT[] = "zymase-device-math";

static int target_is(LLVMModuleRef m, const char *prefix) {
  const char *t = LLVMGetTarget(m);
  return t && !strncmp(t, prefix, strlen(prefix));
}

static int gpu_module(LLVMModuleRef m) {
  return target_is(m, "nvptx") || target_is(m, "amdgcn");
}

static int math_name(const char *n) {
  return !strncmp(n, "__nv_", 5) || !strncmp(n, "__ocml_", 7);
}

static unsigned attr_kind(const char *name) {
  return LLVMGetEnumAttributeKindForName(name, strlen(name));
}

void zy_gpu_math_keep(LLVMModuleRef m) {
  if (!gpu_module(m))
    return;
  LLVMContextRef c = LLVMGetModuleContext(m);
  unsigned always = attr_kind("alwaysinline"), never = attr_kind("noinline");
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
       f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f) || !math_name(LLVMGetValueName(f)) ||
        !zy_rule_for_call(f))
      continue;
    unsigned idx = (unsigned)LLVMAttributeFunctionIndex;
    int was_always = LLVMGetEnumAttributeAtIndex(f, idx, always) != NULL;
    if (LLVMGetEnumAttributeAtIndex(f, idx, never))
      continue; /* the user's choice: left alone */
    LLVMRemoveEnumAttributeAtIndex(f, idx, always);
    LLVMAddAttributeAtIndex(f, idx, LLVMCreateEnumAttribute(c, never, 0));
    /* External until AD, so that no interprocedural pass changes its
     * signature (a constant argument removed) or drops it. */
    char was[32];
    int n =
        snprintf(was, sizeof was, "%d %d", was_always, (int)LLVMGetLinkage(f));
    LLVMAddAttributeAtIndex(
        f, idx,
        LLVMCreateStringAttribute(c, KEPT, sizeof KEPT - 1, was, (unsigned)n));
    LLVMSetLinkage(f, LLVMExternalLinkage);
  }
}

/* The math intrinsics the derivative rules emit that a GPU backend cannot
 * select (nvptx has no f64 sin, exp, log, ...): made calls of the device
 * library's function of the same name. */
static const char *const LOWERED[] = {
    "sin", "cos",  "tan",  "exp",  "exp2", "exp10", "log",  "log2", "log10",
    "pow", "sinh", "cosh", "tanh", "asin", "acos",  "atan", "atan2"};

/* The device library's name of intrinsic `llvm.<name>.f64/.f32`, or 0. */
static int device_name(LLVMModuleRef m, const char *intr, char *buf,
                       size_t size) {
  if (strncmp(intr, "llvm.", 5))
    return 0;
  const char *dot = strrchr(intr, '.');
  if (dot == intr + 4 || (strcmp(dot, ".f64") && strcmp(dot, ".f32")))
    return 0;
  int f32 = !strcmp(dot, ".f32");
  size_t n = (size_t)(dot - (intr + 5));
  char base[16];
  if (n >= sizeof base)
    return 0;
  memcpy(base, intr + 5, n);
  base[n] = 0;
  for (size_t k = 0; k < sizeof LOWERED / sizeof *LOWERED; k++)
    if (!strcmp(base, LOWERED[k])) {
      if (target_is(m, "nvptx"))
        snprintf(buf, size, "__nv_%s%s", base, f32 ? "f" : "");
      else
        snprintf(buf, size, "__ocml_%s_%s", base, f32 ? "f32" : "f64");
      return 1;
    }
  return 0;
}

/* Calls of math intrinsics the backend cannot select become calls of the
 * device library.  Returns whether a called function is only declared. */
static int lower_intrinsics(LLVMModuleRef m) {
  int missing = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;) {
    LLVMValueRef next = LLVMGetNextFunction(f);
    char name[64];
    if (!LLVMGetIntrinsicID(f) ||
        !device_name(m, LLVMGetValueName(f), name, sizeof name)) {
      f = next;
      continue;
    }
    LLVMTypeRef fty = LLVMGlobalGetValueType(f);
    LLVMValueRef to = LLVMGetNamedFunction(m, name);
    if (!to)
      to = LLVMAddFunction(m, name, fty);
    if (LLVMIsDeclaration(to))
      missing = 1;
    LLVMReplaceAllUsesWith(f, to);
    LLVMDeleteFunction(f);
    f = next;
  }
  return missing;
}

/* libdevice's bitcode: $ZYMASE_LIBDEVICE, else under $CUDA_PATH or the
 * usual install places. */
static const char *libdevice_path(char *buf, size_t size) {
  const char *env = getenv("ZYMASE_LIBDEVICE");
  if (env && *env)
    return env;
  const char *roots[] = {getenv("ZYMASE_CUDA_PATH"), getenv("CUDA_PATH"),
                         getenv("CUDA_HOME"), "/usr/local/cuda",
                         "/usr/lib/cuda"};
  for (size_t k = 0; k < sizeof roots / sizeof *roots; k++) {
    if (!roots[k] || !*roots[k])
      continue;
    snprintf(buf, size, "%s/nvvm/libdevice/libdevice.10.bc", roots[k]);
    if (!access(buf, R_OK))
      return buf;
  }
  return NULL;
}

/* A call of a device math function that is still only declared, for the
 * error's location. */
static LLVMValueRef declared_math_call(LLVMModuleRef m, LLVMValueRef *fn) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
       f = LLVMGetNextFunction(f)) {
    if (!LLVMIsDeclaration(f) || !math_name(LLVMGetValueName(f)))
      continue;
    for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef i = LLVMGetUser(u);
      if (LLVMIsACallInst(i)) {
        *fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(i));
        return i;
      }
    }
  }
  return NULL;
}

/* Whether the module has libdevice linked in (a CUDA compilation for a
 * real GPU; the GPU-on-CPU mode passes -nocudalib and has the runtime's
 * __nv_* instead). */
static int has_libdevice(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && !strncmp(LLVMGetValueName(f), "__nv_", 5))
      return 1;
  return 0;
}

int zy_gpu_math_finish(LLVMModuleRef m) {
  if (!gpu_module(m))
    return 0;
  int native = target_is(m, "nvptx") && has_libdevice(m);
  if (lower_intrinsics(m) && native) {
    char buf[4096], *err = NULL;
    const char *path = libdevice_path(buf, sizeof buf);
    if (!path || zy_llvm_link_needed(m, path, &err)) {
      LLVMValueRef fn = NULL, call = declared_math_call(m, &fn);
      zy_error(ZY_ERR_UNSUPPORTED, fn, call,
               "set ZYMASE_LIBDEVICE to CUDA's nvvm/libdevice/libdevice.10.bc",
               "the derivative calls device math that the module lacks, and "
               "libdevice %s%s",
               path ? "could not be linked: " : "was not found",
               err ? err : "");
      free(err);
      return -1;
    }
  }
  /* The kept functions get their attributes back; with libdevice, they
   * and what was linked (alwaysinline) are inlined as clang would have. */
  unsigned always = attr_kind("alwaysinline"), never = attr_kind("noinline");
  unsigned idx = (unsigned)LLVMAttributeFunctionIndex;
  LLVMContextRef c = LLVMGetModuleContext(m);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f;
       f = LLVMGetNextFunction(f)) {
    LLVMAttributeRef kept =
        LLVMGetStringAttributeAtIndex(f, idx, KEPT, sizeof KEPT - 1);
    if (!kept)
      continue;
    unsigned len;
    int always_before = 0, linkage = (int)LLVMInternalLinkage;
    sscanf(LLVMGetStringAttributeValue(kept, &len), "%d %d", &always_before,
           &linkage);
    LLVMSetLinkage(f, (LLVMLinkage)linkage);
    LLVMRemoveStringAttributeAtIndex(f, idx, KEPT, sizeof KEPT - 1);
    LLVMRemoveEnumAttributeAtIndex(f, idx, never);
    if (always_before)
      LLVMAddAttributeAtIndex(f, idx, LLVMCreateEnumAttribute(c, always, 0));
  }
  if (native)
    zy_llvm_always_inline(m);
  return 0;
}
