/* blas.h - calls to BLAS routines (CBLAS names and the Fortran ABI),
 * differentiated by calling BLAS in the adjoint and the tangent:
 * recognition, the checks, the caches of the forward sweep, the adjoint
 * calls of the reverse and the tangent calls of forward mode.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_AD_BLAS_H
#define ZY_AD_BLAS_H

#include "calls/blas_calls.h"

#include <llvm-c/Core.h>

struct ZyBlasCall;
struct ZyGen;

/* Step 4: whether the call to a BLAS routine can be differentiated (a
 * known routine, constant layout and transpose arguments, written arrays
 * with shadows when derivatives reach them); 0 or -1 after an error. */
int zy_blas_check(struct ZyGen *g, LLVMValueRef call);

/* Forward sweep: `after` 0 before the copy of the call (caches of the
 * values the call overwrites), 1 after it (caches of results); 0 or -1. */
int zy_blas_forward(struct ZyGen *g, LLVMValueRef call, int after);

/* Reverse sweep: the adjoint of the call (`d`: adjoint of its result, or
 * NULL); 0 or -1. */
int zy_blas_reverse(struct ZyGen *g, LLVMValueRef call, LLVMValueRef d);

/* Forward mode: the copy of the call and its tangent in every direction
 * (made by the first lane for all); 0 or -1. */
int zy_blas_tangent(struct ZyGen *g, LLVMValueRef call);

/* Frees what the sweeps kept per call. */
void zy_blas_free(struct ZyGen *g);

/* Registers the functions above as the engine's handlers of ZY_CALL_BLAS
 * (ad/runtime.h); at start-up. */
void zy_blas_register(void);

#endif
