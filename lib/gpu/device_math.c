/* device_math.c - the GPU's math library after AD: the gradients call
 * libdevice's __nv_* (and ocml's __ocml_*) functions, or snapshot.c's
 * copies of them, whose rules applied (their bodies of nvvm intrinsics are
 * not differentiated); now they are inlined into the gradients as clang
 * inlines them into the program.  The math the derivatives call is made
 * device math, and on nvptx what libdevice has of it and the module lacks
 * is linked in.  The program's own functions are never touched.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "gpu.h"

#include "ir/irutil.h"
#include "support/diag.h"
#include "llvm/glue.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int target_is(LLVMModuleRef m, const char *prefix) {
  const char *t = LLVMGetTarget(m);
  return t && !strncmp(t, prefix, strlen(prefix));
}

static int math_name(const char *n) {
  return !strncmp(n, "__nv_", 5) || !strncmp(n, "__ocml_", 7);
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

/* Whether `f` was made by the plugin (a gradient, a helper, a copy of
 * snapshot.c, what was linked for them): not one of the program's
 * functions with a body, `user`. */
static int made_by_ad(LLVMValueRef f, const ZyMap *user) {
  return !zy_map_has(user, f);
}

/* The calls in the plugin's functions, for which `want` holds. */
static void calls_in_ad(LLVMModuleRef m, const ZyMap *user,
                        int (*want)(LLVMValueRef callee), ZyVec *out) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (made_by_ad(f, user))
      for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
           bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
             i = LLVMGetNextInstruction(i)) {
          LLVMValueRef c = LLVMIsACallInst(i) ? LLVMGetCalledValue(i) : NULL;
          if (c && LLVMIsAFunction(c) && want(c))
            zy_vec_push(out, i);
        }
}

static int lowered_intrinsic(LLVMValueRef callee) {
  char name[64];
  return LLVMGetIntrinsicID(callee) &&
         device_name(LLVMGetGlobalParent(callee), LLVMGetValueName(callee),
                     name, sizeof name);
}

/* In the plugin's functions, calls of math intrinsics the backend cannot
 * select become calls of the device library (the program's own calls of
 * them, if any, are left to the backend).  Returns whether a called
 * function is only declared. */
static int lower_intrinsics(LLVMModuleRef m, const ZyMap *user) {
  int missing = 0;
  ZyVec calls = {0};
  calls_in_ad(m, user, lowered_intrinsic, &calls);
  for (size_t k = 0; k < calls.len; k++) {
    LLVMValueRef call = calls.data[k], f = LLVMGetCalledValue(call);
    char name[64];
    device_name(m, LLVMGetValueName(f), name, sizeof name);
    LLVMValueRef to = LLVMGetNamedFunction(m, name);
    if (!to)
      to = LLVMAddFunction(m, name, LLVMGlobalGetValueType(f));
    if (LLVMIsDeclaration(to))
      missing = 1;
    LLVMSetOperand(call, LLVMGetNumOperands(call) - 1, to);
    if (!LLVMGetFirstUse(f))
      LLVMDeleteFunction(f);
  }
  zy_vec_free(&calls);
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
 * real GPU; the GPU-on-CPU mode may pass -nocudalib and have the runtime's
 * __nv_* instead). */
static int has_libdevice(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && !strncmp(LLVMGetValueName(f), "__nv_", 5))
      return 1;
  return 0;
}

static int always_inline(LLVMValueRef f) {
  return LLVMGetEnumAttributeAtIndex(
             f, (unsigned)LLVMAttributeFunctionIndex,
             LLVMGetEnumAttributeKindForName("alwaysinline", 12)) != NULL;
}

/* A device math function with a body (libdevice's, linked or copied by
 * snapshot.c), or a function clang would always inline. */
static int inlined_after_ad(LLVMValueRef f) {
  return !LLVMIsDeclaration(f) && !LLVMGetIntrinsicID(f) &&
         (math_name(LLVMGetValueName(f)) || always_inline(f));
}

int zy_gpu_math_finish(LLVMModuleRef m, const ZyMap *user) {
  if (!zy_device_module(m))
    return 0;
  int native = target_is(m, "nvptx") && has_libdevice(m);
  if (lower_intrinsics(m, user) && native) {
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
  /* The math the gradients call is inlined into them, as clang inlines
   * libdevice into the program's functions; what it brings is inlined in
   * turn.  The program's functions are not touched. */
  for (int round = 0; round < 64; round++) {
    ZyVec calls = {0};
    calls_in_ad(m, user, inlined_after_ad, &calls);
    int inlined = 0;
    for (size_t k = 0; k < calls.len; k++)
      inlined |= zy_llvm_inline_call(calls.data[k]);
    zy_vec_free(&calls);
    if (!inlined)
      break;
  }
  /* What was linked or copied for the gradients and is now unused. */
  for (int changed = 1; changed;) {
    changed = 0;
    for (LLVMValueRef f = LLVMGetFirstFunction(m), next; f; f = next) {
      next = LLVMGetNextFunction(f);
      LLVMLinkage l = LLVMGetLinkage(f);
      if (made_by_ad(f, user) && !LLVMGetFirstUse(f) && !LLVMIsDeclaration(f) &&
          (l == LLVMInternalLinkage || l == LLVMPrivateLinkage)) {
        LLVMDeleteFunction(f);
        changed = 1;
      }
    }
  }
  return 0;
}
