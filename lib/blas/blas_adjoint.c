/* blas_adjoint.c - the adjoints of the BLAS routines of blas.def, made of
 * BLAS calls on the shadows.  Each builder first asks for the arrays it
 * needs from the forward sweep (copies taken before or after the call),
 * then, in the reverse sweep, emits the adjoint; level 2 and 3 routines
 * bring row-major calls to column-major first.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "blas_call.h"

#define V(k) zy_blas_val(c, k)
#define ACT(k) zy_blas_active(c, k)
#define SH(k) zy_blas_shadow(c, k)
#define I(v) zy_blas_int(c, v)
#define F(v) zy_blas_fp(c, v)
#define MODE(m) zy_blas_mode(c, m)
#define EMIT(name, letters, ...)                                               \
  zy_blas_emit(c, name, letters, (LLVMValueRef[]){__VA_ARGS__})

/* Whether the returned value carries an adjoint. */
static int result_active(ZyBlasCall *c) {
  return zy_activity_active(c->g->act, c->call);
}

/* r = dot(n, x, incx, y, incy): dx += dr y, dy += dr x. */
int zy_blas_adj_dot(ZyBlasCall *c) {
  int on = result_active(c);
  LLVMValueRef x = on && ACT(3) ? zy_blas_vec(c, 1, V(0), V(2), 0) : NULL;
  LLVMValueRef y = on && ACT(1) ? zy_blas_vec(c, 3, V(0), V(4), 0) : NULL;
  if (zy_blas_planning(c) || !c->d)
    return 0;
  if (ACT(1))
    EMIT("axpy", "naxiyi", V(0), c->d, y, V(4), SH(1), V(2));
  if (ACT(3))
    EMIT("axpy", "naxiyi", V(0), c->d, x, V(2), SH(3), V(4));
  return 0;
}

/* y += a x: dx += a dy, da += dot(x, dy). */
int zy_blas_adj_axpy(ZyBlasCall *c) {
  LLVMValueRef x = ACT(1) ? zy_blas_vec(c, 2, V(0), V(3), 0) : NULL;
  if (zy_blas_planning(c) || !ACT(4))
    return 0;
  if (ACT(1))
    zy_blas_add_scalar(c, 1, EMIT("dot", "nxixi", V(0), x, V(3), SH(4), V(5)));
  if (ACT(2))
    EMIT("axpy", "naxiyi", V(0), V(1), SH(4), V(5), SH(2), V(3));
  return 0;
}

/* x *= a: da += dot(x before, dx), dx *= a. */
int zy_blas_adj_scal(ZyBlasCall *c) {
  LLVMValueRef x = ACT(1) ? zy_blas_vec(c, 2, V(0), V(3), 0) : NULL;
  if (zy_blas_planning(c) || !ACT(2))
    return 0;
  LLVMValueRef n = zy_blas_n_if_positive(c, V(0), V(3));
  if (ACT(1))
    zy_blas_add_scalar(c, 1, EMIT("dot", "nxixi", n, x, V(3), SH(2), V(3)));
  zy_blas_loop(c, ZY_BLAS_LOOP_SCAL, I(1), n, SH(2), V(3), NULL, NULL, V(1));
  return 0;
}

/* y = x: dx += dy, dy = 0. */
int zy_blas_adj_copy(ZyBlasCall *c) {
  if (zy_blas_planning(c) || !ACT(3))
    return 0;
  if (ACT(1))
    EMIT("axpy", "naxiyi", V(0), F(1), SH(3), V(4), SH(1), V(2));
  zy_blas_loop(c, ZY_BLAS_LOOP_SCAL, I(1), V(0), SH(3),
               zy_blas_abs_int(c, V(4)), NULL, NULL, F(0));
  return 0;
}

/* r = nrm2(x): dx += dr x / r (nothing where r is 0). */
int zy_blas_adj_nrm2(ZyBlasCall *c) {
  LLVMValueRef x =
      result_active(c) && ACT(1) ? zy_blas_vec(c, 1, V(0), V(2), 0) : NULL;
  if (zy_blas_planning(c) || !c->d || !ACT(1))
    return 0;
  LLVMBuilderRef b = c->g->b;
  LLVMValueRef r = zy_lookup(c->g, c->call);
  LLVMValueRef t =
      LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOEQ, r, F(0), ""), F(0),
                      LLVMBuildFDiv(b, c->d, r, ""), "");
  EMIT("axpy", "naxiyi", V(0), t, x, V(2), SH(1), V(2));
  return 0;
}

/* r = asum(x): dx += dr sign(x). */
int zy_blas_adj_asum(ZyBlasCall *c) {
  LLVMValueRef x =
      result_active(c) && ACT(1) ? zy_blas_vec(c, 1, V(0), V(2), 0) : NULL;
  if (zy_blas_planning(c) || !c->d || !ACT(1))
    return 0;
  zy_blas_loop(c, ZY_BLAS_LOOP_SIGN, I(1), zy_blas_n_if_positive(c, V(0), V(2)),
               x, V(2), SH(1), V(2), c->d);
  return 0;
}

/* y = a op(A) x + b y, A m x n (column-major after normalization):
 * dA += a dy x^T (or a x dy^T), dx += a op(A)^T dy, da += dot(dy, op(A) x),
 * db += dot(dy, y before), dy *= b. */
int zy_blas_adj_gemv(ZyBlasCall *c) {
  char t = c->rowmajor ? zy_blas_flip(c->mode[0]) : c->mode[0];
  LLVMValueRef m = c->rowmajor ? V(2) : V(1), n = c->rowmajor ? V(1) : V(2);
  LLVMValueRef lenx = t == 'N' ? n : m, leny = t == 'N' ? m : n;
  LLVMValueRef A = ACT(6) || ACT(3) ? zy_blas_mat(c, 4, m, n, V(5), 0) : NULL;
  LLVMValueRef x = ACT(4) || ACT(3) ? zy_blas_vec(c, 6, lenx, V(7), 0) : NULL;
  LLVMValueRef y = ACT(8) ? zy_blas_vec(c, 9, leny, V(10), 0) : NULL;
  if (zy_blas_planning(c) || !ACT(9))
    return 0;
  LLVMValueRef dy = SH(9);
  if (ACT(3)) {
    LLVMValueRef tmp = zy_blas_scratch(c, leny);
    EMIT("gemv", "TnnaAlxiayi", MODE(t), m, n, F(1), A, V(5), x, V(7), F(0),
         tmp, I(1));
    zy_blas_add_scalar(c, 3, EMIT("dot", "nxixi", leny, dy, V(10), tmp, I(1)));
    zy_blas_release(c, tmp);
  }
  if (ACT(8))
    zy_blas_add_scalar(c, 8, EMIT("dot", "nxixi", leny, dy, V(10), y, V(10)));
  if (ACT(4) && t == 'N')
    EMIT("ger", "nnaxixiCl", m, n, V(3), dy, V(10), x, V(7), SH(4), V(5));
  if (ACT(4) && t == 'T')
    EMIT("ger", "nnaxixiCl", m, n, V(3), x, V(7), dy, V(10), SH(4), V(5));
  if (ACT(6))
    EMIT("gemv", "TnnaAlxiayi", MODE(zy_blas_flip(t)), m, n, V(3), A, V(5), dy,
         V(10), F(1), SH(6), V(7));
  zy_blas_loop(c, ZY_BLAS_LOOP_SCAL, I(1), leny, dy, zy_blas_abs_int(c, V(10)),
               NULL, NULL, V(8));
  return 0;
}

/* A += a x y^T, A m x n: dx += a dA y, dy += a dA^T x, da += x^T dA y. */
int zy_blas_adj_ger(ZyBlasCall *c) {
  unsigned ix = c->rowmajor ? 5 : 3, iy = c->rowmajor ? 3 : 5;
  LLVMValueRef m = c->rowmajor ? V(1) : V(0), n = c->rowmajor ? V(0) : V(1);
  LLVMValueRef incx = V(ix + 1), incy = V(iy + 1);
  LLVMValueRef x = ACT(iy) || ACT(2) ? zy_blas_vec(c, ix, m, incx, 0) : NULL;
  LLVMValueRef y = ACT(ix) || ACT(2) ? zy_blas_vec(c, iy, n, incy, 0) : NULL;
  if (zy_blas_planning(c) || !ACT(7))
    return 0;
  LLVMValueRef dA = SH(7);
  if (ACT(ix))
    EMIT("gemv", "TnnaAlxiayi", MODE('N'), m, n, V(2), dA, V(8), y, incy, F(1),
         SH(ix), incx);
  if (ACT(iy))
    EMIT("gemv", "TnnaAlxiayi", MODE('T'), m, n, V(2), dA, V(8), x, incx, F(1),
         SH(iy), incy);
  if (ACT(2)) {
    LLVMValueRef tmp = zy_blas_scratch(c, m);
    EMIT("gemv", "TnnaAlxiayi", MODE('N'), m, n, F(1), dA, V(8), y, incy, F(0),
         tmp, I(1));
    zy_blas_add_scalar(c, 2, EMIT("dot", "nxixi", m, x, incx, tmp, I(1)));
    zy_blas_release(c, tmp);
  }
  return 0;
}

/* C = a op(A) op(B) + b C, op(A) m x k, op(B) k x n (column-major after
 * normalization: a row-major call computes C^T = a op(B)^T op(A)^T). */
int zy_blas_adj_gemm(ZyBlasCall *c) {
  int rm = c->rowmajor;
  unsigned ia = rm ? 8 : 6, ib = rm ? 6 : 8;
  char ta = rm ? c->mode[1] : c->mode[0], tb = rm ? c->mode[0] : c->mode[1];
  LLVMValueRef m = rm ? V(3) : V(2), n = rm ? V(2) : V(3), k = V(4);
  LLVMValueRef lda = V(ia + 1), ldb = V(ib + 1), ldc = V(12);
  LLVMValueRef A = ACT(ib) || ACT(5) ? zy_blas_mat(c, ia, ta == 'N' ? m : k,
                                                   ta == 'N' ? k : m, lda, 0)
                                     : NULL;
  LLVMValueRef B = ACT(ia) || ACT(5) ? zy_blas_mat(c, ib, tb == 'N' ? k : n,
                                                   tb == 'N' ? n : k, ldb, 0)
                                     : NULL;
  LLVMValueRef C = ACT(10) ? zy_blas_mat(c, 11, m, n, ldc, 0) : NULL;
  if (zy_blas_planning(c) || !ACT(11))
    return 0;
  LLVMValueRef dC = SH(11);
  if (ACT(5)) {
    LLVMValueRef mn = LLVMBuildMul(c->g->b, m, n, "");
    LLVMValueRef tmp = zy_blas_scratch(c, mn);
    EMIT("gemm", "TTnnnaAlAlaCl", MODE(ta), MODE(tb), m, n, k, F(1), A, lda, B,
         ldb, F(0), tmp, m);
    zy_blas_add_scalar(
        c, 5, zy_blas_loop(c, ZY_BLAS_LOOP_DOT, m, n, tmp, m, dC, ldc, NULL));
    zy_blas_release(c, tmp);
  }
  if (ACT(10))
    zy_blas_add_scalar(
        c, 10, zy_blas_loop(c, ZY_BLAS_LOOP_DOT, m, n, C, ldc, dC, ldc, NULL));
  if (ACT(ia) && ta == 'N')
    EMIT("gemm", "TTnnnaAlAlaCl", MODE('N'), MODE(zy_blas_flip(tb)), m, k, n,
         V(5), dC, ldc, B, ldb, F(1), SH(ia), lda);
  if (ACT(ia) && ta == 'T')
    EMIT("gemm", "TTnnnaAlAlaCl", MODE(tb), MODE('T'), k, m, n, V(5), B, ldb,
         dC, ldc, F(1), SH(ia), lda);
  if (ACT(ib) && tb == 'N')
    EMIT("gemm", "TTnnnaAlAlaCl", MODE(zy_blas_flip(ta)), MODE('N'), k, n, m,
         V(5), A, lda, dC, ldc, F(1), SH(ib), ldb);
  if (ACT(ib) && tb == 'T')
    EMIT("gemm", "TTnnnaAlAlaCl", MODE('T'), MODE(ta), n, k, m, V(5), dC, ldc,
         A, lda, F(1), SH(ib), ldb);
  zy_blas_loop(c, ZY_BLAS_LOOP_SCAL, m, n, dC, ldc, NULL, NULL, V(10));
  return 0;
}

/* C = a op(A) op(A)^T + b C on triangle `uplo` of C, n x n: with T the
 * triangle of dC, dA += a (T + T^T) op(A) (or op(A)^T ...),
 * da += <T, op(A) op(A)^T>, db += <T, C before>, dC -= (1 - b) T. */
int zy_blas_adj_syrk(ZyBlasCall *c) {
  char uplo = c->mode[0], t = c->mode[1];
  if (c->rowmajor)
    uplo = zy_blas_flip_uplo(uplo), t = zy_blas_flip(t);
  LLVMValueRef n = V(2), k = V(3), lda = V(6), ldc = V(9);
  LLVMValueRef A = ACT(5) || ACT(4) ? zy_blas_mat(c, 5, t == 'N' ? n : k,
                                                  t == 'N' ? k : n, lda, 0)
                                    : NULL;
  LLVMValueRef C = ACT(7) ? zy_blas_mat(c, 8, n, n, ldc, 0) : NULL;
  if (zy_blas_planning(c) || !ACT(8))
    return 0;
  LLVMBuilderRef b = c->g->b;
  LLVMValueRef dC = SH(8), nn = LLVMBuildMul(b, n, n, "");
  int tri = ZY_BLAS_LOOP_TRI + zy_blas_tri(uplo, 0);
  LLVMValueRef T = zy_blas_scratch(c, nn);
  zy_blas_loop(c, tri, n, n, dC, ldc, T, n, F(1));
  if (ACT(4)) {
    LLVMValueRef P = zy_blas_scratch(c, nn);
    EMIT("gemm", "TTnnnaAlAlaCl", MODE(t), MODE(zy_blas_flip(t)), n, n, k, F(1),
         A, lda, A, lda, F(0), P, n);
    zy_blas_add_scalar(
        c, 4, zy_blas_loop(c, ZY_BLAS_LOOP_DOT, n, n, T, n, P, n, NULL));
    zy_blas_release(c, P);
  }
  if (ACT(7))
    zy_blas_add_scalar(
        c, 7, zy_blas_loop(c, ZY_BLAS_LOOP_DOT, n, n, T, n, C, ldc, NULL));
  for (int tr = 0; ACT(5) && tr < 2; tr++) {
    if (t == 'N')
      EMIT("gemm", "TTnnnaAlAlaCl", MODE(tr ? 'T' : 'N'), MODE('N'), n, k, n,
           V(4), T, n, A, lda, F(1), SH(5), lda);
    else
      EMIT("gemm", "TTnnnaAlAlaCl", MODE('N'), MODE(tr ? 'T' : 'N'), k, n, n,
           V(4), A, lda, T, n, F(1), SH(5), lda);
  }
  zy_blas_loop(c, tri, n, n, T, n, dC, ldc, LLVMBuildFSub(b, V(7), F(1), ""));
  zy_blas_release(c, T);
  return 0;
}

/* Adds scratch S (n x n, the gradient of op(A)) to the referenced
 * triangle of dA: the transpose when op is a transpose. */
static void add_triangle(ZyBlasCall *c, LLVMValueRef S, LLVMValueRef n,
                         char uplo, char diag, unsigned ia, LLVMValueRef lda) {
  zy_blas_loop(c, ZY_BLAS_LOOP_TRI + zy_blas_tri(uplo, diag == 'U'), n, n, S, n,
               SH(ia), lda, F(1));
}

/* op(A) x_out = x_in, A n x n triangular: w = op(A)^-T dx (in place),
 * d op(A) = -w x_out^T on the referenced triangle. */
int zy_blas_adj_trsv(ZyBlasCall *c) {
  char uplo = c->mode[0], t = c->mode[1], diag = c->mode[2];
  if (c->rowmajor)
    uplo = zy_blas_flip_uplo(uplo), t = zy_blas_flip(t);
  LLVMValueRef n = V(3), lda = V(5), inc = V(7);
  LLVMValueRef A = ACT(6) ? zy_blas_mat(c, 4, n, n, lda, 0) : NULL;
  LLVMValueRef x = ACT(4) && ACT(6) ? zy_blas_vec(c, 6, n, inc, 1) : NULL;
  if (zy_blas_planning(c) || !ACT(6))
    return 0;
  LLVMValueRef dx = SH(6);
  EMIT("trsv", "UTDnAlyi", MODE(uplo), MODE(zy_blas_flip(t)), MODE(diag), n, A,
       lda, dx, inc);
  if (ACT(4)) {
    LLVMValueRef S = zy_blas_scratch(c, LLVMBuildMul(c->g->b, n, n, ""));
    if (t == 'N')
      EMIT("ger", "nnaxixiCl", n, n, F(-1), dx, inc, x, inc, S, n);
    else
      EMIT("ger", "nnaxixiCl", n, n, F(-1), x, inc, dx, inc, S, n);
    add_triangle(c, S, n, uplo, diag, 4, lda);
    zy_blas_release(c, S);
  }
  return 0;
}

/* B := a op(A)^-1 B (side L, A m x m) or a B op(A)^-1 (side R, A n x n):
 * W = op(A)^-T dB (or dB op(A)^-T), dB = a W, da += <W, B before>,
 * d op(A) = -W X^T (or -X^T W) on the referenced triangle. */
int zy_blas_adj_trsm(ZyBlasCall *c) {
  char side = c->mode[0], uplo = c->mode[1], t = c->mode[2], diag = c->mode[3];
  LLVMValueRef m = V(4), n = V(5), lda = V(8), ldb = V(10);
  if (c->rowmajor) {
    side = side == 'L' ? 'R' : 'L', uplo = zy_blas_flip_uplo(uplo);
    m = V(5), n = V(4);
  }
  LLVMValueRef na = side == 'L' ? m : n;
  LLVMValueRef A = ACT(9) ? zy_blas_mat(c, 7, na, na, lda, 0) : NULL;
  LLVMValueRef X = ACT(7) && ACT(9) ? zy_blas_mat(c, 9, m, n, ldb, 1) : NULL;
  LLVMValueRef B = ACT(6) && ACT(9) ? zy_blas_mat(c, 9, m, n, ldb, 0) : NULL;
  if (zy_blas_planning(c) || !ACT(9))
    return 0;
  LLVMValueRef dB = SH(9);
  int unscaled = ACT(6) || ACT(7);
  EMIT("trsm", "SUTDnnaAlCl", MODE(side), MODE(uplo), MODE(zy_blas_flip(t)),
       MODE(diag), m, n, unscaled ? F(1) : V(6), A, lda, dB, ldb);
  if (ACT(7)) {
    LLVMValueRef S = zy_blas_scratch(c, LLVMBuildMul(c->g->b, na, na, ""));
    LLVMValueRef P = t == 'N' ? dB : X, Q = t == 'N' ? X : dB;
    if (side == 'L') /* -W X^T, or its transpose -X W^T */
      EMIT("gemm", "TTnnnaAlAlaCl", MODE('N'), MODE('T'), m, m, n, F(-1), P,
           ldb, Q, ldb, F(0), S, m);
    else /* -X^T W, or its transpose -W^T X */
      EMIT("gemm", "TTnnnaAlAlaCl", MODE('T'), MODE('N'), n, n, m, F(-1), Q,
           ldb, P, ldb, F(0), S, n);
    add_triangle(c, S, na, uplo, diag, 7, lda);
    zy_blas_release(c, S);
  }
  if (ACT(6))
    zy_blas_add_scalar(
        c, 6, zy_blas_loop(c, ZY_BLAS_LOOP_DOT, m, n, dB, ldb, B, ldb, NULL));
  if (unscaled)
    zy_blas_loop(c, ZY_BLAS_LOOP_SCAL, m, n, dB, ldb, NULL, NULL, V(6));
  return 0;
}
