/* check.c - step 4 of a gradient: what the sweeps can handle, so
 * that everything else is refused with a clear error before any code is
 * generated: places where a derivative would be dropped,
 * memory operations on pointers with shadows.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "ad.h"

#include "cache.h"

#include "analysis/effects.h"
#include "analysis/registry.h"
#include "calls/blas_calls.h"
#include "calls/mpi_calls.h"
#include "ir/rules.h"
#include "runtime.h"

#include <stdio.h>
#include <string.h>

/* Whether `p` points into a global the user marked inactive. */
static int stores_to_inactive_global(LLVMValueRef p) {
  while (LLVMIsAGetElementPtrInst(p) || LLVMIsABitCastInst(p) ||
         (LLVMIsAConstantExpr(p) && !LLVMIsAGlobalValue(p)))
    p = LLVMGetOperand(p, 0);
  return LLVMIsAGlobalVariable(p) && zy_activity_inactive_global(p);
}

/* A call that receives an active value: fine when derivatives can only
 * leave it through its result (math functions, calls that only read
 * memory, functions whose bodies write nothing outside their frame) or
 * when it only prints. */
static int check_call_flow(ZyGen *g, LLVMValueRef call) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  const ZyRule *w = zy_rule_writer_for_call(callee);
  for (unsigned k = 0; w && k < LLVMGetNumArgOperands(call); k++)
    if (w->outs[k] == 'F' &&
        !zy_activity_shadowed(g->act, LLVMGetOperand(call, k))) {
      g->cur = call;
      return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                          "pass the memory with enzyme_dup (or as a pointer "
                          "argument), or write to a local variable",
                          "'%s' writes a result that carries a derivative "
                          "through argument %u, which points to memory "
                          "without a shadow",
                          LLVMGetValueName(callee), k + 1);
    }
  if (w)
    return 0;
  if (zy_blas_routine(callee, NULL, NULL) || zy_blas_like(callee))
    return zy_runtime(ZY_CALL_BLAS)->check_call(g, call);
  if (zy_rule_for_call(callee) || zy_llvm_call_reads_only(call) ||
      zy_activity_inactive_function(callee) || zy_mpi_row(callee))
    return 0; /* (MPI calls: zy_mpi_check) */
  if (zy_registry_differentiable(callee) &&
      !LLVMIsFunctionVarArg(LLVMGlobalGetValueType(callee)))
    return 0; /* differentiated through its own (or a custom) gradient */
  if (callee && LLVMIsAFunction(callee) && LLVMIsDeclaration(callee) &&
      zy_activity_useful(g->act, call) && zy_activity_varied(g->act, call))
    return 0; /* reported by the reverse sweep as a missing rule */
  g->cur = call;
  if (callee && LLVMIsAInlineAsm(callee))
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                        "inline assembly receives an active value; it cannot "
                        "be differentiated");
  if (!callee || !LLVMIsAFunction(callee))
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                        "call the function directly, or choose it with a "
                        "select or a branch between known functions",
                        "an indirect call whose possible targets are unknown "
                        "receives an active value");
  return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                      "pass the value as a return value, or mark the "
                      "argument enzyme_const",
                      "an active value is passed to a call that may write "
                      "memory; derivatives through memory are not "
                      "supported yet");
}

/* Every place where an active value flows into something that
 * does not propagate derivatives must be one where dropping the
 * derivative is right (comparisons, float-to-int conversion, calls
 * without effects on memory).  Anything else would silently lose
 * derivatives. */
/* Whether `fn` is the augmented forward or the reverse function of a
 * split gradient (gradient.c), met again by a nested gradient. */
static int split_half(LLVMValueRef fn) {
  const char *name = LLVMGetValueName(fn);
  return !strncmp(name, "__zymase_aug.", 13) ||
         !strncmp(name, "__zymase_rev.", 13);
}

static int check_atomic(ZyGen *g, LLVMValueRef i);

static int check_flows(ZyGen *g) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      int nops = LLVMGetNumOperands(i), varied = 0;
      for (int k = 0; k < nops; k++)
        varied |= zy_activity_varied(g->act, LLVMGetOperand(i, k));
      if (!varied)
        continue;
      LLVMOpcode op = LLVMGetInstructionOpcode(i);
      if (op == LLVMCall) {
        if (check_call_flow(g, i))
          return -1;
        continue;
      }
      g->cur = i;
      if (op == LLVMAtomicRMW || op == LLVMAtomicCmpXchg) {
        if (check_atomic(g, i))
          return -1;
        if (op == LLVMAtomicRMW &&
            zy_activity_shadowed(g->act, LLVMGetOperand(i, 0)))
          continue; /* s += v into memory with a shadow: reversed */
        return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                            "atomic operations on active values are not "
                            "supported yet");
      }
      /* Extracting an integer member of an active aggregate is fine. */
      /* The bits of an active float, as an integer: no derivative flows
       * there (punning.c warns where they come back as a float). */
      if (op == LLVMBitCast && !zy_type_differentiable(LLVMTypeOf(i)))
        continue;
      if (zy_activity_varied(g->act, i) || op == LLVMFCmp ||
          op == LLVMFPToSI || op == LLVMFPToUI || op == LLVMRet ||
          op == LLVMBr || op == LLVMSwitch || op == LLVMExtractValue ||
          op == LLVMExtractElement)
        continue;
      g->cur = i;
      if (op == LLVMStore &&
          zy_activity_shadowed(g->act, LLVMGetOperand(i, 1)))
        continue; /* into shadowed memory: reversed */
      if (op == LLVMStore && stores_to_inactive_global(LLVMGetOperand(i, 1)))
        continue; /* dropped on purpose */
      if (op == LLVMStore && split_half(g->user))
        return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                            "differentiate a gradient taken with enzyme_dup "
                            "pointers once more at most (second "
                            "derivatives); higher derivatives work through "
                            "scalar arguments",
                            "nested AD: this half of a gradient split in two "
                            "(a callee that updates memory with shadows) "
                            "keeps values with derivatives in its tape, "
                            "which has no shadow");
      if (op == LLVMStore)
        return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                            "pass the memory with enzyme_dup (or as a "
                            "pointer argument) so that it has a shadow",
                            "an active value is stored to memory that has "
                            "no shadow (a global, or memory reached through "
                            "an enzyme_const pointer)");
      if (zy_activity_useful(g->act, i))
        return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                            "an active value flows through an instruction "
                            "that Zymase cannot differentiate");
    }
  return 0;
}

static int is_null(LLVMValueRef v) {
  return LLVMIsAConstantPointerNull(v) || LLVMIsUndef(v) || LLVMIsPoison(v);
}

/* A pointer the function received from its caller: an argument, or one
 * loaded from memory (not one of its own allocations). */
static int from_caller(LLVMValueRef p) {
  while (LLVMIsABitCastInst(p))
    p = LLVMGetOperand(p, 0);
  return LLVMIsAArgument(p) || LLVMIsALoadInst(p);
}

/* Whether pointer `p` is an argument of the function, or loaded from
 * memory an argument reaches (the differentiated function's caller owns
 * it), through GEPs and bitcasts. */
static int from_argument(LLVMValueRef p, int depth) {
  while (LLVMIsAGetElementPtrInst(p) || LLVMIsABitCastInst(p))
    p = LLVMGetOperand(p, 0);
  if (LLVMIsAArgument(p))
    return 1;
  if (depth > 4)
    return 0;
  if (LLVMIsALoadInst(p))
    return from_argument(LLVMGetOperand(p, 0), depth + 1);
  if (!LLVMIsAAllocaInst(p)) /* (a callee's body as -O0 leaves it: its */
    return 0;                /* arguments kept in locals) */
  for (LLVMUseRef u = LLVMGetFirstUse(p); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef st = LLVMGetUser(u);
    if (LLVMIsAStoreInst(st) && LLVMGetOperand(st, 1) == p &&
        from_argument(LLVMGetOperand(st, 0), depth + 1))
      return 1;
  }
  return 0;
}

/* Whether function `f` (with a body) reallocs memory its caller passes
 * it (not its own blocks, nor a gradient's cache buffers). */
static int reallocs_argument_memory(LLVMValueRef f) {
  if (!f || !LLVMIsAFunction(f) || LLVMIsDeclaration(f))
    return 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      if (!LLVMIsACallInst(i) || zy_activity_allocation(i) != ZY_ALLOC_REALLOC)
        continue;
      LLVMValueRef p = LLVMGetOperand(i, 0);
      if (!LLVMIsAConstantPointerNull(p) && from_argument(p, 0))
        return 1;
    }
  return 0;
}

/* A call of a function that reallocs memory its caller passes it: the
 * callee's reverse sweep moves the adjoints back into the old block's
 * shadow and frees it, as realloc freed the block.  That is right when
 * the old block comes from outside the differentiation (an argument of
 * this function, or memory an argument reaches), once; a block of this
 * function's own (its local, its heap memory, an earlier such call's
 * result) is still needed by this function's reverse sweep, or by the
 * reverse of the call that reallocated it before, after the callee freed
 * its shadow: the gradient read freed memory (garbage, silently). */
static int check_realloc_call(ZyGen *g, LLVMValueRef call, int *seen) {
  if (!reallocs_argument_memory(LLVMGetCalledValue(call)))
    return 0;
  int outside = !zy_loop_of(g, LLVMGetInstructionParent(call)) && !*seen;
  for (unsigned k = 0; outside && k < LLVMGetNumArgOperands(call); k++) {
    LLVMValueRef a = LLVMGetOperand(call, k);
    outside = !zy_activity_shadowed(g->act, a) || from_argument(a, 0);
  }
  *seen = 1;
  if (outside)
    return 0;
  return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                      "realloc in the function given to __enzyme_autodiff "
                      "itself, or allocate the final size before the call",
                      "a call of '%s', which reallocs memory its caller "
                      "passes it, with memory of this function's own, "
                      "more than once or in a loop: the callee's reverse "
                      "sweep would free the old block's shadow before this "
                      "function's reverse sweep is done with it",
                      LLVMGetValueName(LLVMGetCalledValue(call)));
}

/* Calls that may receive shadowed pointers: the ones the memory rules
 * know, and ones that cannot write through their arguments. */
static int call_takes_shadowed(LLVMValueRef call) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  const char *name = callee && LLVMIsAFunction(callee)
                         ? LLVMGetValueName(callee)
                         : "";
  return !strcmp(name, "posix_memalign") ||
         zy_activity_allocation(call) == ZY_ALLOC_MALLOC ||
         zy_activity_allocation(call) == ZY_ALLOC_CALLOC ||
         zy_activity_allocation(call) == ZY_ALLOC_ALIGNED ||
         zy_activity_allocation(call) == ZY_ALLOC_LIKE ||
         zy_activity_deallocation(call) || !strncmp(name, "llvm.mem", 8) ||
         zy_rule_writer_for_call(callee) ||
         !strncmp(name, "llvm.lifetime.", 14) ||
         !strncmp(name, "llvm.dbg.", 9) || !strcmp(name, "llvm.assume") ||
         /* umax of pointer bits in a trip count, ... */
         (!strncmp(name, "llvm.", 5) && zy_llvm_call_no_memory(call)) ||
         zy_activity_inactive_function(callee);
}

/* Atomics: `atomicrmw fadd`/`fsub` of a float into memory with a shadow
 * whose old value is unused (`#pragma omp atomic` s += v) is
 * differentiated; other atomics are fine on memory without derivatives
 * (integer counters, lock sequences) and refused on memory with them. */
static int check_atomic(ZyGen *g, LLVMValueRef i) {
  LLVMValueRef p = LLVMGetOperand(i, 0);
  LLVMValueRef v = LLVMGetOperand(i, LLVMGetInstructionOpcode(i) ==
                                             LLVMAtomicRMW
                                         ? 1
                                         : 2);
  if (!zy_activity_shadowed(g->act, p))
    return 0;
  int fp = zy_type_differentiable(LLVMTypeOf(v));
  ZyTy held = zy_types_memory(g->types, p, 0);
  if (!fp && !zy_ty_is_float(held) && held != ZY_TY_ANYTHING)
    return 0; /* an integer in memory that has a shadow */
  if (fp && LLVMGetInstructionOpcode(i) == LLVMAtomicRMW &&
      (LLVMGetAtomicRMWBinOp(i) == LLVMAtomicRMWBinOpFAdd ||
       LLVMGetAtomicRMWBinOp(i) == LLVMAtomicRMWBinOpFSub)) {
    if (!zy_activity_active(g->act, i) || !LLVMGetFirstUse(i))
      return 0;
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                        "read the variable in a separate atomic read",
                        "an atomic update whose old value is used (atomic "
                        "capture) of memory with derivatives is not "
                        "supported yet");
  }
  return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                      "use += or -= in '#pragma omp atomic', a critical "
                      "section, or a reduction clause",
                      "an atomic operation other than a floating-point add "
                      "or subtract (e.g. a compare-and-swap loop for *=, "
                      "max or min) on memory with derivatives is not "
                      "supported");
}

/* Whether integer `v` is (bits of) a value loaded from shadowed memory,
 * through integer operations. */
static int int_from_shadowed_memory(ZyGen *g, LLVMValueRef v, int depth) {
  if (depth > 16 || !LLVMIsAInstruction(v))
    return 0;
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMLoad:
    return zy_activity_shadowed(g->act, LLVMGetOperand(v, 0));
  case LLVMBitCast: /* the bits of a float: see punning.c */
    if (!LLVMIsAInstruction(LLVMGetOperand(v, 0)) ||
        zy_type_differentiable(LLVMTypeOf(LLVMGetOperand(v, 0))))
      return 0;
    return int_from_shadowed_memory(g, LLVMGetOperand(v, 0), depth + 1);
  case LLVMTrunc:
  case LLVMZExt:
  case LLVMSExt:
  case LLVMLShr:
  case LLVMAShr:
  case LLVMShl:
  case LLVMAnd:
  case LLVMOr:
  case LLVMXor:
  case LLVMExtractElement:
  case LLVMFreeze:
    for (int k = 0; k < LLVMGetNumOperands(v) && k < 2; k++)
      if (int_from_shadowed_memory(g, LLVMGetOperand(v, k), depth + 1))
        return 1;
    return 0;
  case LLVMPHI:
  case LLVMSelect:
    for (int k = 0; k < LLVMGetNumOperands(v); k++)
      if (int_from_shadowed_memory(g, LLVMGetOperand(v, k), depth + 1))
        return 1;
    return 0;
  default:
    return 0;
  }
}

/* Whether the function uses memory with shadows at all. */
static int uses_shadows(ZyGen *g) {
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(g->primal); b;
       b = LLVMGetNextBasicBlock(b))
    for (LLVMValueRef j = LLVMGetFirstInstruction(b); j;
         j = LLVMGetNextInstruction(j))
      if (zy_activity_shadowed(g->act, j) ||
          (LLVMGetNumOperands(j) &&
           zy_activity_shadowed(g->act, LLVMGetOperand(j, 0))))
        return 1;
  return 0;
}

/* Whether integer `v` is computed from the bits of a shadowed pointer. */
static int int_from_shadowed_pointer(ZyGen *g, LLVMValueRef v, int depth) {
  if (depth > 16 || !LLVMIsAInstruction(v))
    return 0;
  if (LLVMGetInstructionOpcode(v) == LLVMPtrToInt)
    return zy_activity_shadowed(g->act, LLVMGetOperand(v, 0));
  if (LLVMIsALoadInst(v) || LLVMIsACallInst(v))
    return 0;
  for (int k = 0; k < LLVMGetNumOperands(v); k++)
    if (int_from_shadowed_pointer(g, LLVMGetOperand(v, k), depth + 1))
      return 1;
  return 0;
}

/* A pointer made from an integer that is not the bits of a shadowed
 * pointer (plus or minus an offset), while the function uses shadows: its
 * shadow cannot be built, and the derivatives through it would be lost.
 * Reverse mode (check_memory) and forward mode (tangent.c) refuse it. */
int zy_check_int_to_ptr(ZyGen *g, LLVMValueRef i) {
  LLVMValueRef v = LLVMGetOperand(i, 0);
  if (zy_activity_shadowed(g->act, v))
    return 0;
  if (int_from_shadowed_pointer(g, v, 0))
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                        "use pointer arithmetic (or only + and - on the "
                        "integer)",
                        "a pointer is rebuilt from integer arithmetic "
                        "Zymase cannot mirror on its shadow");
  if (!LLVMIsAConstant(v) && uses_shadows(g))
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                        "pass the memory as a pointer, with enzyme_const "
                        "if it carries no derivatives",
                        "a pointer made from an integer may reach memory "
                        "with derivatives");
  return 0;
}

/* Memory operations on shadowed pointers that the sweeps know
 * how to mirror on the shadows. */
static int check_memory(ZyGen *g) {
  int realloc_calls = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      LLVMOpcode op = LLVMGetInstructionOpcode(i);
      g->cur = i;
      if (op == LLVMStore) {
        LLVMValueRef v = LLVMGetOperand(i, 0), p = LLVMGetOperand(i, 1);
        int sv = zy_activity_shadowed(g->act, v);
        if (sv && !zy_activity_shadowed(g->act, p))
          return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                              "a pointer to memory that has a shadow is "
                              "stored to memory that has none");
        if (!zy_activity_shadowed(g->act, p) ||
            zy_type_differentiable(LLVMTypeOf(v)) || sv || is_null(v) ||
            LLVMIsAFunction(v)) /* its shadow: itself (shadow.c) */
          continue;
        if (LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMPointerTypeKind &&
            !zy_activity_unshadowed_slot(g->act, p))
          return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                              "a pointer without a shadow is stored to "
                              "memory that has one");
        ZyTy held = zy_types_memory(g->types, p, 0);
        if ((zy_ty_is_float(held) || held == ZY_TY_ANYTHING) &&
            !LLVMIsAConstant(v))
          return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                              "floating-point data is stored as an integer; "
                              "copying floats through integers is not "
                              "supported yet");
      } else if (op == LLVMLoad) {
        LLVMValueRef p = LLVMGetOperand(i, 0);
        ZyTy held = zy_types_memory(g->types, p, 0);
        if (zy_activity_shadowed(g->act, p) &&
            LLVMGetTypeKind(LLVMTypeOf(i)) == LLVMIntegerTypeKind &&
            (zy_ty_is_float(held) || held == ZY_TY_ANYTHING))
          return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                              "floating-point data is loaded as an integer; "
                              "copying floats through integers is not "
                              "supported yet");
      } else if (op == LLVMCall) {
        LLVMValueRef callee = LLVMGetCalledValue(i);
        if (check_realloc_call(g, i, &realloc_calls))
          return -1;
        if ((call_takes_shadowed(i) &&
             zy_activity_allocation(i) != ZY_ALLOC_REALLOC) ||
            zy_mpi_row(callee) || /* zy_mpi_check */
            (zy_registry_differentiable(callee) &&
             !LLVMIsFunctionVarArg(LLVMGlobalGetValueType(callee))))
          continue;
        if (zy_blas_routine(callee, NULL, NULL) || zy_blas_like(callee)) {
          int shadowed = 0;
          for (unsigned k = 0; k < LLVMGetNumArgOperands(i); k++)
            shadowed |= zy_activity_shadowed(g->act, LLVMGetOperand(i, k));
          if (shadowed && zy_parallel()->context(g))
            return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                                "call BLAS outside the parallel region",
                                "BLAS calls with derivatives inside an "
                                "OpenMP parallel region are not "
                                "differentiated yet");
          if (shadowed && zy_runtime(ZY_CALL_BLAS)->check_call(g, i))
            return -1;
          continue;
        }
        LLVMValueRef n, m;
        if (zy_activity_allocation(i) == ZY_ALLOC_REALLOC &&
            zy_allocation_size(g, LLVMGetOperand(i, 0), &n, &m))
          continue;
        if (zy_activity_allocation(i) == ZY_ALLOC_REALLOC &&
            zy_loop_of(g, LLVMGetInstructionParent(i)))
          return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                              "realloc the caller's memory once, to its final "
                              "size, before the loop, and fill it in the loop",
                              "realloc of memory allocated elsewhere is "
                              "supported only outside loops (the reverse "
                              "sweep would need the old shadow of every "
                              "iteration)");
        if (zy_activity_allocation(i) == ZY_ALLOC_REALLOC &&
            !from_caller(LLVMGetOperand(i, 0)))
          return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED,
                              "realloc a pointer the function received (an "
                              "argument, or one loaded from memory)",
                              "realloc of memory allocated elsewhere is "
                              "supported only on a pointer the function "
                              "received (an argument, or loaded from "
                              "memory)");
        if (zy_activity_allocation(i) == ZY_ALLOC_REALLOC)
          continue; /* the caller's memory: see shadow_realloc */
        for (unsigned k = 0; k < LLVMGetNumArgOperands(i); k++)
          if (zy_activity_shadowed(g->act, LLVMGetOperand(i, k)))
            return ZY_GEN_ERROR(
                g, ZY_ERR_UNSUPPORTED,
                "pass the argument with enzyme_const if no derivative "
                "flows through its memory",
                "calls that receive pointers to memory with a shadow are "
                "not supported yet (a call to '%s')",
                callee && LLVMIsAFunction(callee) ? LLVMGetValueName(callee)
                                                  : "an unknown function");
      } else if (op == LLVMBitCast && int_from_shadowed_memory(
                                          g, LLVMGetOperand(i, 0), 0) &&
                 zy_type_differentiable(LLVMTypeOf(i))) {
        return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                            "floating-point data moves through integers "
                            "(an integer load of memory with a shadow, "
                            "reinterpreted as a float); this is not "
                            "supported yet");
      } else if (op == LLVMIntToPtr && zy_check_int_to_ptr(g, i)) {
        return -1;
      } else if ((op == LLVMAtomicRMW || op == LLVMAtomicCmpXchg) &&
                 check_atomic(g, i)) {
        return -1;
      }
    }
  return 0;
}

/* A function whose returned pointer's shadow is asked for must return
 * pointers that have shadows. */
static int check_returned_shadows(ZyGen *g) {
  if (!g->sig.dup_ret)
    return 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    if (LLVMGetInstructionOpcode(t) != LLVMRet || !LLVMGetNumOperands(t))
      continue;
    LLVMValueRef v = LLVMGetOperand(t, 0);
    g->cur = t;
    if (!zy_activity_shadowed(g->act, v) && !is_null(v))
      return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, NULL,
                          "the function returns a pointer without a shadow "
                          "where its caller needs one");
  }
  return 0;
}

/* A call that may throw (`invoke`, in C++ code with cleanups or catches)
 * is copied as it is into the forward sweep; one that needs anything
 * from the sweeps (a derivative, a shadow, an augmented call) is refused
 * here rather than differentiated as if it were no call. */
static int check_invokes(ZyGen *g) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    if (!t || LLVMGetInstructionOpcode(t) != LLVMInvoke ||
        zy_call_mode(g, t) == ZY_CALL_PLAIN)
      continue;
    LLVMValueRef callee = LLVMGetCalledValue(t);
    g->cur = t;
    return ZY_GEN_ERROR(
        g, ZY_ERR_UNSUPPORTED,
        "mark the callee noexcept (or compile with -fno-exceptions), or "
        "move the objects with destructors out of the differentiated code",
        "a call that may throw an exception (invoke of '%s') %s; calls "
        "with exception handling are not differentiated yet",
        callee && LLVMIsAFunction(callee) ? LLVMGetValueName(callee) : "?",
        zy_activity_active(g->act, t) ? "has a derivative"
                                      : "needs derivatives or shadows");
  }
  return 0;
}

/* Whether load `i` reads errno (through the C library's accessor). */
static int reads_errno(LLVMValueRef i) {
  if (!LLVMIsALoadInst(i))
    return 0;
  LLVMValueRef p = LLVMGetOperand(i, 0);
  while (LLVMIsAGetElementPtrInst(p))
    p = LLVMGetOperand(p, 0);
  return LLVMIsACallInst(p) && zy_llvm_errno_accessor(LLVMGetCalledValue(p));
}

enum { ERRNO_READ = 1, MATH_CALL = 2 };

/* ERRNO_READ and MATH_CALL for what function `fn` and the functions with
 * bodies it calls do (those the gradient differentiates: not inactive
 * ones, nor custom gradients); `seen` stops recursion. */
static int errno_uses(LLVMValueRef fn, ZyVec *seen) {
  if (!fn || !LLVMIsAFunction(fn) || LLVMIsDeclaration(fn) ||
      zy_vec_contains(seen, fn) || zy_activity_inactive_function(fn) ||
      zy_registry_custom(fn))
    return 0;
  zy_vec_push(seen, fn);
  int uses = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      if (reads_errno(i))
        uses |= ERRNO_READ;
      else if (LLVMIsACallInst(i) && zy_rule_call(i))
        uses |= MATH_CALL;
      else if (LLVMIsACallInst(i))
        uses |= errno_uses(LLVMGetCalledValue(i), seen);
    }
  return uses;
}

/* errno read in a function whose call tree calls math functions (in the
 * function, or in the functions it calls, before or after): the gradient
 * makes those calls as pure functions (a call whose result it does not
 * need is not made, one it needs may move), so what errno holds there is
 * not what it held in the primal; refused rather than branching on
 * another value.  The read is a load of the function, or a call of one
 * that reads errno. */
static int check_errno_reads(ZyGen *g) {
  LLVMValueRef read = NULL, math = NULL;
  ZyVec seen = {0}; /* each callee once: the first call reaching it says */
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      int uses = 0;
      if (reads_errno(i))
        uses = ERRNO_READ;
      else if (LLVMIsACallInst(i) && zy_rule_call(i))
        uses = MATH_CALL;
      else if (LLVMIsACallInst(i))
        uses = errno_uses(LLVMGetCalledValue(i), &seen);
      if ((uses & ERRNO_READ) && !read)
        read = i;
      if ((uses & MATH_CALL) && (!math || !zy_rule_call(math)))
        math = i; /* a math call of the function itself first */
    }
  zy_vec_free(&seen);
  if (!read || !math)
    return 0;
  g->cur = read;
  const char *hint = "read errno outside the differentiated function, or "
                     "check the arguments of the math calls instead";
  char by[300] = "";
  if (!zy_rule_call(math))
    snprintf(by, sizeof by, " ('%s', which it calls, calls them)",
             LLVMGetValueName(LLVMGetCalledValue(math)));
  if (LLVMIsALoadInst(read))
    return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, hint,
                        "reads errno, which the gradient does not keep: math "
                        "functions%s are differentiated as pure functions of "
                        "their arguments",
                        by);
  return ZY_GEN_ERROR(g, ZY_ERR_UNSUPPORTED, hint,
                      "calls '%s', which reads errno, which the gradient does "
                      "not keep: math functions%s are differentiated as pure "
                      "functions of their arguments",
                      LLVMGetValueName(LLVMGetCalledValue(read)), by);
}

int zy_check_supported(ZyGen *g) {
  return zy_parallel()->omp_check(g) || zy_runtimes_check(g) ||
         check_invokes(g) || check_flows(g) || check_memory(g) ||
         check_returned_shadows(g) || check_errno_reads(g);
}
