/* openmp_tangent.c - OpenMP regions in forward mode.  Forward mode is as
 * parallel as the primal: the tangent of a region is a fork of the tangent
 * function of its body, each thread given the body's arguments and their
 * tangents or shadows beside them (as Enzyme does).  What the body does
 * inside (worksharing loops, critical sections, reductions made atomic
 * adds or critical sections by zy_omp_prepare, barriers, single, master)
 * is copied by the tangent sweep with its tangents in the same place, so
 * under the same locks and barriers.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "parallel.h"

#include "ad/ad.h"
#include "ir/irutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static LLVMTypeRef ptr_t(LLVMContextRef c) {
  return LLVMPointerTypeInContext(c, 0);
}

/* __kmpc_fork_call(loc, n, fn, args...). */
static void fork(LLVMBuilderRef b, LLVMValueRef loc, LLVMValueRef fn,
                 LLVMValueRef *args, unsigned n) {
  LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(loc));
  LLVMTypeRef ps[3] = {ptr_t(c), LLVMInt32TypeInContext(c), ptr_t(c)};
  LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(c), ps, 3, 1);
  LLVMValueRef *all = calloc(n + 3, sizeof *all);
  all[0] = loc;
  all[1] = LLVMConstInt(LLVMInt32TypeInContext(c), n, 0);
  all[2] = fn;
  memcpy(all + 3, args, n * sizeof *args);
  LLVMBuildCall2(b, fty,
                 zy_runtime_fn(zy_builder_module(b), "__kmpc_fork_call", fty),
                 all, n + 3, "");
  free(all);
}

/* The function forked for tangent function `tf` (gtid*, btid*, then the
 * body's arguments and their tangents and shadows): the same parameters,
 * floats as the integers of their bits, calling `tf`.  Made once. */
static LLVMValueRef wrapper(LLVMValueRef tf) {
  char name[512];
  snprintf(name, sizeof name, "%s.omp.tan", LLVMGetValueName(tf));
  LLVMModuleRef m = LLVMGetGlobalParent(tf);
  LLVMValueRef w = LLVMGetNamedFunction(m, name);
  if (w)
    return w;
  LLVMTypeRef ft = LLVMGlobalGetValueType(tf);
  LLVMContextRef c = LLVMGetTypeContext(ft);
  unsigned n = LLVMCountParamTypes(ft);
  LLVMTypeRef *ps = calloc(n + 1, sizeof *ps), *ws = calloc(n + 1, sizeof *ws);
  LLVMGetParamTypes(ft, ps);
  for (unsigned k = 0; k < n; k++)
    ws[k] = zy_omp_fork_word(ps[k]);
  w = LLVMAddFunction(m, name,
                      LLVMFunctionType(LLVMVoidTypeInContext(c), ws, n, 0));
  LLVMSetLinkage(w, LLVMInternalLinkage);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, w, "entry"));
  LLVMValueRef *args = calloc(n + 1, sizeof *args);
  for (unsigned k = 0; k < n; k++)
    args[k] = zy_omp_bitcast_to(b, LLVMGetParam(w, k), ps[k]);
  LLVMBuildCall2(b, ft, tf, args, n, "");
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  free(args);
  free(ps);
  free(ws);
  return w;
}

static LLVMValueRef primal(ZyGen *g, LLVMValueRef v) {
  LLVMValueRef m = zy_map_get(&g->vmap, v);
  return m ? m : v;
}

/* Whether argument `a` of a region carries tangents: a pointer with a
 * shadow, or a float with a tangent (in some lane). */
static int carries(ZyGen *g, LLVMValueRef a) {
  LLVMTypeRef t = LLVMTypeOf(a);
  if (LLVMGetTypeKind(t) == LLVMPointerTypeKind)
    return zy_activity_shadowed(g->act, a);
  if (!zy_type_differentiable(t))
    return 0;
  for (unsigned j = 0; j < (g->lanes ? g->width : 1); j++)
    if (g->lanes ? zy_lane_tangent(g, a, j) != LLVMConstNull(t)
                 : zy_tangent_or_null(g, a) != NULL)
      return 1;
  return 0;
}

/* Whether region body `body` is one that a gradient forks
 * (openmp_sweeps.c names them `<augmented forward>.omp.fwd` and
 * `<reverse>.omp.rev`). */
static int gradient_region(LLVMValueRef body) {
  const char *name = LLVMGetValueName(body);
  return strstr(name, ".omp.fwd") || strstr(name, ".omp.rev");
}

/* Whether `f`, or a function it calls (to a depth of 6), takes an OpenMP
 * lock: a critical section (a max or min reduction's combine among them)
 * or omp_set_lock. */
static int takes_lock(LLVMValueRef f, int depth) {
  if (!f || !LLVMIsAFunction(f) || LLVMIsDeclaration(f) || depth > 6)
    return 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      if (!LLVMIsACallInst(i))
        continue;
      /* the callee, and functions passed (a fork's outlined body) */
      for (int o = LLVMGetNumOperands(i) - 1; o >= 0; o--) {
        LLVMValueRef c = LLVMGetOperand(i, o);
        if (!c || !LLVMIsAFunction(c) || c == f)
          continue;
        const char *name = LLVMGetValueName(c);
        if (!strncmp(name, "__kmpc_critical", 15) ||
            !strcmp(name, "omp_set_lock") || takes_lock(c, depth + 1))
          return 1;
      }
    }
  return 0;
}

int zy_omp_tangent_region(ZyGen *g, LLVMValueRef call) {
  if (g->lane > 0)
    return 0; /* the first lane forked the region for every lane */
  LLVMValueRef body = LLVMGetCalledValue(call), loc = zy_omp_region_loc(call);
  /* Forward over reverse: the gradient's region wrappers are forked like
   * any region (their tapes' structs have shadows); but not where the
   * gradient's region takes a lock, whose tangent deadlocks with two
   * threads or more. */
  if (gradient_region(body) && takes_lock(body, 0))
    return ZY_GEN_ERROR(
        g, ZY_ERR_UNSUPPORTED,
        "take the Hessian-vector product as reverse over forward "
        "(__enzyme_autodiff of a function calling __enzyme_fwddiff)",
        "forward mode over the gradient of an OpenMP parallel region with "
        "a critical section, a lock or a max/min reduction (forward over "
        "reverse) is not supported yet");
  unsigned n = LLVMGetNumArgOperands(call), w = g->lanes ? g->width : 1;
  LLVMValueRef *args = calloc((size_t)n * (w + 1) + 1, sizeof *args);
  ZySig sig = {.width = g->lanes ? g->width : 0};
  unsigned na = 0;
  for (unsigned k = 2; k < n; k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    args[na++] = zy_omp_bitcast_to(g->b, primal(g, a),
                                   zy_omp_fork_word(LLVMTypeOf(a)));
    if (k >= 64 || !carries(g, a))
      continue;
    int ptr = LLVMGetTypeKind(LLVMTypeOf(a)) == LLVMPointerTypeKind;
    sig.dup_args |= ptr ? 1ull << k : 0;
    sig.active_args |= ptr ? 0 : 1ull << k;
  }
  if (n > 63 && (sig.active_args | sig.dup_args)) {
    free(args);
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                        "forward mode: an OpenMP parallel region with more "
                        "than 61 shared variables");
  }
  if (!sig.active_args && !sig.dup_args) { /* the region as it was */
    fork(g->b, loc, zy_omp_region_forked(call), args, na);
    free(args);
    return 0;
  }
  for (unsigned k = 2; k < n; k++) {
    if (!((sig.active_args | sig.dup_args) >> k & 1))
      continue;
    LLVMValueRef a = LLVMGetOperand(call, k);
    for (unsigned j = 0; j < w; j++) {
      LLVMValueRef t =
          g->lanes ? zy_lane_tangent(g, a, j) : zy_tangent_value(g, a);
      args[na++] =
          zy_omp_bitcast_to(g->b, t, zy_omp_fork_word(LLVMTypeOf(t)));
    }
  }
  ZyTT *seeds = zy_call_seeds(g, call);
  LLVMValueRef tf = zy_tangent(g->zm, body, sig, seeds);
  zy_free_call_seeds(seeds, n);
  if (tf)
    fork(g->b, loc, wrapper(tf), args, na);
  free(args);
  return tf ? 0 : -1;
}
