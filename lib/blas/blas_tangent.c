/* blas_tangent.c - the tangents (forward mode) of the BLAS routines of
 * blas.def, made of BLAS calls on the shadows by the product rule, one
 * term per argument that carries a tangent.  Each builder runs twice per
 * direction: before the copy of the call (phase ZY_BLAS_TAN_BEFORE: the
 * arrays the call overwrites still hold their inputs) and after it
 * (ZY_BLAS_TAN_AFTER: the results are there, which the tangents of the
 * returned norm and of the triangular solves need).  Level 2 and 3
 * routines bring row-major calls to column-major first, as the adjoints
 * do (blas_adjoint.c).
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "blas_call.h"

#define V(k) zy_blas_val(c, k)
#define ACT(k) zy_blas_active(c, k)
#define D(k) zy_blas_tan(c, k)
#define P(k) zy_blas_ptr(c, k)
#define I(v) zy_blas_int(c, v)
#define F(v) zy_blas_fp(c, v)
#define MODE(m) zy_blas_mode(c, m)
#define EMIT(name, letters, ...)                                               \
  zy_blas_emit(c, name, letters, (LLVMValueRef[]){__VA_ARGS__})

static int before(ZyBlasCall *c) { return c->phase == ZY_BLAS_TAN_BEFORE; }

/* The tangent of scalar argument k, NULL where it has none. */
static LLVMValueRef scalar(ZyBlasCall *c, unsigned k) {
  return ACT(k) ? D(k) : NULL;
}

/* a + b, NULL standing for zero. */
static LLVMValueRef add(ZyBlasCall *c, LLVMValueRef a, LLVMValueRef b) {
  return !a ? b : !b ? a : LLVMBuildFAdd(c->g->b, a, b, "");
}

/* Whether `v` is the constant 1 (no scaling to do). */
static int is_one(LLVMValueRef v) {
  LLVMBool lost;
  return LLVMIsAConstantFP(v) && LLVMConstRealGetDouble(v, &lost) == 1.0;
}

static int result_active(ZyBlasCall *c) {
  return zy_activity_active(c->g->act, c->call);
}

/* r = dot(x, y): dr = dot(dx, y) + dot(x, dy). */
int zy_blas_tan_dot(ZyBlasCall *c) {
  if (before(c) || !result_active(c))
    return 0;
  LLVMValueRef r = NULL;
  if (ACT(1))
    r = EMIT("dot", "nxixi", V(0), D(1), V(2), P(3), V(4));
  if (ACT(3))
    r = add(c, r, EMIT("dot", "nxixi", V(0), P(1), V(2), D(3), V(4)));
  zy_blas_set_result_tangent(c, r);
  return 0;
}

/* y += a x: dy += a dx + da x. */
int zy_blas_tan_axpy(ZyBlasCall *c) {
  if (!before(c) || !ACT(4))
    return 0;
  if (ACT(2))
    EMIT("axpy", "naxiyi", V(0), V(1), D(2), V(3), D(4), V(5));
  LLVMValueRef da = scalar(c, 1);
  if (da)
    EMIT("axpy", "naxiyi", V(0), da, P(2), V(3), D(4), V(5));
  return 0;
}

/* x *= a: dx = a dx + da x (x before the call). */
int zy_blas_tan_scal(ZyBlasCall *c) {
  if (!before(c) || !ACT(2))
    return 0;
  LLVMValueRef n = zy_blas_n_if_positive(c, V(0), V(3));
  EMIT("scal", "nayi", n, V(1), D(2), V(3));
  LLVMValueRef da = scalar(c, 1);
  if (da)
    EMIT("axpy", "naxiyi", n, da, P(2), V(3), D(2), V(3));
  return 0;
}

/* y = x: dy = dx (zero for an x without tangent). */
int zy_blas_tan_copy(ZyBlasCall *c) {
  if (!before(c) || !ACT(3))
    return 0;
  if (ACT(1))
    EMIT("copy", "nxiyi", V(0), D(1), V(2), D(3), V(4));
  else
    zy_blas_loop(c, ZY_BLAS_LOOP_SCAL, I(1), V(0), D(3),
                 zy_blas_abs_int(c, V(4)), NULL, NULL, F(0));
  return 0;
}

/* r = nrm2(x): dr = dot(x, dx) / r (0 where r is 0). */
int zy_blas_tan_nrm2(ZyBlasCall *c) {
  if (before(c) || !result_active(c) || !ACT(1))
    return 0;
  LLVMBuilderRef b = c->g->b;
  LLVMValueRef r = zy_map_get(&c->g->vmap, c->call);
  LLVMValueRef t = EMIT("dot", "nxixi", V(0), P(1), V(2), D(1), V(2));
  zy_blas_set_result_tangent(
      c, LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOEQ, r, F(0), ""), F(0),
                         LLVMBuildFDiv(b, t, r, ""), ""));
  return 0;
}

/* r = asum(x): dr = sum sign(x) dx. */
int zy_blas_tan_asum(ZyBlasCall *c) {
  if (before(c) || !result_active(c) || !ACT(1))
    return 0;
  zy_blas_set_result_tangent(c,
                             zy_blas_loop(c, ZY_BLAS_LOOP_SIGNDOT, I(1),
                                          zy_blas_n_if_positive(c, V(0), V(2)),
                                          P(1), V(2), D(1), V(2), NULL));
  return 0;
}

/* y = a op(A) x + b y: dy = a op(A) dx + a op(dA) x + da op(A) x + b dy
 * + db y (y before the call); the first term applies b to dy. */
int zy_blas_tan_gemv(ZyBlasCall *c) {
  if (!before(c) || !ACT(9))
    return 0;
  char t = c->rowmajor ? zy_blas_flip(c->mode[0]) : c->mode[0];
  LLVMValueRef m = c->rowmajor ? V(2) : V(1), n = c->rowmajor ? V(1) : V(2);
  LLVMValueRef leny = t == 'N' ? m : n, beta = V(8), dy = D(9);
  LLVMValueRef da = scalar(c, 3), db = scalar(c, 8);
  int scaled = is_one(beta);
  /* the three products: (alpha, A, x) with one factor's tangent */
  for (int term = 0; term < 3; term++) {
    LLVMValueRef al = V(3), A = P(4), x = P(6);
    if (term == 0 && ACT(6))
      x = D(6);
    else if (term == 1 && ACT(4))
      A = D(4);
    else if (term == 2 && da)
      al = da;
    else
      continue;
    EMIT("gemv", "TnnaAlxiayi", MODE(t), m, n, al, A, V(5), x, V(7),
         scaled ? F(1) : beta, dy, V(10));
    scaled = 1;
  }
  if (!scaled)
    zy_blas_loop(c, ZY_BLAS_LOOP_SCAL, I(1), leny, dy,
                 zy_blas_abs_int(c, V(10)), NULL, NULL, beta);
  if (db)
    EMIT("axpy", "naxiyi", leny, db, P(9), V(10), dy, V(10));
  return 0;
}

/* A += a x y^T: dA += a dx y^T + a x dy^T + da x y^T. */
int zy_blas_tan_ger(ZyBlasCall *c) {
  if (!before(c) || !ACT(7))
    return 0;
  unsigned ix = c->rowmajor ? 5 : 3, iy = c->rowmajor ? 3 : 5;
  LLVMValueRef m = c->rowmajor ? V(1) : V(0), n = c->rowmajor ? V(0) : V(1);
  LLVMValueRef incx = V(ix + 1), incy = V(iy + 1), dA = D(7);
  LLVMValueRef da = scalar(c, 2);
  if (ACT(ix))
    EMIT("ger", "nnaxixiCl", m, n, V(2), D(ix), incx, P(iy), incy, dA, V(8));
  if (ACT(iy))
    EMIT("ger", "nnaxixiCl", m, n, V(2), P(ix), incx, D(iy), incy, dA, V(8));
  if (da)
    EMIT("ger", "nnaxixiCl", m, n, da, P(ix), incx, P(iy), incy, dA, V(8));
  return 0;
}

/* C = a op(A) op(B) + b C: dC = a op(dA) op(B) + a op(A) op(dB)
 * + da op(A) op(B) + b dC + db C (C before the call). */
int zy_blas_tan_gemm(ZyBlasCall *c) {
  if (!before(c) || !ACT(11))
    return 0;
  int rm = c->rowmajor;
  unsigned ia = rm ? 8 : 6, ib = rm ? 6 : 8;
  char ta = rm ? c->mode[1] : c->mode[0], tb = rm ? c->mode[0] : c->mode[1];
  LLVMValueRef m = rm ? V(3) : V(2), n = rm ? V(2) : V(3), k = V(4);
  LLVMValueRef lda = V(ia + 1), ldb = V(ib + 1), ldc = V(12);
  LLVMValueRef beta = V(10), dC = D(11);
  LLVMValueRef da = scalar(c, 5), db = scalar(c, 10);
  int scaled = is_one(beta);
  /* the three products: (alpha, A, B) with one factor's tangent */
  for (int term = 0; term < 3; term++) {
    LLVMValueRef al = V(5), A = P(ia), B = P(ib);
    if (term == 0 && ACT(ia))
      A = D(ia);
    else if (term == 1 && ACT(ib))
      B = D(ib);
    else if (term == 2 && da)
      al = da;
    else
      continue;
    EMIT("gemm", "TTnnnaAlAlaCl", MODE(ta), MODE(tb), m, n, k, al, A, lda, B,
         ldb, scaled ? F(1) : beta, dC, ldc);
    scaled = 1;
  }
  if (!scaled)
    zy_blas_loop(c, ZY_BLAS_LOOP_SCAL, m, n, dC, ldc, NULL, NULL, beta);
  if (db)
    zy_blas_loop(c, ZY_BLAS_LOOP_ADD, m, n, P(11), ldc, dC, ldc, db);
  return 0;
}

/* C = a op(A) op(A)^T + b C on triangle `uplo`: there dC = da op(A)
 * op(A)^T + b dC (a syrk), + a (op(dA) op(A)^T + op(A) op(dA)^T) (a
 * syr2k), + db C (C before the call). */
int zy_blas_tan_syrk(ZyBlasCall *c) {
  if (!before(c) || !ACT(8))
    return 0;
  char uplo = c->mode[0], t = c->mode[1];
  if (c->rowmajor)
    uplo = zy_blas_flip_uplo(uplo), t = zy_blas_flip(t);
  LLVMValueRef n = V(2), k = V(3), lda = V(6), ldc = V(9), dC = D(8);
  LLVMValueRef da = scalar(c, 4), db = scalar(c, 7);
  EMIT("syrk", "UTnnaAlaCl", MODE(uplo), MODE(t), n, k, da ? da : F(0), P(5),
       lda, V(7), dC, ldc);
  if (ACT(5))
    EMIT("syr2k", "UTnnaAlAlaCl", MODE(uplo), MODE(t), n, k, V(4), D(5), lda,
         P(5), lda, F(1), dC, ldc);
  if (db)
    zy_blas_loop(c, ZY_BLAS_LOOP_TRI + zy_blas_tri(uplo, 0), n, n, P(8), ldc,
                 dC, ldc, db);
  return 0;
}

/* op(A) x_out = x_in: dx_out = op(A)^-1 (dx_in - op(dA) x_out), dA on the
 * referenced triangle (without its diagonal for a unit diagonal). */
int zy_blas_tan_trsv(ZyBlasCall *c) {
  if (before(c) || !ACT(6))
    return 0;
  char uplo = c->mode[0], t = c->mode[1], diag = c->mode[2];
  if (c->rowmajor)
    uplo = zy_blas_flip_uplo(uplo), t = zy_blas_flip(t);
  LLVMValueRef n = V(3), lda = V(5), inc = V(7), x = P(6), dx = D(6);
  if (ACT(4)) { /* w = op(dA) x by trmv on a copy of x */
    LLVMValueRef w = zy_blas_scratch(c, n);
    EMIT("copy", "nxiyi", n, x, inc, w, I(1));
    EMIT("trmv", "UTDnAlyi", MODE(uplo), MODE(t), MODE(diag), n, D(4), lda, w,
         I(1));
    EMIT("axpy", "naxiyi", n, F(-1), w, I(1), dx, inc);
    if (diag == 'U') /* trmv added x itself */
      EMIT("axpy", "naxiyi", n, F(1), x, inc, dx, inc);
    zy_blas_release(c, w);
  }
  EMIT("trsv", "UTDnAlyi", MODE(uplo), MODE(t), MODE(diag), n, P(4), lda, dx,
       inc);
  return 0;
}

/* B := a op(A)^-1 B (side L) or a B op(A)^-1 (side R), X the result:
 * dX = op(A)^-1 (a dB + da B - op(dA) X) (or (...) op(A)^-1 with X
 * op(dA)).  Before the call dB becomes a dB + da B; after it, the dA
 * term (trmm on a copy of X) and the solve. */
int zy_blas_tan_trsm(ZyBlasCall *c) {
  if (!ACT(9))
    return 0;
  char side = c->mode[0], uplo = c->mode[1], t = c->mode[2], diag = c->mode[3];
  LLVMValueRef m = V(4), n = V(5), lda = V(8), ldb = V(10), dB = D(9);
  if (c->rowmajor) {
    side = side == 'L' ? 'R' : 'L', uplo = zy_blas_flip_uplo(uplo);
    m = V(5), n = V(4);
  }
  int scaled = ACT(6) || ACT(7);
  if (before(c)) {
    LLVMValueRef da = scalar(c, 6);
    if (scaled)
      zy_blas_loop(c, ZY_BLAS_LOOP_SCAL, m, n, dB, ldb, NULL, NULL, V(6));
    if (da)
      zy_blas_loop(c, ZY_BLAS_LOOP_ADD, m, n, P(9), ldb, dB, ldb, da);
    return 0;
  }
  if (ACT(7)) { /* W = op(dA) X (or X op(dA)) by trmm on a copy of X */
    LLVMValueRef X = P(9);
    LLVMValueRef W = zy_blas_scratch(c, LLVMBuildMul(c->g->b, m, n, ""));
    zy_blas_loop(c, ZY_BLAS_LOOP_ADD, m, n, X, ldb, W, m, F(1));
    EMIT("trmm", "SUTDnnaAlCl", MODE(side), MODE(uplo), MODE(t), MODE(diag), m,
         n, F(1), D(7), lda, W, m);
    zy_blas_loop(c, ZY_BLAS_LOOP_ADD, m, n, W, m, dB, ldb, F(-1));
    if (diag == 'U') /* trmm added X itself */
      zy_blas_loop(c, ZY_BLAS_LOOP_ADD, m, n, X, ldb, dB, ldb, F(1));
    zy_blas_release(c, W);
  }
  EMIT("trsm", "SUTDnnaAlCl", MODE(side), MODE(uplo), MODE(t), MODE(diag), m, n,
       scaled ? F(1) : V(6), P(7), lda, dB, ldb);
  return 0;
}
