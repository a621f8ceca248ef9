/* tangent_calls.c - calls in forward mode: math functions through the
 * rule table (the tangent from the same row as the adjoint), memory
 * functions on the shadows, functions with a body through their own
 * tangent function, functions with a custom forward derivative through
 * it (tangent_custom.c), and MPI calls, BLAS calls and warp shuffles
 * through their runtime's handler.  What forward mode does not handle yet
 * (custom gradients without a forward derivative, unknown functions that
 * touch derivatives, ...) is refused here with a located error.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad.h"
#include "runtime.h"

#include "analysis/registry.h"
#include "calls/blas_calls.h"
#include "calls/mpi_calls.h"
#include "ir/irutil.h"
#include "ir/rules.h"

#include <stdlib.h>
#include <string.h>

LLVMValueRef zy_rule_tangent(LLVMBuilderRef b, const ZyRule *r, LLVMValueRef *x,
                             unsigned nx, LLVMValueRef y, LLVMValueRef *tx) {
  LLVMValueRef sum = NULL;
  for (unsigned k = 0; k < r->arity && k < nx && k < 3; k++) {
    if (!tx[k])
      continue;
    /* A row is linear in dy: its dx_k with dy = tx_k is d/dx_k * tx_k. */
    ZyRuleIO io = {.b = b, .y = y, .dy = tx[k]};
    for (unsigned j = 0; j < nx && j < 3; j++)
      io.x[j] = x[j];
    r->build(&io);
    if (io.dx[k])
      sum = sum ? LLVMBuildFAdd(b, sum, io.dx[k], "") : io.dx[k];
  }
  return sum;
}

static const char *callee_name(LLVMValueRef call) {
  LLVMValueRef f = LLVMGetCalledValue(call);
  return f && LLVMIsAFunction(f) ? LLVMGetValueName(f) : "";
}

/* Whether an argument or the result of `call` carries a tangent or a
 * shadow, or its callee overwrites a global's floats (and so their
 * tangents). */
static int touches(ZyGen *g, LLVMValueRef call) {
  if (zy_activity_active(g->act, call) || zy_activity_shadowed(g->act, call) ||
      zy_activity_writes_shadowed_global(g->act, LLVMGetCalledValue(call)))
    return 1;
  for (unsigned k = 0; k < LLVMGetNumArgOperands(call); k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    if (zy_activity_active(g->act, a) || zy_activity_shadowed(g->act, a))
      return 1;
  }
  return 0;
}

/* Whether a floating-point value goes in or out of `call`. */
static int any_float(LLVMValueRef call) {
  if (zy_type_differentiable(LLVMTypeOf(call)))
    return 1;
  for (unsigned k = 0; k < LLVMGetNumArgOperands(call); k++)
    if (zy_type_differentiable(LLVMTypeOf(LLVMGetOperand(call, k))))
      return 1;
  return 0;
}

static int refuse(ZyGen *g, const char *hint, const char *what) {
  return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                      hint ? hint
                           : "see README.md, \"Coming from Enzyme\", for what "
                             "__enzyme_fwddiff supports",
                      "forward mode: %s (a call to '%s')", what,
                      callee_name(g->cur));
}

/* An intrinsic returning a struct (llvm.sincos, llvm.frexp, llvm.modf),
 * whose row reads the fields of dy: the tangent of field j is the row
 * built with dy zero but for field j, which holds the operand's tangent
 * (so dxk is d(field j)/dxk times that tangent). */
static LLVMValueRef struct_tangent(ZyGen *g, const ZyRule *r, LLVMValueRef *x,
                                   unsigned n, LLVMValueRef y,
                                   LLVMValueRef *tx) {
  LLVMTypeRef st = LLVMTypeOf(y);
  LLVMValueRef t = LLVMConstNull(st);
  int any = 0;
  for (unsigned j = 0; j < LLVMCountStructElementTypes(st); j++) {
    LLVMTypeRef ft = LLVMStructGetTypeAtIndex(st, j);
    if (!zy_type_differentiable(ft))
      continue;
    LLVMValueRef sum = NULL;
    for (unsigned k = 0; k < r->arity && k < n && k < 3; k++) {
      if (!tx[k] || LLVMTypeOf(tx[k]) != ft)
        continue;
      ZyRuleIO io = {.b = g->b, .y = y};
      io.dy = LLVMBuildInsertValue(g->b, LLVMConstNull(st), tx[k], j, "");
      for (unsigned i = 0; i < n && i < 3; i++)
        io.x[i] = x[i];
      r->build(&io);
      if (io.dx[k])
        sum = sum ? LLVMBuildFAdd(g->b, sum, io.dx[k], "") : io.dx[k];
    }
    if (sum) {
      t = LLVMBuildInsertValue(g->b, t, sum, j, "");
      any = 1;
    }
  }
  return any ? t : NULL;
}

static int rule_call(ZyGen *g, LLVMValueRef call, const ZyRule *r) {
  LLVMValueRef c = zy_tangent_copy(g, call);
  if (!zy_activity_active(g->act, call))
    return 0;
  LLVMValueRef x[3] = {0}, tx[3] = {0};
  unsigned n = LLVMGetNumArgOperands(call);
  for (unsigned k = 0; k < n && k < 3; k++) {
    x[k] = LLVMGetOperand(c, k);
    if (zy_type_differentiable(LLVMTypeOf(x[k])))
      tx[k] = zy_tangent_or_null(g, LLVMGetOperand(call, k));
  }
  LLVMValueRef d = LLVMGetTypeKind(LLVMTypeOf(call)) == LLVMStructTypeKind
                       ? struct_tangent(g, r, x, n, c, tx)
                       : zy_rule_tangent(g->b, r, x, n, c, tx);
  if (d)
    zy_map_put(&g->tangent, call, d);
  return 0;
}

/* One build of writer row `r` for the tangent of one output: dy (the
 * result's adjoint) and dp[out] (the adjoint of the float written through
 * operand `out`) are zero but the one that stands for the output, which
 * holds input k's tangent t; gives dxk, i.e. d(output)/dxk * t. */
static LLVMValueRef writer_term(ZyGen *g, const ZyRule *r, LLVMValueRef c,
                                unsigned k, LLVMValueRef t, int out) {
  LLVMTypeRef ft = LLVMTypeOf(t), rt = LLVMTypeOf(c);
  int has_y = LLVMGetTypeKind(rt) != LLVMVoidTypeKind;
  ZyRuleIO io = {.b = g->b, .y = has_y ? c : NULL};
  for (unsigned i = 0; i < LLVMGetNumArgOperands(c) && i < 3; i++) {
    io.x[i] = LLVMGetOperand(c, i);
    io.dp[i] = LLVMConstNull(ft);
  }
  if (has_y)
    io.dy = out < 0 ? t : LLVMConstNull(rt);
  if (out >= 0)
    io.dp[out] = t;
  r->build(&io);
  return io.dx[k];
}

/* A math function that also writes floats through pointers (sincos,
 * frexp, modf, lgamma_r, remquo): the tangents of those floats go to the
 * shadows (zero for 'Z' outputs), and the result's tangent as for a
 * rule. */
static int writer_call(ZyGen *g, LLVMValueRef call, const ZyRule *r) {
  LLVMValueRef c = zy_tangent_copy(g, call);
  unsigned n = LLVMGetNumArgOperands(call);
  LLVMValueRef tx[3] = {0};
  LLVMTypeRef ft = NULL;
  for (unsigned k = 0; k < n && k < 3; k++)
    if (r->outs[k] == 'x') {
      tx[k] = zy_tangent_or_null(g, LLVMGetOperand(call, k));
      ft = LLVMTypeOf(LLVMGetOperand(call, k));
    }
  for (int out = -1; out < (int)n && out < 3; out++) {
    LLVMValueRef sum = NULL, p = out >= 0 ? LLVMGetOperand(call, out) : NULL;
    if (out < 0 ? !zy_activity_active(g->act, call)
                : (r->outs[out] != 'F' && r->outs[out] != 'Z') ||
                      !zy_activity_shadowed(g->act, p))
      continue;
    for (unsigned k = 0; k < n && k < 3; k++)
      if (tx[k] && (out < 0 || r->outs[out] == 'F')) {
        LLVMValueRef d = writer_term(g, r, c, k, tx[k], out);
        sum = !d ? sum : sum ? LLVMBuildFAdd(g->b, sum, d, "") : d;
      }
    if (out < 0 && sum)
      zy_map_put(&g->tangent, call, sum);
    else if (out >= 0)
      LLVMBuildStore(g->b, sum ? sum : LLVMConstNull(ft),
                     zy_shadow_forward_of(g, p));
  }
  return 0;
}

/* memcpy, memmove, memset on memory with a shadow: the same on the
 * shadow (a copy from memory without one, or a memset, zeroes it). */
static int memory_intrinsic(ZyGen *g, LLVMValueRef call, int set) {
  LLVMValueRef c = zy_tangent_copy(g, call);
  LLVMValueRef d = LLVMGetOperand(call, 0);
  if (!zy_activity_shadowed(g->act, d))
    return 0;
  LLVMValueRef s = LLVMInstructionClone(c);
  LLVMInsertIntoBuilderWithName(g->b, s, "");
  LLVMSetOperand(s, 0, zy_shadow_forward_of(g, d));
  LLVMValueRef src = LLVMGetOperand(call, 1);
  if (!set && zy_activity_shadowed(g->act, src))
    LLVMSetOperand(s, 1, zy_shadow_forward_of(g, src));
  else if (!set || !LLVMIsNull(LLVMGetOperand(call, 1))) {
    /* from memory without derivatives (or a memset to non-zero bytes):
     * the shadow becomes zero */
    LLVMInstructionEraseFromParent(s);
    LLVMValueRef z = LLVMConstInt(LLVMInt8TypeInContext(g->zm->ctx), 0, 0);
    LLVMBuildMemSet(g->b, zy_shadow_forward_of(g, d), z, LLVMGetOperand(c, 2),
                    1);
  }
  return 0;
}

/* free(p) and the like: the shadow goes the same way. */
static int deallocation(ZyGen *g, LLVMValueRef call) {
  LLVMValueRef c = zy_tangent_copy(g, call);
  unsigned k = zy_activity_freed_arg(call);
  LLVMValueRef p = LLVMGetOperand(call, k);
  if (!zy_activity_shadowed(g->act, p))
    return 0;
  LLVMValueRef s = LLVMInstructionClone(c);
  LLVMInsertIntoBuilderWithName(g->b, s, "");
  LLVMSetOperand(s, k, zy_shadow_forward_of(g, p));
  return 0;
}

/* malloc, calloc, realloc, posix_memalign, a registered allocator: shadow
 * memory from shadow.c; realloc's old shadow is then freed. */
static int allocation(ZyGen *g, LLVMValueRef call) {
  zy_tangent_copy(g, call);
  int re = zy_activity_allocation(call) == ZY_ALLOC_REALLOC &&
           zy_activity_shadowed(g->act, call);
  LLVMValueRef old = re ? zy_tangent_value(g, LLVMGetOperand(call, 0)) : NULL;
  if (zy_shadow_forward(g, call))
    return -1;
  if (old)
    zy_call_free(g->b, "free", old);
  return 0;
}

/* A function with a body: its tangent function, for the tangents and
 * shadows that reach it.  In vector mode, its tangent function of the
 * same width, called once by the first lane for all lanes. */
static int twin_call(ZyGen *g, LLVMValueRef call, LLVMValueRef f) {
  unsigned n = LLVMGetNumArgOperands(call), w = g->lanes ? g->width : 1;
  if (g->lane > 0)
    return 0; /* the first lane's call did it */
  if (LLVMIsFunctionVarArg(LLVMGlobalGetValueType(f)) ||
      n != LLVMCountParams(f) || n > 63)
    return refuse(g, NULL,
                  "a variadic function, or one with more than 63 "
                  "parameters");
  ZySig sig = {.width = g->lanes ? g->width : 0};
  LLVMValueRef *args = malloc(n * (w + 1) * sizeof *args + 1);
  unsigned na = n;
  for (unsigned k = 0; k < n; k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    args[k] = zy_map_get(&g->vmap, a) ? zy_map_get(&g->vmap, a) : a;
    LLVMTypeRef t = LLVMTypeOf(a);
    if (LLVMGetTypeKind(t) == LLVMPointerTypeKind
            ? zy_activity_shadowed(g->act, a)
            : zy_type_differentiable(t) && zy_tangent_or_null(g, a)) {
      sig.active_args |=
          LLVMGetTypeKind(t) == LLVMPointerTypeKind ? 0 : 1ull << k;
      sig.dup_args |= LLVMGetTypeKind(t) == LLVMPointerTypeKind ? 1ull << k : 0;
      for (unsigned j = 0; j < w; j++)
        args[na++] =
            g->lanes ? zy_lane_tangent(g, a, j) : zy_tangent_value(g, a);
    }
  }
  LLVMTypeRef rt = LLVMTypeOf(call);
  sig.active_ret =
      zy_type_differentiable(rt) && zy_activity_active(g->act, call);
  /* a pointer, or an aggregate holding pointers (an augmented function's
   * {result, tape}), with a shadow: the shadow (aggregate) comes back */
  int agg = zy_type_pointer_aggregate(rt) && zy_activity_shadowed(g->act, call);
  sig.dup_ret = (LLVMGetTypeKind(rt) == LLVMPointerTypeKind || agg) &&
                zy_activity_shadowed(g->act, call);
  ZyTT *seeds = zy_call_seeds(g, call);
  LLVMValueRef tf = zy_tangent(g->zm, f, sig, seeds);
  zy_free_call_seeds(seeds, n);
  LLVMValueRef r =
      tf ? LLVMBuildCall2(g->b, LLVMGlobalGetValueType(tf), tf, args, na, "")
         : NULL;
  free(args);
  if (!tf)
    return -1;
  if (LLVMGetTypeKind(rt) == LLVMVoidTypeKind) {
    zy_map_put(&g->vmap, call, r);
    return 0;
  }
  zy_map_put(&g->vmap, call, LLVMBuildExtractValue(g->b, r, 0, ""));
  for (unsigned j = 0; j < w && (sig.active_ret || sig.dup_ret); j++) {
    LLVMValueRef t = LLVMBuildExtractValue(g->b, r, 1 + j, "");
    if (g->lanes)
      zy_lane_put(g, call, j, t);
    else
      zy_map_put(sig.active_ret || agg ? &g->tangent : &g->shadow, call, t);
  }
  return 0;
}

/* Calls that forward mode does not handle yet: a located error. */
static int refused(ZyGen *g, LLVMValueRef call, LLVMValueRef f) {
  if (!f || !LLVMIsAFunction(f))
    return refuse(g, NULL,
                  "an indirect call or inline assembly that touches "
                  "derivatives");
  if (zy_mpi_handled(f))
    return refuse(g, "use __enzyme_autodiff",
                  "MPI calls are not supported yet");
  if (zy_blas_routine(f, NULL, NULL) || zy_blas_like(f))
    return refuse(g, "use __enzyme_autodiff",
                  "BLAS calls are not supported by this build");
  if (zy_registry_custom(f))
    return refuse(g,
                  "register its forward derivative too: void "
                  "*__enzyme_register_derivative_f[2] = {(void *)f, (void "
                  "*)forward_f};",
                  "the function has a custom gradient "
                  "(__enzyme_register_gradient), which serves reverse mode "
                  "only, and no custom forward derivative");
  return ZY_GEN_ERROR(g, ZY_ERR_NO_RULE,
                      "define the function in this translation unit, or mark "
                      "it inactive",
                      "forward mode: no derivative for a call to '%s', which "
                      "touches derivatives",
                      LLVMGetValueName(f));
}

/* A call of a runtime with a tangent of its own (MPI: the runtime copies
 * it and communicates the tangents; BLAS: the tangent in BLAS calls
 * around the copy; a warp shuffle: the tangent shuffled alike); the code
 * it adds may end the primal block's copy in a new block. */
static int runtime_call(ZyGen *g, LLVMValueRef call, ZyCallMode mode) {
  const ZyCallRuntime *rt = zy_runtime(mode);
  if (!rt->tangent)
    return refused(g, call, LLVMGetCalledValue(call));
  int err = rt->tangent(g, call);
  zy_map_put(&g->fend, LLVMGetInstructionParent(call),
             LLVMGetInsertBlock(g->b));
  return err;
}

int zy_tangent_call(ZyGen *g, LLVMValueRef call) {
  LLVMValueRef f = LLVMGetCalledValue(call);
  const char *name = callee_name(call);
  if (zy_parallel()->omp_is_region(call)) /* parallel/openmp_tangent.c */
    return zy_parallel()->omp_tangent_region(g, call);
  if (f && LLVMIsAFunction(f) && zy_activity_inactive_function(f)) {
    zy_tangent_copy(g, call);
    return 0;
  }
  const ZyFwdCustom *fc =
      f && LLVMIsAFunction(f) ? zy_registry_fwd_custom(f) : NULL;
  if (fc && touches(g, call))
    return zy_tangent_custom_call(g, call, fc);
  if (f && LLVMIsAFunction(f) && (zy_mpi_handled(f) || zy_mpi_helper(f)))
    return runtime_call(g, call, ZY_CALL_MPI);
  if (zy_parallel()->gpu_shuffle_mode(f)) /* HIP's have bodies: first */
    return runtime_call(g, call, ZY_CALL_SHUFFLE);
  const ZyRule *r = f && LLVMIsAFunction(f) ? zy_rule_for_call(f) : NULL;
  if (r)
    return rule_call(g, call, r);
  r = f && LLVMIsAFunction(f) ? zy_rule_writer_for_call(f) : NULL;
  if (r)
    return writer_call(g, call, r);
  if (!strncmp(name, "llvm.memcpy", 11) || !strncmp(name, "llvm.memmove", 12))
    return memory_intrinsic(g, call, 0);
  if (!strncmp(name, "llvm.memset", 11))
    return memory_intrinsic(g, call, 1);
  if (zy_activity_allocation(call) != ZY_ALLOC_NONE || zy_is_memalign(call))
    return allocation(g, call);
  if (zy_activity_deallocation(call))
    return deallocation(g, call);
  if (!touches(g, call) || (!strncmp(name, "llvm.", 5) && !any_float(call))) {
    zy_tangent_copy(g, call);
    return 0;
  }
  if (f && LLVMIsAFunction(f) &&
      (zy_blas_routine(f, NULL, NULL) || zy_blas_like(f)))
    return runtime_call(g, call, ZY_CALL_BLAS); /* blas/blas_tangent.c */
  if (f && LLVMIsAFunction(f) && !LLVMIsDeclaration(f) &&
      !zy_registry_custom(f) && !zy_blas_routine(f, NULL, NULL) &&
      !zy_mpi_handled(f))
    return twin_call(g, call, f);
  return refused(g, call, f);
}
