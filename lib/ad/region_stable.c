/* region_stable.c - which memory the reverse of an OpenMP region may load
 * again instead of taping.  A region's body is differentiated in split
 * mode (an augmented forward per thread, a tape, a reverse per thread), so
 * a load of its iterations is recomputed in its reverse only when neither
 * the region (any of its threads, at any point of the body) nor its
 * caller between the region's forward and its reverse writes what the
 * load read.  The caller, a gradient that is not split and runs on one
 * thread, tells which body parameters qualify (ZySig.stable_args and, for
 * the locals of shared variables captured by reference, the memory the
 * pointers stored there point into: ZySig.stable_deep); the body checks
 * its own writes.  When unsure, the value is taped.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "cache.h"

#include "ad/runtime.h"
#include "analysis/registry.h"
#include "calls/omp_calls.h"
#include "ir/rules.h"

#include <stdio.h>
#include <string.h>

static int is_lifetime(LLVMValueRef call) {
  LLVMValueRef f = LLVMIsACallInst(call) ? LLVMGetCalledValue(call) : NULL;
  return f && LLVMIsAFunction(f) &&
         !strncmp(LLVMGetValueName(f), "llvm.lifetime.", 14);
}

/* Whether g's primal calls an OpenMP region (memoized in g->omp_caller). */
static int calls_region(ZyGen *g) {
  if (!g->omp_caller) {
    g->omp_caller = 1;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i))
        if (zy_parallel()->omp_is_region(i))
          g->omp_caller = 2;
  }
  return g->omp_caller == 2;
}

int zy_region_drops_lifetime(ZyGen *g, LLVMValueRef call) {
  return !g->split && is_lifetime(call) && calls_region(g);
}

/* Calls whose writes do not matter between a region's forward and its
 * reverse: math library calls (errno), frees deferred to the end of the
 * reverse sweep, lifetime markers the forward sweep leaves out. */
static int ignored_write(LLVMValueRef call, void *ctx) {
  ZyGen *g = ctx;
  return zy_free_deferred(g, call) || zy_rule_call(call) ||
         zy_region_drops_lifetime(g, call);
}

static LLVMValueRef strip(LLVMValueRef p) {
  while (LLVMIsAGetElementPtrInst(p) || LLVMIsABitCastInst(p) ||
         LLVMIsAAddrSpaceCastInst(p))
    p = LLVMGetOperand(p, 0);
  return p;
}

/* Whether the memory at any offset from `p` lives, unwritten, from the
 * region call `call` to the end of the gradient: p points into an argument
 * of the gradient (the user's memory), an alloca or a block the gradient's
 * primal allocates (its frees are deferred), and nothing of the caller
 * that may run after the call writes it. */
static int unchanged_after(ZyGen *g, LLVMValueRef call, LLVMValueRef p) {
  if (LLVMGetTypeKind(LLVMTypeOf(p)) != LLVMPointerTypeKind)
    return 0;
  LLVMValueRef o = strip(p);
  int local =
      LLVMIsAInstruction(o) &&
      LLVMGetBasicBlockParent(LLVMGetInstructionParent(o)) == g->primal &&
      (LLVMIsAAllocaInst(o) ||
       (LLVMIsACallInst(o) && zy_activity_allocation(o) != ZY_ALLOC_NONE));
  if (!local && !(LLVMIsAArgument(o) && LLVMGetParamParent(o) == g->primal))
    return 0;
  if (!g->alias)
    g->alias = zy_llvm_alias_new(g->primal);
  return !zy_llvm_alias_written_after(g->alias, call, p, ignored_write, g);
}

/* Whether `a` is an alloca whose users are loads, stores into it,
 * lifetime markers and region calls only; with `pointers`, at least one
 * store, every value stored a pointer into memory that stays unchanged
 * after `call`, and no call of another region (whose body might store
 * another pointer there) than `call`'s: calls of the same body (clang
 * versions a region call on a branch) do not write there, as the body
 * checks (zy_region_load_recomputable). */
static int plain_local(ZyGen *g, LLVMValueRef call, LLVMValueRef a,
                       int pointers) {
  if (!LLVMIsAAllocaInst(a))
    return 0;
  int stores = 0;
  for (LLVMUseRef u = LLVMGetFirstUse(a); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsALoadInst(user) || is_lifetime(user) ||
        (zy_parallel()->omp_is_region(user) &&
         (!pointers || LLVMGetCalledValue(user) == LLVMGetCalledValue(call))))
      continue;
    if (!LLVMIsAStoreInst(user) || LLVMGetOperand(user, 1) != a ||
        LLVMGetOperand(user, 0) == a ||
        (pointers && !unchanged_after(g, call, LLVMGetOperand(user, 0))))
      return 0;
    stores++;
  }
  return !pointers || stores > 0;
}

/* Whether `a` is the operand `j` of `call` and no other. */
static int passed_once(LLVMValueRef call, LLVMValueRef a, unsigned j) {
  for (unsigned k = 0; k < LLVMGetNumArgOperands(call); k++)
    if (k != j && strip(LLVMGetOperand(call, k)) == a)
      return 0;
  return 1;
}

unsigned long long zy_region_stable_args(ZyGen *g, LLVMValueRef call,
                                         unsigned long long *deep,
                                         unsigned long long *own) {
  *deep = *own = 0;
  if (g->split || zy_parallel()->context(g) || g->zm->nested_ad ||
      zy_gpu_device_kind(g->zm->mod))
    return 0;
  unsigned long long bits = 0;
  for (unsigned a = 2; a < LLVMGetNumArgOperands(call) && a < 64; a++) {
    LLVMValueRef p = LLVMGetOperand(call, a);
    if (LLVMGetTypeKind(LLVMTypeOf(p)) != LLVMPointerTypeKind)
      continue;
    if (p == strip(p) && plain_local(g, call, p, 0) && passed_once(call, p, a))
      *own |= 1ull << a;
    if (!unchanged_after(g, call, p))
      continue;
    bits |= 1ull << a;
    if (plain_local(g, call, p, 1))
      *deep |= 1ull << a;
  }
  return bits;
}

/* --- In the body ------------------------------------------------------ */

static int param_index(ZyGen *g, LLVMValueRef p) {
  if (!LLVMIsAArgument(p) || LLVMGetParamParent(p) != g->primal)
    return -1;
  for (unsigned k = 0, n = LLVMCountParams(g->primal); k < n && k < 64; k++)
    if (LLVMGetParam(g->primal, k) == p)
      return (int)k;
  return -1;
}

/* What a load of the body reads: memory of parameter k itself, or
 * (deep) memory a pointer loaded from parameter k's memory points into. */
typedef struct Origin {
  ZyGen *g;
  int k, deep;
} Origin;

/* Whether pointer `p` reaches only the thread's own frame in the body
 * (an alloca of it) or the runtime's own state (a global, null). */
static int runtime_owned(ZyGen *g, LLVMValueRef p) {
  p = strip(p);
  if (LLVMIsAConstant(p))
    return LLVMIsAGlobalVariable(p) || LLVMIsNull(p) || LLVMIsUndef(p);
  return LLVMIsAAllocaInst(p) &&
         LLVMGetBasicBlockParent(LLVMGetInstructionParent(p)) == g->primal;
}

/* Calls whose writes do not reach what a load of the body read, which
 * is memory of the caller: math library calls (errno), lifetime markers
 * of the body's frame and the OpenMP runtime's calls (schedules,
 * barriers, locks: they write the bounds the worksharing loop gets, in
 * the thread's own frame, and their own state, nothing else). */
static int ignored_call(ZyGen *g, LLVMValueRef call) {
  if (zy_rule_call(call))
    return 1;
  LLVMValueRef f = LLVMGetCalledValue(call);
  if (!f || !LLVMIsAFunction(f) ||
      !(zy_omp_inactive_function(f) || is_lifetime(call)))
    return 0;
  for (unsigned k = 0; k < LLVMGetNumArgOperands(call); k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    if (LLVMGetTypeKind(LLVMTypeOf(a)) == LLVMPointerTypeKind &&
        !runtime_owned(g, a))
      return 0;
  }
  return 1;
}

/* Writes of the body that cannot reach the load's memory (the caller's):
 * ignored calls, the sequence numbers of lock releases
 * (parallel/openmp.c), stores into the body's own frame, and stores into a
 * local of the caller that only their parameter reaches (own_args: the
 * reduction's shared variable), when the load reads another parameter's memory
 * or memory a loaded pointer reaches. */
static int body_ignored(LLVMValueRef inst, void *ctx) {
  Origin *o = ctx;
  if (LLVMIsACallInst(inst))
    return ignored_call(o->g, inst);
  LLVMValueRef p = NULL;
  if (LLVMIsAStoreInst(inst))
    p = LLVMGetOperand(inst, 1);
  else if (LLVMIsAAtomicRMWInst(inst) || LLVMIsAAtomicCmpXchgInst(inst))
    p = LLVMGetOperand(inst, 0);
  if (p && LLVMIsAGlobalVariable(strip(p)) && /* a lock's sequence */
      !strcmp(LLVMGetValueName(strip(p)), "zymase.omp.order"))
    return 1;
  if (p && LLVMIsAAllocaInst(strip(p))) /* the thread's own frame */
    return 1;
  int j = p ? param_index(o->g, strip(p)) : -1;
  return j >= 0 && (o->g->sig.own_args >> j & 1) &&
         (o->deep || (j != o->k && (o->g->sig.own_args >> o->k & 1)));
}

/* Whether no instruction of the body (any thread runs every one of them,
 * at any time) writes what `load` reads. */
static int unwritten_in_body(ZyGen *g, LLVMValueRef load, int k, int deep) {
  if (!LLVMIsALoadInst(load))
    return 0;
  if (!g->alias)
    g->alias = zy_llvm_alias_new(g->primal);
  Origin o = {g, k, deep};
  return !zy_llvm_alias_load_written(g->alias, load, body_ignored, &o);
}

int zy_region_load_recomputable(ZyGen *g, LLVMValueRef load) {
  LLVMValueRef base = strip(LLVMGetOperand(load, 0));
  int k = param_index(g, base);
  if (k >= 0) /* a parameter's own memory */
    return (g->sig.stable_args >> k & 1) && unwritten_in_body(g, load, k, 0);
  /* through a pointer loaded from a parameter's memory */
  if (!LLVMIsALoadInst(base) ||
      LLVMGetTypeKind(LLVMTypeOf(base)) != LLVMPointerTypeKind)
    return 0;
  k = param_index(g, strip(LLVMGetOperand(base, 0)));
  return k >= 0 && (g->sig.stable_deep >> k & 1) &&
         unwritten_in_body(g, base, k, 0) && unwritten_in_body(g, load, k, 1);
}

/* --- The cache report ------------------------------------------------- */

void zy_loops_report_tape(ZyGen *g) {
  enum { MAXL = 64 };
  unsigned long long once = 0, per[MAXL] = {0};
  for (size_t k = 0; k < g->report.len; k++) {
    const char *line = g->report.data[k], *b = strstr(line, " bytes, ");
    unsigned long long n = 0;
    unsigned l = 0;
    if (!b)
      continue;
    while (b > line && b[-1] >= '0' && b[-1] <= '9')
      b--;
    if (sscanf(b, "%llu bytes, ", &n) != 1)
      continue;
    const char *how = strstr(b, " bytes, ") + 8;
    if (!strncmp(how, "once", 4))
      once += n;
    else if (sscanf(how, "per iteration of loop %u", &l) == 1 && l < MAXL)
      per[l] += n;
  }
  fprintf(stderr, "  tape per thread: %llu bytes once", once);
  for (unsigned l = 0; l < MAXL; l++)
    if (per[l])
      fprintf(stderr, ", %llu bytes each iteration of loop %u", per[l], l);
  fprintf(stderr, "\n");
}
