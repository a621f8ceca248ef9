/* blas.c - calls to BLAS routines (recognized by calls/blas_calls.c): the
 * adjoint and tangent builders of each row of blas.def, the checks, the
 * arguments and caches of one call, and the emission of BLAS calls and
 * helper loops that the builders (blas_adjoint.c, blas_tangent.c) use.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "blas_call.h"

#include "ad/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The adjoint builder of each row of blas.def (blas_adjoint.c). */
static int (*const adjoints[])(ZyBlasCall *) = {
#define ZY_BLAS(name, args, returns, adjoint, tangent) adjoint,
#include "calls/blas.def"
#undef ZY_BLAS
};

/* The tangent builder of each row (blas_tangent.c). */
static int (*const tangents[])(ZyBlasCall *) = {
#define ZY_BLAS(name, args, returns, adjoint, tangent) tangent,
#include "calls/blas.def"
#undef ZY_BLAS
};

static int run_adjoint(ZyBlasCall *c) {
  return adjoints[zy_blas_routine_index(c->r)](c);
}

static int is_array(char l) {
  return l == 'x' || l == 'y' || l == 'A' || l == 'C';
}
static int is_mode(char l) {
  return l == 'T' || l == 'U' || l == 'D' || l == 'S';
}
static int level23(const char *letters) {
  return strchr(letters, 'A') || strchr(letters, 'C');
}

/* The character a Fortran mode argument points to, when constant: a
 * constant string, or a local variable only ever set to one constant. */
static int fortran_char(LLVMValueRef p) {
  while (LLVMIsAConstantExpr(p) && LLVMGetNumOperands(p) &&
         LLVMGetConstOpcode(p) == LLVMGetElementPtr)
    p = LLVMGetOperand(p, 0);
  if (LLVMIsAGlobalVariable(p) && LLVMIsGlobalConstant(p) &&
      LLVMGetInitializer(p)) {
    LLVMValueRef init = LLVMGetInitializer(p);
    if (LLVMIsAConstantDataSequential(init)) {
      size_t n;
      const char *s = LLVMGetAsString(init, &n);
      return n ? s[0] : 0;
    }
    if (LLVMIsAConstantInt(init))
      return (int)LLVMConstIntGetZExtValue(init);
    return 0;
  }
  if (!LLVMIsAAllocaInst(p))
    return 0;
  int ch = 0;
  for (LLVMUseRef u = LLVMGetFirstUse(p); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsAStoreInst(user)) {
      LLVMValueRef v = LLVMGetOperand(user, 0);
      if (LLVMGetOperand(user, 1) != p || !LLVMIsAConstantInt(v))
        return 0;
      int c = (int)(LLVMConstIntGetZExtValue(v) & 0xff);
      if (ch && c != ch)
        return 0;
      ch = c;
    } else if (!LLVMIsACallInst(user) && !LLVMIsALoadInst(user)) {
      return 0;
    }
  }
  return ch;
}

/* Decodes the mode argument with letter `l` at operand `op` into 'N' or
 * 'T' (trans), 'U' or 'L' (uplo), 'N' or 'U' (diag), 'L' or 'R' (side);
 * 0 when it is not a known constant. */
static char decode_mode(ZyBlasCall *c, char l, LLVMValueRef op) {
  if (!c->fortran) {
    if (!LLVMIsAConstantInt(op))
      return 0;
    long long v = LLVMConstIntGetSExtValue(op);
    switch (l) {
    case 'T':
      return v == 111 ? 'N' : v == 112 || v == 113 ? 'T' : 0;
    case 'U':
      return v == 121 ? 'U' : v == 122 ? 'L' : 0;
    case 'D':
      return v == 131 ? 'N' : v == 132 ? 'U' : 0;
    default:
      return v == 141 ? 'L' : v == 142 ? 'R' : 0;
    }
  }
  int ch = fortran_char(op);
  if (ch >= 'a' && ch <= 'z')
    ch -= 'a' - 'A';
  switch (l) {
  case 'T':
    return ch == 'N' ? 'N' : ch == 'T' || ch == 'C' ? 'T' : 0;
  case 'U':
    return ch == 'U' || ch == 'L' ? (char)ch : 0;
  case 'D':
    return ch == 'N' || ch == 'U' ? (char)ch : 0;
  default:
    return ch == 'L' || ch == 'R' ? (char)ch : 0;
  }
}

LLVMValueRef zy_blas_arg(ZyBlasCall *c, unsigned k) {
  return LLVMGetOperand(c->call, c->off + k);
}

/* A new record for `call`, or NULL after an error. */
static ZyBlasCall *blas_new(ZyGen *g, LLVMValueRef call) {
  ZyBlasCall *c = calloc(1, sizeof *c);
  c->g = g;
  c->call = call;
  c->r = zy_blas_routine(LLVMGetCalledValue(call), &c->fortran, &c->single);
  c->off = !c->fortran && level23(c->r->args);
  c->ft = c->single ? LLVMFloatTypeInContext(g->zm->ctx)
                    : LLVMDoubleTypeInContext(g->zm->ctx);
  c->i32 = LLVMInt32TypeInContext(g->zm->ctx);
  c->i64 = LLVMInt64TypeInContext(g->zm->ctx);
  c->ptr = LLVMPointerTypeInContext(g->zm->ctx, 0);
  const char *name = LLVMGetValueName(LLVMGetCalledValue(call));
  g->cur = call;
  if (LLVMGetNumArgOperands(call) < c->off + strlen(c->r->args)) {
    ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                 "the BLAS routine '%s' is called with too few arguments",
                 name);
    free(c);
    return NULL;
  }
  if (c->off) {
    LLVMValueRef o = LLVMGetOperand(call, 0);
    long long v = LLVMIsAConstantInt(o) ? LLVMConstIntGetSExtValue(o) : 0;
    if (v != 101 && v != 102) {
      ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                   "pass CblasRowMajor or CblasColMajor directly",
                   "the layout argument of '%s' is not a constant", name);
      free(c);
      return NULL;
    }
    c->rowmajor = v == 101;
  }
  for (unsigned k = 0; c->r->args[k]; k++)
    if (is_mode(c->r->args[k]) &&
        !(c->mode[k] = decode_mode(c, c->r->args[k], zy_blas_arg(c, k)))) {
      ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                   "pass the transpose, triangle, diagonal and side "
                   "arguments as constants",
                   "argument %u of the BLAS routine '%s' is not a known "
                   "constant",
                   c->off + k + 1, name);
      free(c);
      return NULL;
    }
  return c;
}

/* Whether a Fortran scalar argument in memory may hold a derivative: a
 * local variable is active when an active value is stored to it. */
static int fortran_scalar_active(ZyBlasCall *c, LLVMValueRef p) {
  if (!zy_activity_shadowed(c->g->act, p))
    return 0;
  if (!LLVMIsAAllocaInst(p))
    return 1;
  for (LLVMUseRef u = LLVMGetFirstUse(p); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsAStoreInst(user) && LLVMGetOperand(user, 1) == p &&
        zy_activity_varied(c->g->act, LLVMGetOperand(user, 0)))
      return 1;
    if (!LLVMIsAStoreInst(user) && !LLVMIsACallInst(user) &&
        !LLVMIsALoadInst(user))
      return 1; /* reached some other way */
  }
  return 0;
}

int zy_blas_active(ZyBlasCall *c, unsigned k) {
  LLVMValueRef op = zy_blas_arg(c, k);
  if (is_array(c->r->args[k]))
    return zy_activity_shadowed(c->g->act, op);
  if (c->fortran)
    return fortran_scalar_active(c, op);
  return zy_activity_active(c->g->act, op);
}

int zy_blas_check(ZyGen *g, LLVMValueRef call) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  const char *name = LLVMGetValueName(callee);
  g->cur = call;
  const ZyBlasRoutine *r = zy_blas_routine(callee, NULL, NULL);
  if (!r || !adjoints[zy_blas_routine_index(r)])
    return ZY_GEN_ERROR(
        g, ZY_ERR_NO_RULE,
        "Zymase differentiates ?dot ?axpy ?scal ?copy ?nrm2 ?asum ?gemv "
        "?ger ?gemm ?syrk ?trsv ?trsm (d and s, CBLAS and Fortran names); "
        "pass the arrays "
        "as enzyme_const if no derivative flows through this call",
        "the BLAS routine '%s' is not differentiated yet", name);
  ZyBlasCall *c = blas_new(g, call);
  if (!c)
    return -1;
  int in = 0;
  for (unsigned k = 0; r->args[k]; k++)
    if ((is_array(r->args[k]) || r->args[k] == 'a') && zy_blas_active(c, k))
      in = 1;
  for (unsigned k = 0; in && r->args[k]; k++)
    if ((r->args[k] == 'y' || r->args[k] == 'C') && !zy_blas_active(c, k)) {
      unsigned pos = c->off + k + 1;
      free(c);
      return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                          "pass the array it writes with enzyme_dup",
                          "the BLAS routine '%s' writes derivatives into "
                          "argument %u, which has no shadow",
                          name, pos);
    }
  free(c);
  return 0;
}

/* --- Arguments and caches --------------------------------------------- */

static LLVMValueRef fwd(ZyGen *g, LLVMValueRef v) {
  LLVMValueRef m = zy_map_get(&g->vmap, v);
  return m ? m : v;
}

static LLVMValueRef reload(ZyBlasCall *c, LLVMValueRef fv) {
  if (!LLVMIsAInstruction(fv))
    return fv;
  return zy_reload(c->g, fv, LLVMGetInstructionParent(c->call));
}

LLVMValueRef zy_blas_val(ZyBlasCall *c, unsigned k) {
  if (c->phase != ZY_BLAS_REVERSE)
    return c->fval[k];
  if (!c->rval[k])
    c->rval[k] =
        c->fortran ? reload(c, c->fval[k]) : zy_lookup(c->g, zy_blas_arg(c, k));
  return c->rval[k];
}

static LLVMValueRef get_fn(ZyBlasCall *c, const char *name, LLVMTypeRef ty) {
  LLVMModuleRef m = c->g->zm->mod;
  LLVMValueRef f = LLVMGetNamedFunction(m, name);
  return f ? f : LLVMAddFunction(m, name, ty);
}

static LLVMValueRef call_fn(ZyBlasCall *c, const char *name, LLVMTypeRef ret,
                            LLVMValueRef *args, unsigned n) {
  LLVMTypeRef ts[32];
  for (unsigned k = 0; k < n; k++)
    ts[k] = LLVMTypeOf(args[k]);
  LLVMTypeRef ty = LLVMFunctionType(ret, ts, n, 0);
  return LLVMBuildCall2(c->g->b, ty, get_fn(c, name, ty), args, n, "");
}

static LLVMValueRef bytes(ZyBlasCall *c, LLVMValueRef elems) {
  LLVMBuilderRef b = c->g->b;
  return LLVMBuildMul(b, elems, LLVMConstInt(c->i64, c->single ? 4 : 8, 0), "");
}

/* Copies `elems` elements from the forward pointer of argument k into a
 * new heap buffer (freed by the reverse sweep once used). */
static LLVMValueRef copy_array(ZyBlasCall *c, unsigned k, LLVMValueRef elems) {
  LLVMBuilderRef b = c->g->b;
  LLVMValueRef n = bytes(c, elems);
  LLVMValueRef buf = call_fn(c, "malloc", c->ptr, &n, 1);
  LLVMSetValueName(buf, "zymase.blas.cache");
  LLVMValueRef src = fwd(c->g, zy_blas_arg(c, k));
  LLVMBuildMemCpy(b, buf, 8, src, 1, n);
  return buf;
}

static LLVMValueRef sext(ZyBlasCall *c, LLVMValueRef v) {
  return LLVMBuildSExt(c->g->b, v, c->i64, "");
}

/* In the reverse: the cache of argument k, reloaded. */
static LLVMValueRef want(ZyBlasCall *c, unsigned k, int after) {
  return zy_blas_planning(c) ? NULL
                             : c->rcache[k + (after ? ZY_BLAS_MAXARGS : 0)];
}

LLVMValueRef zy_blas_vec(ZyBlasCall *c, unsigned k, LLVMValueRef n,
                         LLVMValueRef inc, int after) {
  if (!zy_blas_planning(c))
    return want(c, k, after);
  unsigned slot = k + (after ? ZY_BLAS_MAXARGS : 0);
  if (c->phase != (after ? ZY_BLAS_AFTER : ZY_BLAS_BEFORE) || c->cache[slot])
    return NULL;
  LLVMBuilderRef b = c->g->b;
  LLVMValueRef n64 = sext(c, n), inc64 = sext(c, inc);
  LLVMValueRef zero = LLVMConstInt(c->i64, 0, 0),
               one = LLVMConstInt(c->i64, 1, 0);
  LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, inc64, zero, "");
  LLVMValueRef ainc =
      LLVMBuildSelect(b, neg, LLVMBuildNeg(b, inc64, ""), inc64, "");
  LLVMValueRef span = LLVMBuildAdd(
      b, LLVMBuildMul(b, LLVMBuildSub(b, n64, one, ""), ainc, ""), one, "");
  LLVMValueRef pos = LLVMBuildICmp(b, LLVMIntSGT, n64, zero, "");
  c->cache[slot] = copy_array(c, k, LLVMBuildSelect(b, pos, span, zero, ""));
  return NULL;
}

LLVMValueRef zy_blas_mat(ZyBlasCall *c, unsigned k, LLVMValueRef rows,
                         LLVMValueRef cols, LLVMValueRef ld, int after) {
  if (!zy_blas_planning(c))
    return want(c, k, after);
  unsigned slot = k + (after ? ZY_BLAS_MAXARGS : 0);
  if (c->phase != (after ? ZY_BLAS_AFTER : ZY_BLAS_BEFORE) || c->cache[slot])
    return NULL;
  LLVMBuilderRef b = c->g->b;
  LLVMValueRef r64 = sext(c, rows), c64 = sext(c, cols), ld64 = sext(c, ld);
  LLVMValueRef zero = LLVMConstInt(c->i64, 0, 0),
               one = LLVMConstInt(c->i64, 1, 0);
  LLVMValueRef span = LLVMBuildAdd(
      b, LLVMBuildMul(b, LLVMBuildSub(b, c64, one, ""), ld64, ""), r64, "");
  LLVMValueRef pos =
      LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntSGT, r64, zero, ""),
                   LLVMBuildICmp(b, LLVMIntSGT, c64, zero, ""), "");
  c->cache[slot] = copy_array(c, k, LLVMBuildSelect(b, pos, span, zero, ""));
  return NULL;
}

LLVMValueRef zy_blas_ptr(ZyBlasCall *c, unsigned k) {
  return fwd(c->g, zy_blas_arg(c, k));
}

LLVMValueRef zy_blas_tan(ZyBlasCall *c, unsigned k) {
  LLVMValueRef op = zy_blas_arg(c, k);
  if (!zy_blas_active(c, k))
    return NULL;
  if (is_array(c->r->args[k]))
    return zy_shadow_forward_of(c->g, op);
  if (!c->fortran)
    return zy_tangent_or_null(c->g, op);
  return LLVMBuildLoad2(c->g->b, c->ft, zy_shadow_forward_of(c->g, op),
                        "blas.tan");
}

void zy_blas_set_result_tangent(ZyBlasCall *c, LLVMValueRef t) {
  if (t && zy_activity_active(c->g->act, c->call))
    zy_map_put(&c->g->tangent, c->call, t);
}

LLVMValueRef zy_blas_shadow(ZyBlasCall *c, unsigned k) {
  return zy_shadow_lookup(c->g, zy_blas_arg(c, k));
}

void zy_blas_add_scalar(ZyBlasCall *c, unsigned k, LLVMValueRef v) {
  LLVMValueRef op = zy_blas_arg(c, k);
  if (!c->fortran) {
    zy_add_adjoint(c->g, op, v);
    return;
  }
  if (zy_activity_shadowed(c->g->act, op))
    zy_accumulate_shadow(c->g, op, zy_shadow_lookup(c->g, op), v);
}

LLVMValueRef zy_blas_int(ZyBlasCall *c, long long v) {
  return LLVMConstInt(c->i32, (unsigned long long)v, 1);
}

LLVMValueRef zy_blas_fp(ZyBlasCall *c, double v) {
  return LLVMConstReal(c->ft, v);
}

LLVMValueRef zy_blas_mode(ZyBlasCall *c, char m) {
  return LLVMConstInt(LLVMInt8TypeInContext(c->g->zm->ctx), (unsigned char)m,
                      0);
}

LLVMValueRef zy_blas_n_if_positive(ZyBlasCall *c, LLVMValueRef n,
                                   LLVMValueRef inc) {
  LLVMBuilderRef b = c->g->b;
  LLVMValueRef zero = zy_blas_int(c, 0);
  return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, inc, zero, ""), n,
                         zero, "");
}

LLVMValueRef zy_blas_abs_int(ZyBlasCall *c, LLVMValueRef v) {
  LLVMBuilderRef b = c->g->b;
  return LLVMBuildSelect(b,
                         LLVMBuildICmp(b, LLVMIntSLT, v, zy_blas_int(c, 0), ""),
                         LLVMBuildNeg(b, v, ""), v, "");
}

LLVMValueRef zy_blas_scratch(ZyBlasCall *c, LLVMValueRef n) {
  LLVMValueRef args[] = {sext(c, n),
                         LLVMConstInt(c->i64, c->single ? 4 : 8, 0)};
  return call_fn(c, "calloc", c->ptr, args, 2);
}

void zy_blas_release(ZyBlasCall *c, LLVMValueRef p) {
  call_fn(c, "free", LLVMVoidTypeInContext(c->g->zm->ctx), &p, 1);
}

/* --- Emitting BLAS calls ------------------------------------------------ */

static int cblas_enum(char l, char m) {
  switch (l) {
  case 'T':
    return m == 'N' ? 111 : 112;
  case 'U':
    return m == 'U' ? 121 : 122;
  case 'D':
    return m == 'N' ? 131 : 132;
  default:
    return m == 'L' ? 141 : 142;
  }
}

/* A constant one-character string for a Fortran mode argument. */
static LLVMValueRef mode_string(ZyBlasCall *c, char m) {
  char name[32];
  snprintf(name, sizeof name, "zymase.blas.%c", m);
  LLVMModuleRef mod = c->g->zm->mod;
  LLVMValueRef gv = LLVMGetNamedGlobal(mod, name);
  if (gv)
    return gv;
  char s[2] = {m, 0};
  /* The program's own constant string "m", if it has one: a second one
   * would be merged with it after AD, and the program's code would then
   * name this one. */
  for (gv = LLVMGetFirstGlobal(mod); gv; gv = LLVMGetNextGlobal(gv)) {
    LLVMValueRef init = LLVMGetInitializer(gv);
    size_t len;
    if (init && LLVMIsGlobalConstant(gv) && LLVMIsConstantString(init) &&
        LLVMGetUnnamedAddress(gv) != LLVMNoUnnamedAddr &&
        !memcmp(LLVMGetAsString(init, &len), s, 2) && len == 2)
      return gv;
  }
  LLVMValueRef init = LLVMConstStringInContext(c->g->zm->ctx, s, 1, 0);
  gv = LLVMAddGlobal(mod, LLVMTypeOf(init), name);
  LLVMSetInitializer(gv, init);
  LLVMSetGlobalConstant(gv, 1);
  LLVMSetLinkage(gv, LLVMPrivateLinkage);
  LLVMSetUnnamedAddress(gv, LLVMGlobalUnnamedAddr);
  return gv;
}

LLVMValueRef zy_blas_emit(ZyBlasCall *c, const char *name, const char *letters,
                          LLVMValueRef *args) {
  ZyGen *g = c->g;
  char fname[64];
  const ZyBlasRoutine *r = zy_blas_routine_named(name);
  LLVMTypeRef ret = r && r->returns ? c->ft : LLVMVoidTypeInContext(g->zm->ctx);
  char p = c->single ? 's' : 'd';
  LLVMValueRef a[32];
  unsigned n = 0, nmodes = 0;
  if (!c->fortran) {
    snprintf(fname, sizeof fname, "cblas_%c%s", p, name);
    if (level23(letters))
      a[n++] = zy_blas_int(c, 102); /* CblasColMajor */
    for (unsigned k = 0; letters[k]; k++)
      a[n++] = is_mode(letters[k])
                   ? zy_blas_int(
                         c, cblas_enum(letters[k],
                                       (char)LLVMConstIntGetZExtValue(args[k])))
                   : args[k];
    return call_fn(c, fname, ret, a, n);
  }
  snprintf(fname, sizeof fname, "%c%s_", p, name);
  for (unsigned k = 0; letters[k]; k++) {
    char l = letters[k];
    if (is_mode(l)) {
      a[n++] = mode_string(c, (char)LLVMConstIntGetZExtValue(args[k]));
      nmodes++;
    } else if (is_array(l)) {
      a[n++] = args[k];
    } else {
      LLVMValueRef slot = zy_new_slot(g, LLVMTypeOf(args[k]), "blas.arg", 0);
      LLVMBuildStore(g->b, args[k], slot);
      a[n++] = slot;
    }
  }
  for (unsigned k = 0; k < nmodes; k++) /* hidden lengths of the strings */
    a[n++] = LLVMConstInt(LLVMInt64TypeInContext(g->zm->ctx), 1, 0);
  return call_fn(c, fname, ret, a, n);
}

/* --- Helper loops ----------------------------------------------------- */

/* The body of one element of a helper loop at px, py. */
static void loop_element(LLVMBuilderRef b, int kind, LLVMTypeRef ft,
                         LLVMValueRef px, LLVMValueRef py, LLVMValueRef s,
                         LLVMValueRef acc, LLVMValueRef i, LLVMValueRef j) {
  LLVMValueRef zero = LLVMConstReal(ft, 0), one = LLVMConstReal(ft, 1);
  LLVMValueRef x = LLVMBuildLoad2(b, ft, px, "");
  if (kind >= ZY_BLAS_LOOP_TRI) {
    static const LLVMIntPredicate in[] = {LLVMIntSLE, LLVMIntSGE, LLVMIntSLT,
                                          LLVMIntSGT};
    LLVMValueRef on = LLVMBuildICmp(b, in[kind - ZY_BLAS_LOOP_TRI], i, j, "");
    LLVMValueRef y = LLVMBuildLoad2(b, ft, py, "");
    LLVMValueRef sum = LLVMBuildFAdd(b, y, LLVMBuildFMul(b, s, x, ""), "");
    LLVMBuildStore(b, LLVMBuildSelect(b, on, sum, y, ""), py);
  } else if (kind == ZY_BLAS_LOOP_DOT) {
    LLVMValueRef y = LLVMBuildLoad2(b, ft, py, "");
    LLVMValueRef a = LLVMBuildLoad2(b, ft, acc, "");
    LLVMBuildStore(b, LLVMBuildFAdd(b, a, LLVMBuildFMul(b, x, y, ""), ""), acc);
  } else if (kind == ZY_BLAS_LOOP_ADD) {
    LLVMValueRef y = LLVMBuildLoad2(b, ft, py, "");
    LLVMBuildStore(b, LLVMBuildFAdd(b, y, LLVMBuildFMul(b, s, x, ""), ""), py);
  } else if (kind == ZY_BLAS_LOOP_SCAL) {
    LLVMValueRef z = LLVMBuildFCmp(b, LLVMRealOEQ, s, zero, "");
    LLVMBuildStore(
        b, LLVMBuildSelect(b, z, zero, LLVMBuildFMul(b, x, s, ""), ""), px);
  } else {
    LLVMValueRef sg = LLVMBuildSelect(
        b, LLVMBuildFCmp(b, LLVMRealOGT, x, zero, ""), one,
        LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOLT, x, zero, ""),
                        LLVMConstReal(ft, -1), zero, ""),
        "");
    LLVMValueRef y = LLVMBuildLoad2(b, ft, py, "");
    if (kind == ZY_BLAS_LOOP_SIGN) {
      LLVMBuildStore(b, LLVMBuildFAdd(b, y, LLVMBuildFMul(b, s, sg, ""), ""),
                     py);
    } else { /* ZY_BLAS_LOOP_SIGNDOT */
      LLVMValueRef a = LLVMBuildLoad2(b, ft, acc, "");
      LLVMBuildStore(b, LLVMBuildFAdd(b, a, LLVMBuildFMul(b, sg, y, ""), ""),
                     acc);
    }
  }
}

/* The helper function for `kind`: (i32 m, i32 n, ptr x, i32 ldx, ptr y,
 * i32 ldy, fp s) -> fp, two nested loops over j < n, i < m. */
static LLVMValueRef loop_fn(ZyBlasCall *c, int kind) {
  static const char *const kinds[] = {"dot",  "scal", "sign",  "signdot", "add",
                                      "triu", "tril", "triu1", "tril1"};
  char name[64];
  snprintf(name, sizeof name, "zymase.blas.%s.%s", kinds[kind],
           c->single ? "f32" : "f64");
  LLVMModuleRef mod = c->g->zm->mod;
  LLVMValueRef f = LLVMGetNamedFunction(mod, name);
  if (f)
    return f;
  LLVMContextRef ctx = c->g->zm->ctx;
  LLVMTypeRef i32 = c->i32, ft = c->ft, i64 = c->i64;
  LLVMTypeRef ps[] = {i32, i32, c->ptr, i32, c->ptr, i32, ft};
  f = LLVMAddFunction(mod, name, LLVMFunctionType(ft, ps, 7, 0));
  LLVMSetLinkage(f, LLVMInternalLinkage);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(ctx, f, "entry"),
                    outer = LLVMAppendBasicBlockInContext(ctx, f, "outer"),
                    inner = LLVMAppendBasicBlockInContext(ctx, f, "inner"),
                    latch = LLVMAppendBasicBlockInContext(ctx, f, "latch"),
                    exit = LLVMAppendBasicBlockInContext(ctx, f, "exit");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMValueRef p[7];
  for (unsigned k = 0; k < 7; k++)
    p[k] = LLVMGetParam(f, k);
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef acc = LLVMBuildAlloca(b, ft, "acc");
  LLVMBuildStore(b, LLVMConstReal(ft, 0), acc);
  LLVMValueRef zero = LLVMConstInt(i32, 0, 0), one = LLVMConstInt(i32, 1, 0);
  LLVMValueRef ok =
      LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntSGT, p[0], zero, ""),
                   LLVMBuildICmp(b, LLVMIntSGT, p[1], zero, ""), "");
  LLVMBuildCondBr(b, ok, outer, exit);
  LLVMPositionBuilderAtEnd(b, outer);
  LLVMValueRef j = LLVMBuildPhi(b, i32, "j");
  LLVMBuildBr(b, inner);
  LLVMPositionBuilderAtEnd(b, inner);
  LLVMValueRef i = LLVMBuildPhi(b, i32, "i");
  LLVMValueRef jx = LLVMBuildMul(b, LLVMBuildSExt(b, j, i64, ""),
                                 LLVMBuildSExt(b, p[3], i64, ""), "");
  LLVMValueRef jy = LLVMBuildMul(b, LLVMBuildSExt(b, j, i64, ""),
                                 LLVMBuildSExt(b, p[5], i64, ""), "");
  LLVMValueRef i64v = LLVMBuildSExt(b, i, i64, "");
  LLVMValueRef ix = LLVMBuildAdd(b, i64v, jx, ""),
               iy = LLVMBuildAdd(b, i64v, jy, "");
  LLVMValueRef px = LLVMBuildGEP2(b, ft, p[2], &ix, 1, "");
  LLVMValueRef py =
      kind == ZY_BLAS_LOOP_SCAL ? px : LLVMBuildGEP2(b, ft, p[4], &iy, 1, "");
  loop_element(b, kind, ft, px, py, p[6], acc, i, j);
  LLVMValueRef i1 = LLVMBuildAdd(b, i, one, "");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, i1, p[0], ""), inner, latch);
  LLVMPositionBuilderAtEnd(b, latch);
  LLVMValueRef j1 = LLVMBuildAdd(b, j, one, "");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, j1, p[1], ""), outer, exit);
  LLVMPositionBuilderAtEnd(b, exit);
  LLVMBuildRet(b, LLVMBuildLoad2(b, ft, acc, ""));
  LLVMValueRef vs[] = {zero, j1, zero, i1};
  LLVMBasicBlockRef bs[] = {entry, latch, outer, inner};
  LLVMAddIncoming(j, vs, bs, 2);
  LLVMAddIncoming(i, vs + 2, bs + 2, 2);
  LLVMDisposeBuilder(b);
  return f;
}

LLVMValueRef zy_blas_loop(ZyBlasCall *c, int kind, LLVMValueRef m,
                          LLVMValueRef n, LLVMValueRef x, LLVMValueRef ldx,
                          LLVMValueRef y, LLVMValueRef ldy, LLVMValueRef s) {
  LLVMValueRef f = loop_fn(c, kind);
  LLVMValueRef args[] = {m,
                         n,
                         x,
                         ldx,
                         y ? y : LLVMConstNull(c->ptr),
                         ldy ? ldy : zy_blas_int(c, 0),
                         s ? s : zy_blas_fp(c, 0)};
  return LLVMBuildCall2(c->g->b, LLVMGlobalGetValueType(f), f, args, 7, "");
}

/* --- Driving the builders ------------------------------------------------ */

/* The record of `call` with the forward values of its scalars (loaded
 * here when the Fortran ABI passes them by pointer), or NULL after an
 * error. */
static ZyBlasCall *blas_begin(ZyGen *g, LLVMValueRef call) {
  ZyBlasCall *c = blas_new(g, call);
  for (unsigned k = 0; c && c->r->args[k]; k++) {
    char l = c->r->args[k];
    if (is_array(l) || is_mode(l))
      continue;
    LLVMValueRef v = fwd(g, zy_blas_arg(c, k));
    if (c->fortran)
      v = LLVMBuildLoad2(g->b, l == 'a' ? c->ft : c->i32, v, "blas.arg");
    c->fval[k] = v;
  }
  return c;
}

int zy_blas_forward(ZyGen *g, LLVMValueRef call, int after) {
  ZyBlasCall *c = zy_map_get(&g->blas, call);
  if (!after) {
    c = blas_begin(g, call);
    if (!c)
      return -1;
    zy_map_put(&g->blas, call, c);
  }
  c->phase = after ? ZY_BLAS_AFTER : ZY_BLAS_BEFORE;
  return run_adjoint(c);
}

/* Runs the tangent builder of `c` in `phase` for every direction. */
static int tangent_phase(ZyBlasCall *c, int phase) {
  ZyGen *g = c->g;
  int err = 0;
  for (unsigned j = 0; j < (g->lanes ? g->width : 1) && !err; j++) {
    zy_lane_switch(g, j);
    c->phase = phase;
    err = tangents[zy_blas_routine_index(c->r)](c);
  }
  zy_lane_switch(g, 0);
  return err;
}

int zy_blas_tangent(ZyGen *g, LLVMValueRef call) {
  if (g->lane > 0)
    return 0; /* the first lane's visit made every lane's tangent */
  g->cur = call;
  if (zy_blas_check(g, call))
    return -1;
  const ZyBlasRoutine *r = zy_blas_routine(LLVMGetCalledValue(call), 0, 0);
  if (!tangents[zy_blas_routine_index(r)])
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, "use __enzyme_autodiff",
                        "forward mode: the BLAS routine '%s' has no tangent "
                        "yet",
                        LLVMGetValueName(LLVMGetCalledValue(call)));
  ZyBlasCall *c = blas_begin(g, call);
  if (!c)
    return -1;
  int err = tangent_phase(c, ZY_BLAS_TAN_BEFORE);
  zy_tangent_copy(g, call);
  if (!err)
    err = tangent_phase(c, ZY_BLAS_TAN_AFTER);
  free(c);
  return err;
}

int zy_blas_reverse(ZyGen *g, LLVMValueRef call, LLVMValueRef d) {
  ZyBlasCall *c = zy_map_get(&g->blas, call);
  ZY_ASSERT(c);
  c->phase = ZY_BLAS_REVERSE;
  c->d = d;
  memset(c->rval, 0, sizeof c->rval);
  memset(c->rcache, 0, sizeof c->rcache);
  /* Reload the caches first (the builder asks for them in any order). */
  for (unsigned k = 0; k < 2 * ZY_BLAS_MAXARGS; k++)
    if (c->cache[k])
      c->rcache[k] = reload(c, c->cache[k]);
  int err = run_adjoint(c);
  for (unsigned k = 0; k < 2 * ZY_BLAS_MAXARGS; k++)
    if (c->rcache[k])
      zy_blas_release(c, c->rcache[k]);
  return err;
}

void zy_blas_free(ZyGen *g) {
  for (size_t k = 0; k < g->blas.order.len; k++)
    free(zy_map_get(&g->blas, g->blas.order.data[k]));
  zy_map_free(&g->blas);
}

/* The engine's handlers of BLAS calls (ad/runtime.h). */
static const ZyCallRuntime blas_runtime = {.name = "BLAS",
                                           .check_call = zy_blas_check,
                                           .forward = zy_blas_forward,
                                           .reverse = zy_blas_reverse,
                                           .tangent = zy_blas_tangent,
                                           .release = zy_blas_free};

void zy_blas_register(void) {
  zy_runtime_register(ZY_CALL_BLAS, &blas_runtime);
}
