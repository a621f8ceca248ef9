/* irutil.h - small IR-building helpers shared by the sweeps and the rules:
 * constants of any floating-point (vector) type, math functions emitted as
 * intrinsics when this LLVM has them and as libm calls otherwise.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_AD_IRUTIL_H
#define ZY_AD_IRUTIL_H

#include <llvm-c/Core.h>

/* `v` as a constant of type `t` (a float type or a vector of one). */
LLVMValueRef zy_const_fp(LLVMTypeRef t, double v);

/* The scalar element type of a float or float-vector type. */
LLVMTypeRef zy_scalar_type(LLVMTypeRef t);

/* Calls math function `name` ("cos", "pow", ...) on `n` arguments of one
 * float (vector) type: the intrinsic llvm.<name> when it exists, else the
 * libm function for the type (cos, cosf, cosl), lane by lane on vectors. */
LLVMValueRef zy_math(LLVMBuilderRef b, const char *name, LLVMValueRef *args,
                     unsigned n);
LLVMValueRef zy_math1(LLVMBuilderRef b, const char *name, LLVMValueRef x);

/* llvm.powi(x, n) with an i32 exponent. */
LLVMValueRef zy_powi(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef n);

/* digamma(x), the derivative of lgamma, from a helper function that is
 * emitted into the module once per type. */
LLVMValueRef zy_digamma(LLVMBuilderRef b, LLVMValueRef x);

/* Marks `fn` optnone and noinline (the optimizer leaves it alone), or
 * removes both (it is simplified like any function). */
void zy_set_optnone(LLVMValueRef fn, int on);

/* The declaration of C runtime function `name` in `m` (declared with
 * `fty` if missing); and calls to malloc(bytes) and free(p). */
LLVMValueRef zy_runtime_fn(LLVMModuleRef m, const char *name, LLVMTypeRef fty);
LLVMValueRef zy_call_malloc(LLVMBuilderRef b, LLVMValueRef bytes,
                            const char *name);
void zy_call_free(LLVMBuilderRef b, const char *fn, LLVMValueRef p);
/* malloc_usable_size(p), an i64: the usable bytes of heap block p (0 for
 * null). */
LLVMValueRef zy_call_usable_size(LLVMBuilderRef b, LLVMValueRef p);

/* Copies `bytes` bytes from `src` to `dst` as whole elements of type `t`
 * (the rest zeroed): memcpy with the type in the code, so that the copy
 * can be differentiated again (nested AD) where nothing else tells the
 * memory's type.  A helper function emitted once per type. */
void zy_typed_copy(LLVMBuilderRef b, LLVMTypeRef t, LLVMValueRef dst,
                   LLVMValueRef src, LLVMValueRef bytes);

/* GEP constant expression `c` rebuilt on `base` instead of its pointer
 * (same indices, same inbounds flag); NULL beyond 16 indices. */
LLVMValueRef zy_const_gep_on(LLVMValueRef c, LLVMValueRef base);

/* Whether `m` is device code: a CUDA or HIP device module (triple nvptx*
 * or amdgcn*). */
int zy_device_module(LLVMModuleRef m);

/* The function and module the builder is positioned in. */
LLVMValueRef zy_builder_function(LLVMBuilderRef b);
LLVMModuleRef zy_builder_module(LLVMBuilderRef b);

#endif
