/* blas.h - calls to BLAS routines (CBLAS names and the Fortran ABI),
 * differentiated by calling BLAS in the adjoint: recognition, the checks,
 * the caches of the forward sweep and the adjoint calls of the reverse.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_AD_BLAS_H
#define ZY_AD_BLAS_H

#include <llvm-c/Core.h>

struct ZyBlasCall;
struct ZyGen;

/* One row of blas.def. */
typedef struct ZyBlasRoutine {
  const char *name; /* "gemm"                                          */
  const char *args; /* argument letters (see blas.def)                 */
  int returns;      /* returns a floating-point value                  */
  int (*adjoint)(struct ZyBlasCall *); /* NULL: not differentiated yet    */
} ZyBlasRoutine;

/* The routine `callee` (a declaration) names (cblas_dgemm, dgemm_,
 * cblas_sgemm, sgemm_), or NULL; `fortran` and `single` (may be NULL) tell the ABI and the
 * precision. */
const ZyBlasRoutine *zy_blas_routine(LLVMValueRef callee, int *fortran,
                                     int *single);

/* Whether `callee`'s name looks like a BLAS routine (cblas_*), for errors
 * about routines the table does not have. */
int zy_blas_like(LLVMValueRef callee);

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

/* Frees what the sweeps kept per call. */
void zy_blas_free(struct ZyGen *g);

#endif
