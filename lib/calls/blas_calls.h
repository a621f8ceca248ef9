/* blas_calls.h - the BLAS routines Zymase knows (blas.def), as the
 * analyses read them: names (CBLAS and Fortran, double and single
 * precision) and what each argument is.  Their adjoints are in blas/.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_CALLS_BLAS_CALLS_H
#define ZY_CALLS_BLAS_CALLS_H

#include <llvm-c/Core.h>

/* One row of blas.def. */
typedef struct ZyBlasRoutine {
  const char *name; /* "gemm"                                          */
  const char *args; /* argument letters (see blas.def)                 */
  int returns;      /* returns a floating-point value                  */
} ZyBlasRoutine;

/* The routine `callee` (a declaration) names (cblas_dgemm, dgemm_,
 * cblas_sgemm, sgemm_), or NULL; `fortran` and `single` (may be NULL) tell the
 * ABI and the precision. */
const ZyBlasRoutine *zy_blas_routine(LLVMValueRef callee, int *fortran,
                                     int *single);

/* The row of blas.def named `name` ("gemm"), or NULL. */
const ZyBlasRoutine *zy_blas_routine_named(const char *name);

/* The row number of `r` in blas.def. */
unsigned zy_blas_routine_index(const ZyBlasRoutine *r);

/* Whether `callee`'s name looks like a BLAS routine (cblas_*), for errors
 * about routines the table does not have. */
int zy_blas_like(LLVMValueRef callee);

#endif
