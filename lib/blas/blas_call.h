/* blas_call.h - what blas.c and blas_adjoint.c share: one BLAS call being
 * differentiated, its arguments in forward and reverse, the caches, and
 * the emission of BLAS calls and helper loops in the reverse sweep.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_AD_BLAS_CALL_H
#define ZY_AD_BLAS_CALL_H

#include "ad/ad.h"
#include "blas.h"

#define ZY_BLAS_MAXARGS 14

/* The adjoint builders run three times per call: twice while planning in
 * the forward sweep (before and after the copy of the call: requests of
 * caches are honoured there, every emission is skipped), then in the
 * reverse sweep, where the requests return the cached arrays.  The
 * tangent builders (forward mode) run twice per direction: before the
 * copy of the call (the inputs it overwrites still hold their values)
 * and after it (its results are there). */
enum {
  ZY_BLAS_BEFORE,
  ZY_BLAS_AFTER,
  ZY_BLAS_REVERSE,
  ZY_BLAS_TAN_BEFORE,
  ZY_BLAS_TAN_AFTER
};

typedef struct ZyBlasCall {
  ZyGen *g;
  LLVMValueRef call;
  const ZyBlasRoutine *r;
  int fortran, single, phase;
  unsigned off; /* operand index of argument 0 (1 after a layout) */
  int rowmajor;
  char mode[ZY_BLAS_MAXARGS]; /* T/U/D/S arguments: N T / U L / N U / L R */
  LLVMValueRef fval[ZY_BLAS_MAXARGS]; /* forward values of scalars      */
  LLVMValueRef rval[ZY_BLAS_MAXARGS]; /* ... reloaded in the reverse    */
  /* Forward copies of arrays: [k] taken before the call, [ZY_BLAS_MAXARGS
   * + k] after it; and the same reloaded in the reverse. */
  LLVMValueRef cache[2 * ZY_BLAS_MAXARGS];
  LLVMValueRef rcache[2 * ZY_BLAS_MAXARGS];
  LLVMValueRef d; /* adjoint of the result                          */
  LLVMTypeRef ft, i32, i64, ptr;
} ZyBlasCall;

/* Whether the builder only plans (forward sweep). */
static inline int zy_blas_planning(ZyBlasCall *c) {
  return c->phase == ZY_BLAS_BEFORE || c->phase == ZY_BLAS_AFTER;
}

/* Primal operand of argument k. */
LLVMValueRef zy_blas_arg(ZyBlasCall *c, unsigned k);
/* Argument k carries derivatives: an array with a shadow, an active
 * scalar (Fortran: a scalar in memory with a shadow). */
int zy_blas_active(ZyBlasCall *c, unsigned k);
/* The value of scalar argument k (forward value while planning and in
 * forward mode). */
LLVMValueRef zy_blas_val(ZyBlasCall *c, unsigned k);
/* Forward mode: the pointer of array k; the tangent of argument k in the
 * current direction (the shadow of an array, the tangent of a scalar),
 * NULL where it has none; sets the tangent of the result to `t`. */
LLVMValueRef zy_blas_ptr(ZyBlasCall *c, unsigned k);
LLVMValueRef zy_blas_tan(ZyBlasCall *c, unsigned k);
void zy_blas_set_result_tangent(ZyBlasCall *c, LLVMValueRef t);
/* A copy of the vector (n, inc) / column-major matrix (rows, cols, ld)
 * of argument k taken before (`after` 0) or after the call; in the
 * reverse its pointer (same increments and leading dimension). */
LLVMValueRef zy_blas_vec(ZyBlasCall *c, unsigned k, LLVMValueRef n,
                         LLVMValueRef inc, int after);
LLVMValueRef zy_blas_mat(ZyBlasCall *c, unsigned k, LLVMValueRef rows,
                         LLVMValueRef cols, LLVMValueRef ld, int after);
/* Reverse: the shadow of array k; adds `v` to the adjoint of scalar k. */
LLVMValueRef zy_blas_shadow(ZyBlasCall *c, unsigned k);
void zy_blas_add_scalar(ZyBlasCall *c, unsigned k, LLVMValueRef v);
/* Calls BLAS routine `name` ("gemm") of the call's precision and
 * ABI with arguments `args` described by `letters` (as in blas.def; a
 * T/U/D/S argument is an i8 constant 'N', 'T', ...), in column-major
 * layout; returns the call. */
LLVMValueRef zy_blas_emit(ZyBlasCall *c, const char *name, const char *letters,
                          LLVMValueRef *args);
/* Helper loops over an m x n column-major matrix (ld), or a strided
 * vector (m = 1, ld = increment):
 *   ZY_BLAS_LOOP_DOT      returns sum X .* Y
 *   ZY_BLAS_LOOP_SCAL     X *= s (X = 0 when s is 0)
 *   ZY_BLAS_LOOP_SIGN     Y += s * sign(X)
 *   ZY_BLAS_LOOP_SIGNDOT  returns sum sign(X) .* Y
 *   ZY_BLAS_LOOP_ADD      Y += s * X
 *   ZY_BLAS_LOOP_TRI + t  Y += s * X on a triangle (row i, column j):
 *                         t = 0: i <= j, 1: i >= j, 2: i < j, 3: i > j */
enum {
  ZY_BLAS_LOOP_DOT,
  ZY_BLAS_LOOP_SCAL,
  ZY_BLAS_LOOP_SIGN,
  ZY_BLAS_LOOP_SIGNDOT,
  ZY_BLAS_LOOP_ADD,
  ZY_BLAS_LOOP_TRI
};
/* The ZY_BLAS_LOOP_TRI offset for triangle `uplo` ('U' or 'L'), without
 * its diagonal when `strict`. */
static inline int zy_blas_tri(char uplo, int strict) {
  return (uplo == 'U' ? 0 : 1) + (strict ? 2 : 0);
}
LLVMValueRef zy_blas_loop(ZyBlasCall *c, int kind, LLVMValueRef m,
                          LLVMValueRef n, LLVMValueRef x, LLVMValueRef ldx,
                          LLVMValueRef y, LLVMValueRef ldy, LLVMValueRef s);
/* A zeroed scratch array of `n` elements, and its release. */
LLVMValueRef zy_blas_scratch(ZyBlasCall *c, LLVMValueRef n);
void zy_blas_release(ZyBlasCall *c, LLVMValueRef p);

/* The other transpose ('N' <-> 'T') and triangle ('U' <-> 'L'). */
static inline char zy_blas_flip(char t) { return t == 'N' ? 'T' : 'N'; }
static inline char zy_blas_flip_uplo(char u) { return u == 'U' ? 'L' : 'U'; }
/* n when inc > 0, else 0 (routines that do nothing for inc <= 0); |v|. */
LLVMValueRef zy_blas_n_if_positive(ZyBlasCall *c, LLVMValueRef n,
                                   LLVMValueRef inc);
LLVMValueRef zy_blas_abs_int(ZyBlasCall *c, LLVMValueRef v);

/* Constants. */
LLVMValueRef zy_blas_int(ZyBlasCall *c, long long v);
LLVMValueRef zy_blas_fp(ZyBlasCall *c, double v);
LLVMValueRef zy_blas_mode(ZyBlasCall *c, char m);

/* The adjoint builders (blas_adjoint.c), named in blas.def. */
int zy_blas_adj_dot(ZyBlasCall *c);
int zy_blas_adj_axpy(ZyBlasCall *c);
int zy_blas_adj_scal(ZyBlasCall *c);
int zy_blas_adj_copy(ZyBlasCall *c);
int zy_blas_adj_nrm2(ZyBlasCall *c);
int zy_blas_adj_asum(ZyBlasCall *c);
int zy_blas_adj_gemv(ZyBlasCall *c);
int zy_blas_adj_ger(ZyBlasCall *c);
int zy_blas_adj_gemm(ZyBlasCall *c);
int zy_blas_adj_syrk(ZyBlasCall *c);
int zy_blas_adj_trsv(ZyBlasCall *c);
int zy_blas_adj_trsm(ZyBlasCall *c);

/* The tangent builders (blas_tangent.c), named in blas.def. */
int zy_blas_tan_dot(ZyBlasCall *c);
int zy_blas_tan_axpy(ZyBlasCall *c);
int zy_blas_tan_scal(ZyBlasCall *c);
int zy_blas_tan_copy(ZyBlasCall *c);
int zy_blas_tan_nrm2(ZyBlasCall *c);
int zy_blas_tan_asum(ZyBlasCall *c);
int zy_blas_tan_gemv(ZyBlasCall *c);
int zy_blas_tan_ger(ZyBlasCall *c);
int zy_blas_tan_gemm(ZyBlasCall *c);
int zy_blas_tan_syrk(ZyBlasCall *c);
int zy_blas_tan_trsv(ZyBlasCall *c);
int zy_blas_tan_trsm(ZyBlasCall *c);

#endif
