/* recompute.c - values of loop iterations that the reverse sweep computes
 * again instead of caching them per iteration: induction variables (from
 * the reverse iteration number), cheap arithmetic and math library calls
 * of values that are available anyway, the merge of a branch both of
 * whose sides are, and loads of memory that nothing in the function
 * writes after them (frees of it are deferred: see zy_free_deferred).  A
 * value qualifies only when each of its operands is invariant in its loop
 * or qualifies itself, so recomputing never trades one cached value for
 * several.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "cache.h"

#include "analysis/registry.h"

#include "ir/rules.h"

#include <stdint.h>
#include <string.h>

#define MAX_DEPTH 12

/* Whether `v` needs no per-iteration cache in loop `l`. */
static int invariant_in(ZyGen *g, LLVMValueRef v, ZyLoop *l) {
  return !LLVMIsAInstruction(v) ||
         !zy_loop_contains(g, l, LLVMGetInstructionParent(v));
}

/* Calls whose writes do not matter to a load recomputed in the reverse
 * sweep: math library calls (they write only errno, which no user
 * pointer reaches) and frees deferred to the end of the reverse sweep. */
static int ignored_write(LLVMValueRef call, void *ctx) {
  ZyGen *g = ctx;
  return zy_free_deferred(g, call) || zy_rule_call(call);
}

static int ignored_free(LLVMValueRef call, void *ctx) {
  return zy_free_deferred(ctx, call);
}

int zy_load_unchanged(ZyGen *g, LLVMValueRef load) {
  if (!g->alias)
    g->alias = zy_llvm_alias_new(g->primal);
  /* Writes that run before the load do not change what it read: only the
   * part of the function a path from the load reaches counts.  errno (a
   * pointer returned by __errno_location()) math calls do write. */
  LLVMValueRef base = LLVMGetOperand(load, 0);
  while (LLVMIsAGetElementPtrInst(base))
    base = LLVMGetOperand(base, 0);
  return !zy_llvm_alias_load_clobbered(
      g->alias, load, 1, LLVMIsACallInst(base) ? ignored_free : ignored_write,
      g);
}

/* The argument of the differentiated function that pointer `p` is based
 * on (through GEPs and casts), as its index, or -1. */
static int based_on_argument(ZyGen *g, LLVMValueRef p) {
  for (;;) {
    if (LLVMIsAGetElementPtrInst(p) || LLVMIsABitCastInst(p) ||
        LLVMIsAAddrSpaceCastInst(p))
      p = LLVMGetOperand(p, 0);
    else if (LLVMIsAConstantExpr(p) &&
             (LLVMGetConstOpcode(p) == LLVMGetElementPtr ||
              LLVMGetConstOpcode(p) == LLVMBitCast ||
              LLVMGetConstOpcode(p) == LLVMAddrSpaceCast))
      p = LLVMGetOperand(p, 0);
    else
      break;
  }
  if (!LLVMIsAArgument(p) || LLVMGetParamParent(p) != g->primal)
    return -1;
  for (unsigned k = 0, n = LLVMCountParams(g->primal); k < n && k < 64; k++)
    if (LLVMGetParam(g->primal, k) == p)
      return (int)k;
  return -1;
}

int zy_load_recomputable(ZyGen *g, LLVMValueRef load) {
  if (g->split && g->sig.parallel) /* an OpenMP region's body */
    return zy_region_load_recomputable(g, load);
  if (g->split) { /* the callers may change memory before the reverse */
    int k = based_on_argument(g, LLVMGetOperand(load, 0));
    if (k < 0 || !(g->sig.stable_args >> k & 1))
      return 0;
  }
  return zy_load_unchanged(g, load);
}

unsigned long long zy_stable_args(ZyGen *g, LLVMValueRef call) {
  uintptr_t memo = (uintptr_t)zy_map_get(&g->stable, call);
  if (memo)
    return memo - 1;
  unsigned long long bits = 0;
  if (g->zm->nested_ad || zy_gpu_device_kind(g->zm->mod))
    return 0;
  for (unsigned a = 0; a < LLVMGetNumArgOperands(call) && a < 63; a++) {
    LLVMValueRef p = LLVMGetOperand(call, a);
    if (LLVMGetTypeKind(LLVMTypeOf(p)) != LLVMPointerTypeKind)
      continue;
    int k = based_on_argument(g, p);
    if (k < 0 || (g->split && !(g->sig.stable_args >> k & 1)))
      continue;
    if (!g->alias)
      g->alias = zy_llvm_alias_new(g->primal);
    if (!zy_llvm_alias_written_after(g->alias, call, p, ignored_write, g))
      bits |= 1ull << a;
  }
  zy_map_put(&g->stable, call, (void *)(uintptr_t)(bits + 1));
  return bits;
}

/* A header phi `start, start + step, ...` (integer add or GEP by a
 * constant): *start and the step instruction. */
static int affine_phi(ZyGen *g, LLVMValueRef phi, LLVMValueRef *start,
                      LLVMValueRef *next) {
  ZyLoop *l = zy_loop_of(g, LLVMGetInstructionParent(phi));
  if (!l || l->header != LLVMGetInstructionParent(phi) ||
      LLVMCountIncoming(phi) != 2)
    return 0;
  *start = *next = NULL;
  for (unsigned k = 0; k < 2; k++) {
    if (LLVMGetIncomingBlock(phi, k) == l->preheader)
      *start = LLVMGetIncomingValue(phi, k);
    else
      *next = LLVMGetIncomingValue(phi, k);
  }
  if (!*start || !*next || !LLVMIsAInstruction(*next))
    return 0;
  LLVMValueRef n = *next;
  switch (LLVMGetInstructionOpcode(n)) {
  case LLVMAdd:
    return (LLVMGetOperand(n, 0) == phi &&
            LLVMIsAConstantInt(LLVMGetOperand(n, 1))) ||
           (LLVMGetOperand(n, 1) == phi &&
            LLVMIsAConstantInt(LLVMGetOperand(n, 0)));
  case LLVMSub:
    return LLVMGetOperand(n, 0) == phi &&
           LLVMIsAConstantInt(LLVMGetOperand(n, 1));
  case LLVMGetElementPtr:
    return LLVMGetNumOperands(n) == 2 && LLVMGetOperand(n, 0) == phi &&
           LLVMIsAConstantInt(LLVMGetOperand(n, 1));
  default:
    return 0;
  }
}

int zy_cheap_opcode(LLVMOpcode op) {
  switch (op) {
  case LLVMAdd: case LLVMSub: case LLVMMul: case LLVMShl: case LLVMLShr:
  case LLVMAShr: case LLVMAnd: case LLVMOr: case LLVMXor: case LLVMZExt:
  case LLVMSExt: case LLVMTrunc: case LLVMICmp: case LLVMSelect:
  case LLVMGetElementPtr: case LLVMFAdd: case LLVMFSub: case LLVMFMul:
  case LLVMFNeg: case LLVMSIToFP: case LLVMUIToFP: case LLVMFPToSI:
  case LLVMFPToUI: case LLVMFPExt: case LLVMFPTrunc: case LLVMFCmp:
  case LLVMBitCast: case LLVMExtractValue: case LLVMExtractElement:
  case LLVMInsertElement: case LLVMShuffleVector: case LLVMFreeze:
    return 1;
  default:
    return 0;
  }
}

static int operands_cost(ZyGen *g, LLVMValueRef v, ZyLoop *l, int depth);

/* Intrinsics that compute a value from their arguments alone, in a few
 * cycles: cheaper to compute again than to write to a buffer and read
 * back (`a * b + c` from clang's contraction is everywhere). */
int zy_arith_intrinsic(LLVMValueRef v) {
  static const char *const names[] = {
      "llvm.fmuladd.", "llvm.fma.",    "llvm.fabs.",   "llvm.copysign.",
      "llvm.minnum.",  "llvm.maxnum.", "llvm.sqrt.",   "llvm.minimum.",
      "llvm.maximum."};
  LLVMValueRef f = LLVMIsACallInst(v) ? LLVMGetCalledValue(v) : NULL;
  if (!f || !LLVMIsAFunction(f) || !LLVMGetIntrinsicID(f))
    return 0;
  const char *name = LLVMGetValueName(f);
  for (size_t k = 0; k < sizeof names / sizeof *names; k++)
    if (!strncmp(name, names[k], strlen(names[k])))
      return 1;
  return 0;
}

/* Math library calls with a derivative rule whose arguments and result
 * are all floating point (sin, cos, exp, log, pow, ...: not sincos or
 * frexp, which write through a pointer): their value depends on their
 * arguments alone, and computing one again costs less than a cache's
 * write and read back at sizes where the caches leave the processor's
 * caches (Enzyme recomputes them too).  Only with
 * -zymase-recompute-math: computing exp again in each reverse iteration
 * doubles LSTM's and LSE's time at sizes whose caches fit in the
 * processor's; BA gains at every size since a value looked up in several
 * reverse blocks of one iteration is computed once (share.c).  In device
 * code (nvptx, amdgcn) they are recomputed unless the option says
 * otherwise: there a loop cache is per-thread memory, local memory or the
 * device heap, scarce and slow (a lookup's pole loop kept exp, cos and sin
 * in four heap buffers per thread), and arithmetic cheap. */
int zy_recompute_math(ZyGen *g) {
  if (zy_opt_recompute_math_given())
    return zy_opt_recompute_math();
  return zy_gpu_device_kind(g->zm->mod) != 0;
}

static int fp_type(LLVMTypeRef t) {
  LLVMTypeKind k = LLVMGetTypeKind(t);
  return k == LLVMHalfTypeKind || k == LLVMFloatTypeKind ||
         k == LLVMDoubleTypeKind || k == LLVMX86_FP80TypeKind ||
         k == LLVMFP128TypeKind;
}

int zy_math_call(ZyGen *g, LLVMValueRef v) {
  if (!zy_recompute_math(g) && !zy_mathlog_mode(g))
    return 0;
  if (!LLVMIsACallInst(v) || !zy_rule_call(v) || !fp_type(LLVMTypeOf(v)))
    return 0;
  for (unsigned k = 0; k < LLVMGetNumArgOperands(v); k++)
    if (!fp_type(LLVMTypeOf(LLVMGetOperand(v, k))))
      return 0;
  return 1;
}

int zy_cheap_value(ZyGen *g, LLVMValueRef v) {
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  return zy_cheap_opcode(op) || op == LLVMFDiv || zy_arith_intrinsic(v) ||
         zy_math_call(g, v) || zy_call_recomputable(g, v);
}

int zy_call_recomputable(ZyGen *g, LLVMValueRef v) {
  if (!LLVMIsACallInst(v) || g->split || /* memory may change meanwhile */
      !zy_registry_should_recompute(LLVMGetCalledValue(v)))
    return 0;
  ZyCallMode m = zy_call_mode(g, v); /* the forward value is the call */
  return m == ZY_CALL_PLAIN || m == ZY_CALL_RULE || m == ZY_CALL_RECOMPUTE;
}

/* How many values the reverse sweep caches per iteration of `v`'s loop
 * when it recomputes `v`: 0 (everything it needs is available), 1 (one
 * operand, somewhere below, is cached in its place), or -1 when `v` is
 * cached itself.  Recomputing never costs more than caching `v`, and the
 * operand cached instead is often needed by the reverse sweep anyway (a
 * loaded c in  c * (1 - c)  serves both factors). */
static int decide(ZyGen *g, LLVMValueRef v, int depth) {
  ZyLoop *l = zy_loop_of(g, LLVMGetInstructionParent(v));
  LLVMValueRef start, next;
  if (!l)
    return -1;
  if (LLVMIsAPHINode(v))
    return affine_phi(g, v, &start, &next) ? 0 : -1;
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  if (op == LLVMLoad) {
    if (operands_cost(g, v, l, depth) != 0)
      return -1;
    return zy_load_recomputable(g, v) ? 0 : -1;
  }
  if (!zy_cheap_value(g, v))
    return -1;
  int c = operands_cost(g, v, l, depth);
  return c <= 1 ? c : -1;
}

/* Memoized decide(); the map holds cost + 2 (0 would read as absent). */
static int cost(ZyGen *g, LLVMValueRef v, int depth) {
  if (!LLVMIsAInstruction(v))
    return -1;
  void *memo = zy_map_get(&g->recompute, v);
  if (memo)
    return (int)(intptr_t)memo - 2;
  if (depth > MAX_DEPTH)
    return -1;
  zy_map_put(&g->recompute, v, (void *)(intptr_t)1); /* cycles: cached */
  int c = decide(g, v, depth);
  zy_map_put(&g->recompute, v, (void *)(intptr_t)(c + 2));
  return c;
}

/* The values cached per iteration to recompute from the operands of `v`:
 * invariant operands cost nothing, recomputable ones their cost, the
 * others (each distinct one) one. */
static int operands_cost(ZyGen *g, LLVMValueRef v, ZyLoop *l, int depth) {
  int n = LLVMGetNumOperands(v), total = 0;
  for (int k = 0; k < n; k++) {
    LLVMValueRef op = LLVMGetOperand(v, k);
    if (invariant_in(g, op, l))
      continue;
    int c = cost(g, op, depth + 1), seen = 0;
    for (int j = 0; j < k && c < 0; j++)
      seen |= LLVMGetOperand(v, j) == op;
    total += c >= 0 ? c : !seen;
  }
  return total;
}

static LLVMValueRef iteration(ZyGen *g, LLVMValueRef phi, LLVMTypeRef t) {
  ZyLoop *l = zy_loop_of(g, LLVMGetInstructionParent(phi));
  LLVMValueRef rc = LLVMBuildLoad2(g->b, LLVMInt64TypeInContext(g->zm->ctx),
                                   l->rc, "zymase.iv");
  return LLVMBuildIntCast2(g->b, rc, t, 0, "");
}

/* start + step * iteration, for an affine header phi. */
static LLVMValueRef rebuild_phi(ZyGen *g, LLVMValueRef phi,
                                LLVMValueRef start, LLVMValueRef next) {
  LLVMOpcode op = LLVMGetInstructionOpcode(next);
  if (op == LLVMGetElementPtr) {
    LLVMValueRef c = LLVMGetOperand(next, 1);
    LLVMValueRef k = LLVMBuildMul(g->b, iteration(g, phi, LLVMTypeOf(c)), c, "");
    return LLVMBuildGEP2(g->b, LLVMGetGEPSourceElementType(next), start, &k, 1,
                         "");
  }
  LLVMValueRef c = LLVMIsAConstantInt(LLVMGetOperand(next, 1))
                       ? LLVMGetOperand(next, 1)
                       : LLVMGetOperand(next, 0);
  LLVMValueRef k = LLVMBuildMul(g->b, iteration(g, phi, LLVMTypeOf(phi)), c, "");
  return op == LLVMSub ? LLVMBuildSub(g->b, start, k, "")
                       : LLVMBuildAdd(g->b, start, k, "");
}

LLVMValueRef zy_affine_start(ZyGen *g, LLVMValueRef phi) {
  LLVMValueRef start, next;
  return affine_phi(g, phi, &start, &next) ? start : NULL;
}

LLVMValueRef zy_affine_rebuild(ZyGen *g, LLVMValueRef phi,
                               LLVMValueRef start) {
  LLVMValueRef s, next;
  affine_phi(g, phi, &s, &next);
  return rebuild_phi(g, phi, start, next);
}

int zy_recomputable_free(ZyGen *g, LLVMValueRef v) {
  return cost(g, v, 0) == 0;
}

/* --- Branch decisions ------------------------------------------------------ */

/* Which successor of `d`'s conditional branch `t` the edge from `p` into
 * `bb` implies: the branch goes straight to bb from d, or to a successor
 * only d enters that dominates p; -1 when neither. */
static int edge_side(ZyGen *g, LLVMBasicBlockRef d, LLVMValueRef t,
                     LLVMBasicBlockRef p, LLVMBasicBlockRef bb) {
  for (unsigned s = 0; s < 2; s++) {
    LLVMBasicBlockRef succ = LLVMGetSuccessor(t, s);
    ZyVec *sp = zy_preds(g, succ);
    if (p == d && succ == bb && LLVMGetSuccessor(t, 1 - s) != bb)
      return (int)s;
    if (succ != bb && sp->len == 1 && sp->data[0] == d &&
        zy_llvm_domtree_dominates(g->dt, succ, p))
      return (int)s;
  }
  return -1;
}

LLVMValueRef zy_recompute_pred(ZyGen *g, LLVMBasicBlockRef bb) {
  ZyLoop *l = zy_loop_of(g, bb);
  ZyVec *preds = zy_preds(g, bb);
  if ((!l && !g->split) || preds->len != 2) /* (split: else on the tape) */
    return NULL;
  LLVMBasicBlockRef d = zy_llvm_domtree_idom(g->dt, bb);
  LLVMValueRef t = d ? LLVMGetBasicBlockTerminator(d) : NULL;
  if (!t || zy_loop_of(g, d) != l || LLVMGetInstructionOpcode(t) != LLVMBr ||
      !LLVMIsConditional(t))
    return NULL;
  LLVMValueRef c = LLVMGetCondition(t);
  if (l ? !invariant_in(g, c, l) && !zy_recomputable_free(g, c)
        : LLVMIsAInstruction(c) && !zy_split_recomputable(g, c))
    return NULL;
  int s0 = edge_side(g, d, t, preds->data[0], bb);
  int s1 = edge_side(g, d, t, preds->data[1], bb);
  if (s0 < 0 || s1 < 0 || s0 == s1)
    return NULL;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(g->zm->ctx);
  /* Successor 0 is taken when the condition is true. */
  return LLVMBuildSelect(g->b, zy_lookup(g, c), LLVMConstInt(i32, s0 != 0, 0),
                         LLVMConstInt(i32, s0 == 0, 0), "zymase.from");
}

/* Whether a load or store of the same type through pointer `p` as load
 * `v` runs whenever block `d` does (so `v` cannot fault either). */
static int loaded_anyway(ZyGen *g, LLVMValueRef v, LLVMValueRef p,
                         LLVMBasicBlockRef d) {
  for (LLVMUseRef u = LLVMGetFirstUse(p); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef w = LLVMGetUser(u);
    int st = LLVMIsAStoreInst(w) && LLVMGetOperand(w, 1) == p;
    if (!(LLVMIsALoadInst(w) || st) ||
        LLVMTypeOf(st ? LLVMGetOperand(w, 0) : w) != LLVMTypeOf(v))
      continue;
    if (zy_llvm_domtree_dominates(g->dt, LLVMGetInstructionParent(w), d))
      return 1;
  }
  return 0;
}

/* Whether `v` may be computed in an iteration that took the other side
 * of the branch of block `d`: it ran anyway (its block dominates d), or
 * it loads only what is loaded anyway (a load the branch guards may be
 * out of bounds), and so do its operands.  Arithmetic does not trap. */
static int speculatable(ZyGen *g, LLVMValueRef v, LLVMBasicBlockRef d,
                        int depth) {
  if (!LLVMIsAInstruction(v) ||
      zy_llvm_domtree_dominates(g->dt, LLVMGetInstructionParent(v), d))
    return 1;
  if (depth > MAX_DEPTH || LLVMIsAPHINode(v) ||
      (LLVMIsALoadInst(v) && !loaded_anyway(g, v, LLVMGetOperand(v, 0), d)))
    return 0;
  for (int k = 0; k < LLVMGetNumOperands(v); k++)
    if (!speculatable(g, LLVMGetOperand(v, k), d, depth + 1))
      return 0;
  return 1;
}

int zy_phi_branch(ZyGen *g, LLVMValueRef phi, LLVMValueRef *cond,
                  LLVMValueRef *if_true, LLVMValueRef *if_false) {
  if (!zy_recompute_math(g) && !zy_mathlog_mode(g))
    return 0;
  LLVMBasicBlockRef bb = LLVMGetInstructionParent(phi);
  ZyLoop *l = zy_loop_of(g, bb);
  ZyVec *preds = zy_preds(g, bb);
  if (!l || l->header == bb || preds->len != 2 || LLVMCountIncoming(phi) != 2)
    return 0;
  LLVMBasicBlockRef d = zy_llvm_domtree_idom(g->dt, bb);
  LLVMValueRef t = d ? LLVMGetBasicBlockTerminator(d) : NULL;
  if (!t || zy_loop_of(g, d) != l || LLVMGetInstructionOpcode(t) != LLVMBr ||
      !LLVMIsConditional(t))
    return 0;
  LLVMValueRef c = LLVMGetCondition(t), side[2] = {NULL, NULL};
  if (!invariant_in(g, c, l) && !zy_recomputable_free(g, c))
    return 0;
  for (unsigned k = 0; k < 2; k++) {
    LLVMBasicBlockRef from = LLVMGetIncomingBlock(phi, k);
    LLVMValueRef v = LLVMGetIncomingValue(phi, k);
    int s = edge_side(g, d, t, from, bb);
    if (s < 0 || side[s] || !speculatable(g, v, d, 0) ||
        (!invariant_in(g, v, l) && !zy_recomputable_free(g, v)))
      return 0;
    side[s] = v;
  }
  if (!side[0] || !side[1])
    return 0;
  *cond = c;
  *if_true = side[0];
  *if_false = side[1];
  return 1;
}

/* --- Shadows ---------------------------------------------------------------- */

/* Whether the shadow of primal pointer `p` is recomputed (GEPs and
 * pointer induction variables over shadows available anyway). */
int zy_shadow_recomputable(ZyGen *g, LLVMValueRef p) {
  if (!LLVMIsAInstruction(p))
    return 0;
  ZyLoop *l = zy_loop_of(g, LLVMGetInstructionParent(p));
  LLVMValueRef start, next;
  if (!l)
    return 0;
  if (LLVMIsAPHINode(p))
    return affine_phi(g, p, &start, &next) &&
           LLVMGetTypeKind(LLVMTypeOf(p)) == LLVMPointerTypeKind;
  if (!LLVMIsAGetElementPtrInst(p))
    return 0;
  LLVMValueRef base = LLVMGetOperand(p, 0);
  if (!invariant_in(g, base, l) && !zy_shadow_recomputable(g, base))
    return 0;
  for (int k = 1; k < LLVMGetNumOperands(p); k++) {
    LLVMValueRef op = LLVMGetOperand(p, k);
    if (!invariant_in(g, op, l) && !zy_recomputable_free(g, op))
      return 0;
  }
  return 1;
}

LLVMValueRef zy_shadow_recompute(ZyGen *g, LLVMValueRef p) {
  LLVMValueRef start, next;
  if (LLVMIsAPHINode(p)) {
    affine_phi(g, p, &start, &next);
    return rebuild_phi(g, p, zy_shadow_lookup(g, start), next);
  }
  LLVMValueRef c = LLVMInstructionClone(zy_map_get(&g->vmap, p));
  LLVMSetOperand(c, 0, zy_shadow_lookup(g, LLVMGetOperand(p, 0)));
  for (int k = 1; k < LLVMGetNumOperands(p); k++) {
    LLVMValueRef op = LLVMGetOperand(p, k);
    if (LLVMIsAInstruction(op) || LLVMIsAArgument(op))
      LLVMSetOperand(c, k, zy_lookup(g, op));
  }
  LLVMInsertIntoBuilderWithName(g->b, c, "");
  return c;
}
