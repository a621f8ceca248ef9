/* reverse_calls.c - calls: math functions through the rule table;
 * functions with a body through their own gradient, either one that
 * recomputes the callee (pure callees) or, for callees that touch memory
 * with shadows or have side effects, an augmented forward call in the
 * forward sweep and a reverse call, fed by the tape, in the reverse sweep.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad.h"

#include "analysis/effects.h"
#include "analysis/registry.h"
#include "cache.h"
#include "calls/blas_calls.h"
#include "calls/mpi_calls.h"
#include "custom.h"
#include "ir/rules.h"
#include "runtime.h"

#include <stdlib.h>
#include <string.h>

/* The callee, when it has a body here or a custom gradient. */
static LLVMValueRef defined_callee(LLVMValueRef call) {
  LLVMValueRef f = LLVMGetCalledValue(call);
  return zy_registry_differentiable(f) ? f : NULL;
}

/* Whether any value of `call` (arguments, result) is active or
 * shadowed. */
static int touches_derivatives(ZyGen *g, LLVMValueRef call) {
  if (zy_activity_active(g->act, call) || zy_activity_shadowed(g->act, call))
    return 1;
  for (unsigned k = 0; k < LLVMGetNumArgOperands(call); k++)
    if (zy_activity_active(g->act, LLVMGetOperand(call, k)) ||
        zy_activity_shadowed(g->act, LLVMGetOperand(call, k)))
      return 1;
  return 0;
}

ZyCallMode zy_call_mode(ZyGen *g, LLVMValueRef call) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  if (zy_activity_inactive_function(callee))
    return ZY_CALL_PLAIN;
  /* A warp shuffle of floats (never recomputed: a convergent exchange). */
  if (zy_parallel()->gpu_shuffle_mode(callee))
    return zy_activity_active(g->act, call) ? ZY_CALL_SHUFFLE : ZY_CALL_MEMORY;
  /* A custom gradient: the user's augmented forward and reverse pair. */
  if (zy_registry_custom(callee))
    return touches_derivatives(g, call) ? ZY_CALL_SPLIT : ZY_CALL_PLAIN;
  if (zy_rule_for_call(callee))
    return ZY_CALL_RULE;
  if (zy_rule_writer_for_call(callee))
    return ZY_CALL_WRITER;
  if (zy_blas_routine(callee, NULL, NULL))
    return touches_derivatives(g, call) ? ZY_CALL_BLAS : ZY_CALL_PLAIN;
  if (zy_mpi_handled(callee))
    return ZY_CALL_MPI;
  const char *name = callee && LLVMIsAFunction(callee)
                         ? LLVMGetValueName(callee)
                         : "";
  if (zy_activity_allocation(call) != ZY_ALLOC_NONE ||
      zy_activity_deallocation(call) || !strncmp(name, "llvm.", 5))
    return ZY_CALL_MEMORY;
  LLVMValueRef fn = defined_callee(call);
  if (!fn || LLVMIsFunctionVarArg(LLVMGlobalGetValueType(fn)))
    return ZY_CALL_PLAIN;
  if (zy_activity_shadowed(g->act, call))
    return ZY_CALL_SPLIT; /* returns a pointer whose shadow we need */
  int varied = 0, shadowed = 0;
  for (unsigned k = 0; k < LLVMGetNumArgOperands(call); k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    varied |= zy_activity_active(g->act, a);
    shadowed |= zy_activity_shadowed(g->act, a);
  }
  /* A callee that overwrites a global's floats overwrites its
   * derivatives too: its reverse must clear them, even when the call
   * passes no derivative. */
  if (shadowed || zy_activity_writes_shadowed_global(g->act, fn))
    return ZY_CALL_SPLIT;
  if (!varied && !zy_activity_active(g->act, call))
    return ZY_CALL_PLAIN;
  /* Recomputing in the reverse sweep repeats side effects, and reads
   * memory the caller may have changed since: then split instead. */
  return zy_effects_first_access(fn, zy_rule_known) ? ZY_CALL_SPLIT
                                                    : ZY_CALL_RECOMPUTE;
}

ZySig zy_call_sig(ZyGen *g, LLVMValueRef call) {
  ZySig sig = {.active_ret = zy_activity_active(g->act, call),
               .dup_ret = zy_activity_shadowed(g->act, call),
               .width = g->sig.width,
               .parallel = zy_parallel()->context(g) ||
                           zy_parallel()->omp_is_region(call)};
  for (unsigned k = 0; k < LLVMGetNumArgOperands(call) && k < 64; k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    if (zy_activity_active(g->act, a))
      sig.active_args |= 1ull << k;
    if (zy_activity_shadowed(g->act, a) &&
        !zy_activity_unshadowed_slot(g->act, a))
      sig.dup_args |= 1ull << k;
  }
  if (!sig.parallel && zy_call_mode(g, call) == ZY_CALL_SPLIT)
    sig.stable_args = zy_stable_args(g, call);
  else if (zy_parallel()->omp_is_region(call) &&
           zy_call_mode(g, call) == ZY_CALL_SPLIT)
    sig.stable_args =
        zy_region_stable_args(g, call, &sig.stable_deep, &sig.own_args);
  return sig;
}

/* What the caller knows about the types of the call's arguments, as
 * seeds for the callee's type analysis (an array the caller frees with
 * free_seeds). */
ZyTT *zy_call_seeds(ZyGen *g, LLVMValueRef call) {
  unsigned n = LLVMGetNumArgOperands(call);
  ZyTT *seeds = calloc(n + 1, sizeof *seeds);
  for (unsigned k = 0; k < n; k++) {
    const ZyTT *t = zy_types_of(g->types, LLVMGetOperand(call, k));
    if (t)
      zy_tt_merge(&seeds[k], t);
  }
  return seeds;
}

void zy_free_call_seeds(ZyTT *seeds, unsigned n) {
  for (unsigned k = 0; k < n; k++)
    zy_tt_free(&seeds[k]);
  free(seeds);
}

/* Erases instruction `v` if nothing uses it, then its operands that
 * become unused (but not the placeholders `keep`). */
static void erase_dead(LLVMValueRef v, LLVMValueRef *keep, unsigned nkeep) {
  if (!LLVMIsAInstruction(v) || LLVMGetFirstUse(v) ||
      LLVMGetInstructionOpcode(v) == LLVMFreeze) /* deferred lookups */
    return;
  for (unsigned k = 0; k < nkeep; k++)
    if (keep[k] == v)
      return;
  LLVMValueRef ops[8];
  int n = LLVMGetNumOperands(v);
  if (n > 8 || LLVMIsACallInst(v))
    return;
  for (int k = 0; k < n; k++)
    ops[k] = LLVMGetOperand(v, k);
  LLVMInstructionEraseFromParent(v);
  for (int k = 0; k < n; k++)
    erase_dead(ops[k], keep, nkeep);
}

static int apply_rule(ZyGen *g, LLVMValueRef call, const ZyRule *r,
                      LLVMValueRef d) {
  unsigned nargs = LLVMGetNumArgOperands(call);
  ZyRuleIO io = {.b = g->b, .dy = d};
  /* Arguments are looked up only if the rule uses them (in a loop, a
   * lookup may cache a value per iteration): placeholders first. */
  for (unsigned k = 0; k < nargs && k < 3; k++)
    io.x[k] = LLVMBuildFreeze(
        g->b, LLVMGetPoison(LLVMTypeOf(LLVMGetOperand(call, k))), "");
  if (r->needs_y)
    io.y = zy_lookup(g, call);
  r->build(&io);
  /* Adjoints of inactive arguments are dropped, with the code they used
   * (after the active ones are added: they may share code). */
  LLVMValueRef keep[5] = {d, io.y};
  unsigned nx = nargs < 3 ? nargs : 3;
  for (unsigned k = 0; k < nx; k++)
    keep[2 + k] = io.x[k];
  for (unsigned k = 0; k < r->arity && k < nargs; k++)
    if (zy_activity_active(g->act, LLVMGetOperand(call, k)))
      zy_add_adjoint(g, LLVMGetOperand(call, k), io.dx[k]);
  for (unsigned k = 0; k < r->arity && k < nargs; k++)
    if (!zy_activity_active(g->act, LLVMGetOperand(call, k)) && io.dx[k])
      erase_dead(io.dx[k], keep, 2 + nx);
  for (unsigned k = 0; k < nx; k++) {
    if (LLVMGetFirstUse(io.x[k])) {
      LLVMBuilderRef b = g->b;
      g->b = LLVMCreateBuilderInContext(g->zm->ctx);
      LLVMPositionBuilderBefore(g->b, io.x[k]);
      LLVMReplaceAllUsesWith(io.x[k], zy_lookup(g, LLVMGetOperand(call, k)));
      LLVMDisposeBuilder(g->b);
      g->b = b;
    }
    LLVMInstructionEraseFromParent(io.x[k]);
  }
  return 0;
}

/* A math function that also writes results through pointers: the
 * adjoints of the floats it wrote are taken from (and cleared in) the
 * shadows of its output pointers, then its rule runs as apply_rule's.
 * `d` is the result's adjoint, NULL when the result is void or inactive. */
static int apply_writer(ZyGen *g, LLVMValueRef call, const ZyRule *r,
                        LLVMValueRef d) {
  unsigned nargs = LLVMGetNumArgOperands(call);
  LLVMTypeRef rt = LLVMTypeOf(call);
  ZyRuleIO io = {.b = g->b, .dy = d};
  if (!d && LLVMGetTypeKind(rt) != LLVMVoidTypeKind)
    io.dy = LLVMConstNull(rt);
  LLVMTypeRef ft = NULL;
  int varied = 0;
  for (unsigned k = 0; k < nargs && k < 3; k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    if (r->outs[k] == 'x') {
      ft = ft ? ft : LLVMTypeOf(a);
      varied |= zy_activity_active(g->act, a);
    }
  }
  for (unsigned k = 0; k < nargs && k < 3; k++) {
    LLVMValueRef p = LLVMGetOperand(call, k);
    char o = r->outs[k];
    if ((o != 'F' && o != 'Z') || !zy_activity_shadowed(g->act, p)) {
      io.dp[k] = LLVMConstNull(ft);
      continue;
    }
    LLVMValueRef sp = zy_shadow_lookup(g, p);
    io.dp[k] = LLVMBuildLoad2(g->b, ft, sp, "");
    LLVMBuildStore(g->b, LLVMConstNull(ft), sp); /* overwritten */
  }
  if (!varied)
    return 0;
  LLVMValueRef x[3] = {0};
  for (unsigned k = 0; k < nargs && k < 3; k++)
    x[k] = r->outs[k] == 'x' || r->outs[k] == 'i'
               ? zy_lookup(g, LLVMGetOperand(call, k))
               : NULL;
  memcpy(io.x, x, sizeof x);
  if (r->needs_y)
    io.y = zy_lookup(g, call);
  r->build(&io);
  for (unsigned k = 0; k < nargs && k < 3; k++)
    if (r->outs[k] == 'x' && io.dx[k] &&
        zy_activity_active(g->act, LLVMGetOperand(call, k)))
      zy_add_adjoint(g, LLVMGetOperand(call, k), io.dx[k]);
  return 0;
}

/* Adds the fields of `res` (a gradient's result) to the active
 * arguments of `call`, in order (in vector mode each argument's lanes in
 * a row). */
static void add_argument_adjoints(ZyGen *g, LLVMValueRef call, ZySig sig,
                                  LLVMValueRef res) {
  unsigned field = 0;
  for (unsigned k = 0; k < LLVMGetNumArgOperands(call); k++)
    for (unsigned j = 0; j < ZY_LANES(sig) && (sig.active_args >> k & 1); j++)
      zy_lane_add_adjoint(g, LLVMGetOperand(call, k), j,
                          LLVMBuildExtractValue(g->b, res, field++, ""));
}

/* The adjoint of the result of `call` in each lane: `d` (the current
 * lane's, taken by the sweep) first, the other lanes' taken here. */
static unsigned result_adjoints(ZyGen *g, LLVMValueRef call, LLVMValueRef d,
                                LLVMValueRef *out) {
  out[0] = d;
  for (unsigned j = 1; j < ZY_LANES(g->sig); j++)
    out[j] = zy_lane_take_adjoint(g, call, j);
  return ZY_LANES(g->sig);
}

static int too_many_params(ZyGen *g, LLVMValueRef call) {
  if (LLVMGetNumArgOperands(call) <= 63)
    return 0;
  return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                      "calls to functions with more than 63 parameters are "
                      "not differentiated");
}

/* A pure callee: its gradient recomputes its forward sweep. */
static int call_recompute(ZyGen *g, LLVMValueRef call, LLVMValueRef callee,
                          LLVMValueRef d) {
  if (too_many_params(g, call))
    return -1;
  ZySig sig = zy_call_sig(g, call);
  sig.active_ret = 1;
  if (!sig.active_args)
    return 0;
  ZyTT *seeds = zy_call_seeds(g, call);
  LLVMValueRef grad = zy_gradient(g->zm, callee, sig, seeds);
  zy_free_call_seeds(seeds, LLVMGetNumArgOperands(call));
  if (!grad)
    return -1;
  unsigned nargs = LLVMGetNumArgOperands(call);
  LLVMValueRef *args = calloc(nargs + ZY_LANES(g->sig), sizeof *args);
  for (unsigned k = 0; k < nargs; k++)
    args[k] = zy_lookup(g, LLVMGetOperand(call, k));
  unsigned nd = result_adjoints(g, call, d, args + nargs);
  LLVMValueRef res = LLVMBuildCall2(g->b, LLVMGlobalGetValueType(grad), grad,
                                    args, nargs + nd, "");
  free(args);
  add_argument_adjoints(g, call, sig, res);
  return 0;
}

/* Arguments of a split call: the primal arguments (through `get`), then
 * the shadows of the dup ones (in vector mode each one's lanes in a row,
 * `shadow` giving lane j's). */
static unsigned split_args(ZyGen *g, LLVMValueRef call, ZySig sig,
                           LLVMValueRef (*get)(ZyGen *, LLVMValueRef),
                           LLVMValueRef (*shadow)(ZyGen *, LLVMValueRef,
                                                  unsigned),
                           LLVMValueRef *args) {
  unsigned nargs = LLVMGetNumArgOperands(call), n = 0;
  for (unsigned k = 0; k < nargs; k++)
    args[n++] = get(g, LLVMGetOperand(call, k));
  for (unsigned k = 0; k < nargs; k++)
    for (unsigned j = 0; j < ZY_LANES(sig) && (sig.dup_args >> k & 1); j++)
      args[n++] = shadow(g, LLVMGetOperand(call, k), j);
  return n;
}

static LLVMValueRef forward_value(ZyGen *g, LLVMValueRef v) {
  LLVMValueRef m = zy_map_get(&g->vmap, v);
  return m ? m : v;
}

/* The most arguments a split call passes: 63 parameters, the shadows of
 * each in every lane, the return adjoints and the tape. */
#define SPLIT_ARGS(w) (63 * ((w) + 1) + (w) + 1)

int zy_forward_split_call(ZyGen *g, LLVMValueRef call) {
  g->cur = call;
  if (too_many_params(g, call) || zy_custom_check_call(call))
    return -1;
  LLVMValueRef aug, rev;
  ZyTT *seeds = zy_call_seeds(g, call);
  int err = zy_gradient_split(g->zm, defined_callee(call),
                              zy_call_sig(g, call), seeds, &aug, &rev);
  zy_free_call_seeds(seeds, LLVMGetNumArgOperands(call));
  if (err)
    return -1;
  LLVMValueRef *args = malloc(SPLIT_ARGS(ZY_LANES(g->sig)) * sizeof *args);
  unsigned n = split_args(g, call, zy_call_sig(g, call), forward_value,
                          zy_lane_shadow_forward, args);
  LLVMValueRef res = LLVMBuildCall2(g->b, LLVMGlobalGetValueType(aug), aug,
                                    args, n, "");
  free(args);
  LLVMTypeRef rt = LLVMTypeOf(res);
  unsigned last = LLVMCountStructElementTypes(rt) - 1;
  if (last)
    zy_map_put(&g->vmap, call,
               LLVMBuildExtractValue(g->b, res, 0, LLVMGetValueName(call)));
  for (unsigned j = 0;
       zy_activity_shadowed(g->act, call) && j < ZY_LANES(g->sig);
       j++) { /* the result's shadow in each lane */
    zy_lane_switch(g, j);
    zy_map_put(&g->shadow, call,
               LLVMBuildExtractValue(g->b, res, 1 + j, "shadow"));
  }
  zy_lane_switch(g, 0);
  zy_map_put(&g->tapes, call, LLVMBuildExtractValue(g->b, res, last, "tape"));
  return 0;
}

static int call_split(ZyGen *g, LLVMValueRef call, LLVMValueRef d) {
  if (zy_parallel()->omp_is_region(call))
    return zy_parallel()->omp_reverse_region(g, call);
  ZySig sig = zy_call_sig(g, call);
  LLVMValueRef aug, rev;
  if (zy_gradient_split(g->zm, defined_callee(call), sig, NULL, &aug, &rev))
    return -1; /* generated by the forward sweep already */
  LLVMValueRef *args = malloc(SPLIT_ARGS(ZY_LANES(sig)) * sizeof *args);
  unsigned n = split_args(g, call, sig, zy_lookup, zy_lane_shadow_lookup, args);
  if (sig.active_ret)
    n += result_adjoints(g, call, d, args + n);
  args[n++] = zy_reload(g, zy_map_get(&g->tapes, call),
                        LLVMGetInstructionParent(call));
  LLVMValueRef res =
      LLVMBuildCall2(g->b, LLVMGlobalGetValueType(rev), rev, args, n, "");
  free(args);
  if (sig.active_args)
    add_argument_adjoints(g, call, sig, res);
  /* A returned allocation freed here: so is its shadow. */
  for (unsigned j = 0; j < ZY_LANES(sig) && sig.dup_ret && zy_freed_here(call);
       j++)
    if (zy_free_shadow(g, call, zy_lane_shadow_lookup(g, call, j)))
      return -1;
  return 0;
}

int zy_reverse_call(ZyGen *g, LLVMValueRef call, LLVMValueRef d) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  switch (zy_call_mode(g, call)) {
  case ZY_CALL_RULE:
    return apply_rule(g, call, zy_rule_for_call(callee), d);
  case ZY_CALL_WRITER:
    return apply_writer(g, call, zy_rule_writer_for_call(callee), d);
  case ZY_CALL_RECOMPUTE:
    return call_recompute(g, call, callee, d);
  case ZY_CALL_SPLIT:
    return call_split(g, call, d);
  case ZY_CALL_BLAS:
    return zy_runtime(ZY_CALL_BLAS)->reverse(g, call, d);
  case ZY_CALL_MPI:
    return zy_runtime(ZY_CALL_MPI)->reverse(g, call, d);
  case ZY_CALL_SHUFFLE:
    return zy_runtime(ZY_CALL_SHUFFLE)->reverse(g, call, d);
  default:
    break;
  }
  if (callee && LLVMIsAInlineAsm(callee))
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                        "inline assembly receives an active value; it cannot "
                        "be differentiated");
  if (!callee || !LLVMIsAFunction(callee))
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                        "indirect calls are not differentiated yet");
  const char *name = LLVMGetValueName(callee);
  if (!strncmp(name, "llvm.", 5))
    return ZY_GEN_ERROR(g, ZY_ERR_NO_RULE, NULL,
                        "no derivative rule for the intrinsic '%s'", name);
  if (LLVMIsFunctionVarArg(LLVMGlobalGetValueType(callee)))
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                        "calls to variadic functions are not "
                        "differentiated");
  return ZY_GEN_ERROR(
      g, ZY_ERR_NO_RULE,
      "give the function a body in this translation unit, or pass its "
      "active arguments as enzyme_const",
      "no derivative rule for the external function '%s'", name);
}
