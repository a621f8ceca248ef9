/* activity.c - activity analysis by two fixpoints over SSA def-use edges:
 * "varied" flows forward from the active arguments, "useful" flows
 * backward from the returned value.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "activity.h"

#include "registry.h"
#include "calls/blas_calls.h"

#include "llvm/glue.h"
#include "calls/mpi_calls.h"
#include "calls/omp_calls.h"
#include "support/vec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ZyActivity {
  ZyMap varied, useful, shadowed; /* value -> (void*)1 */
  ZyMap reads_globals;            /* callee -> YES, NO or BUSY        */
  ZyMap writes_globals;           /* callee -> YES, NO, BUSY or AGAIN */
  int writes_open; /* an answer took a call in progress for a no */
};

static void *const YES = (void *)1, *const NO = (void *)2,
                  *const BUSY = (void *)3, *const AGAIN = (void *)4;

int zy_type_differentiable(LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMHalfTypeKind:
  case LLVMBFloatTypeKind:
  case LLVMFloatTypeKind:
  case LLVMDoubleTypeKind:
  case LLVMX86_FP80TypeKind:
  case LLVMFP128TypeKind:
    return 1;
  case LLVMVectorTypeKind:
  case LLVMArrayTypeKind:
    return zy_type_differentiable(LLVMGetElementType(t));
  case LLVMStructTypeKind: {
    unsigned n = LLVMCountStructElementTypes(t);
    for (unsigned i = 0; i < n; i++)
      if (zy_type_differentiable(LLVMStructGetTypeAtIndex(t, i)))
        return 1;
    return 0;
  }
  default:
    return 0;
  }
}

int zy_type_holds_pointer(LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMPointerTypeKind:
    return 1;
  case LLVMArrayTypeKind:
    return zy_type_holds_pointer(LLVMGetElementType(t));
  case LLVMStructTypeKind: {
    unsigned n = LLVMCountStructElementTypes(t);
    for (unsigned i = 0; i < n; i++)
      if (zy_type_holds_pointer(LLVMStructGetTypeAtIndex(t, i)))
        return 1;
    return 0;
  }
  default:
    return 0;
  }
}

int zy_type_pointer_aggregate(LLVMTypeRef t) {
  LLVMTypeKind k = LLVMGetTypeKind(t);
  return (k == LLVMStructTypeKind || k == LLVMArrayTypeKind) &&
         zy_type_holds_pointer(t);
}

static int is_pointer_aggregate(LLVMValueRef v) {
  return zy_type_pointer_aggregate(LLVMTypeOf(v));
}

int zy_activity_inactive_global(LLVMValueRef gv) {
  return zy_registry_inactive_global(gv);
}

int zy_activity_inactive_function(LLVMValueRef fn) {
  static const char *const names[] = {
      "printf",  "fprintf", "puts",     "putchar",  "fputs",  "fputc",
      "fflush",  "time",    "clock",    "rand",     "srand",  "random",
      "srandom", "drand48", "srand48",  "lround",   "lroundf", "lroundl",
      "llround", "llroundf", "llroundl", "lrint",   "lrintf", "lrintl",
      "llrint",  "llrintf", "llrintl",  "ilogb",    "ilogbf", "ilogbl",
  };
  if (!fn || !LLVMIsAFunction(fn))
    return 0;
  if (zy_registry_inactive_function(fn) || zy_omp_inactive_function(fn) ||
      zy_mpi_inactive_function(fn))
    return 1;
  if (!LLVMIsDeclaration(fn))
    return 0;
  const char *name = LLVMGetValueName(fn);
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (!strcmp(name, names[i]))
      return 1;
  return 0;
}

static const char *callee_name(LLVMValueRef call) {
  LLVMValueRef f = LLVMIsACallInst(call) ? LLVMGetCalledValue(call) : NULL;
  return f && LLVMIsAFunction(f) ? LLVMGetValueName(f) : "";
}

ZyAlloc zy_activity_allocation(LLVMValueRef call) {
  ZyAlloc k = zy_activity_allocation_named(callee_name(call));
  LLVMValueRef f = LLVMIsACallInst(call) ? LLVMGetCalledValue(call) : NULL;
  if (k == ZY_ALLOC_NONE && f && zy_registry_allocator(f) &&
      LLVMGetNumArgOperands(call) == LLVMCountParams(f))
    return ZY_ALLOC_LIKE;
  return k;
}

ZyAlloc zy_activity_allocation_named(const char *name) {
  static const struct {
    const char *name;
    ZyAlloc kind;
  } fns[] = {
      {"malloc", ZY_ALLOC_MALLOC},         {"_Znwm", ZY_ALLOC_MALLOC},
      {"_Znam", ZY_ALLOC_MALLOC},          {"calloc", ZY_ALLOC_CALLOC},
      {"aligned_alloc", ZY_ALLOC_ALIGNED}, {"realloc", ZY_ALLOC_REALLOC},
  };
  for (size_t i = 0; i < sizeof fns / sizeof *fns; i++)
    if (!strcmp(name, fns[i].name))
      return fns[i].kind;
  return ZY_ALLOC_NONE;
}

int zy_activity_allocation_size(LLVMValueRef p, LLVMValueRef *n,
                                LLVMValueRef *m) {
  *n = *m = NULL;
  while (LLVMIsABitCastInst(p))
    p = LLVMGetOperand(p, 0);
  if (LLVMIsAConstantPointerNull(p))
    return 1;
  if (!LLVMIsACallInst(p))
    return 0;
  switch (zy_activity_allocation(p)) {
  case ZY_ALLOC_MALLOC:
    *n = LLVMGetOperand(p, 0);
    return 1;
  case ZY_ALLOC_CALLOC:
    *n = LLVMGetOperand(p, 0);
    *m = LLVMGetOperand(p, 1);
    return 1;
  case ZY_ALLOC_ALIGNED:
  case ZY_ALLOC_REALLOC:
    *n = LLVMGetOperand(p, 1);
    return 1;
  case ZY_ALLOC_LIKE:
    *n = LLVMGetOperand(p, zy_registry_allocator(LLVMGetCalledValue(p))->size);
    return 1;
  default:
    return 0;
  }
}

int zy_activity_deallocation(LLVMValueRef call) {
  const char *name = callee_name(call);
  return !strcmp(name, "free") || !strcmp(name, "_ZdlPv") ||
         !strcmp(name, "_ZdaPv") || !strcmp(name, "_ZdlPvm") ||
         !strcmp(name, "_ZdaPvm") ||
         (*name && zy_registry_deallocator(LLVMGetCalledValue(call)) &&
          LLVMGetNumArgOperands(call) ==
              LLVMCountParams(LLVMGetCalledValue(call)));
}

unsigned zy_activity_freed_arg(LLVMValueRef call) {
  const ZyAllocLike *a =
      *callee_name(call) ? zy_registry_deallocator(LLVMGetCalledValue(call))
                         : NULL;
  return a ? a->block : 0;
}

static int is_ptr(LLVMValueRef v) {
  return LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMPointerTypeKind;
}

/* Whether every pointer `fn` returns is null or constant memory (a
 * constant global, possibly offset): then it carries no derivative. */
int zy_activity_shadowed_global(LLVMValueRef v);

static int returns_constant_memory(LLVMValueRef fn) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    if (!t || LLVMGetInstructionOpcode(t) != LLVMRet || !LLVMGetNumOperands(t))
      continue;
    LLVMValueRef v = LLVMGetOperand(t, 0);
    while (LLVMIsAGetElementPtrInst(v) || LLVMIsABitCastInst(v) ||
           (LLVMIsAConstantExpr(v) && LLVMGetNumOperands(v) > 0))
      v = LLVMGetOperand(v, 0);
    if (!LLVMIsAConstantPointerNull(v) &&
        !(LLVMIsAGlobalVariable(v) && LLVMIsGlobalConstant(v) &&
          !zy_activity_shadowed_global(v)))
      return 0;
  }
  return 1;
}

static int only_loaded(LLVMValueRef v, int depth);

/* Whether `call`, to a function with a body, receives `p` only as
 * parameters it just loads from. */
static int callee_only_loads(LLVMValueRef call, LLVMValueRef p, int depth) {
  LLVMValueRef f = LLVMGetCalledValue(call);
  if (!f || !LLVMIsAFunction(f) || LLVMIsDeclaration(f) ||
      LLVMIsFunctionVarArg(LLVMGlobalGetValueType(f)))
    return 0;
  unsigned n = LLVMGetNumArgOperands(call);
  if (n != LLVMCountParams(f))
    return 0;
  int seen = 0;
  for (unsigned k = 0; k < n; k++)
    if (LLVMGetOperand(call, k) == p) {
      if (depth > 12 || !only_loaded(LLVMGetParam(f, k), depth + 1))
        return 0;
      seen = 1;
    }
  return seen;
}


/* Whether local `a` only holds a copy of a pointer that is only loaded
 * from (at -O0 a parameter is kept in such a local). */
static int copy_slot(LLVMValueRef a, LLVMValueRef v, int depth) {
  if (!LLVMIsAAllocaInst(a) || depth > 12)
    return 0;
  for (LLVMUseRef u = LLVMGetFirstUse(a); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef i = LLVMGetUser(u);
    if (LLVMIsAStoreInst(i) && LLVMGetOperand(i, 0) == v &&
        LLVMGetOperand(i, 1) == a)
      continue;
    if (LLVMIsALoadInst(i) && only_loaded(i, depth + 1))
      continue;
    LLVMValueRef f = LLVMIsACallInst(i) ? LLVMGetCalledValue(i) : NULL;
    if (f && LLVMIsAFunction(f) &&
        (!strncmp(LLVMGetValueName(f), "llvm.lifetime.", 14) ||
         !strncmp(LLVMGetValueName(f), "llvm.dbg.", 9)))
      continue;
    return 0;
  }
  return 1;
}

/* Whether `v` (a parameter, or a GEP of it) is only loaded from. */
static int only_loaded(LLVMValueRef v, int depth) {
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef i = LLVMGetUser(u);
    if (LLVMIsALoadInst(i) ||
        (LLVMIsAGetElementPtrInst(i) && LLVMGetOperand(i, 0) == v &&
         depth < 12 && only_loaded(i, depth + 1)) ||
        (LLVMIsAStoreInst(i) && LLVMGetOperand(i, 0) == v &&
         copy_slot(LLVMGetOperand(i, 1), v, depth + 1)))
      continue;
    if (LLVMIsACallInst(i) && LLVMIsAFunction(LLVMGetCalledValue(i)) &&
        (!strncmp(LLVMGetValueName(LLVMGetCalledValue(i)), "llvm.dbg.", 9) ||
         callee_only_loads(i, v, depth + 1)))
      continue;
    return 0;
  }
  return 1;
}

/* An alloca used only as a slot for pointers none of which has a shadow
 * (at -O0, the slot of an enzyme_const pointer argument; the local through
 * which an OpenMP region receives a shared enzyme_const pointer): pointers
 * loaded from it have no shadow either, and a callee given the slot gets
 * no shadow for it (zy_call_sig). */
static int unshadowed_slot(const ZyActivity *a, LLVMValueRef p) {
  if (!LLVMIsAAllocaInst(p) ||
      LLVMGetTypeKind(LLVMGetAllocatedType(p)) != LLVMPointerTypeKind)
    return 0;
  for (LLVMUseRef u = LLVMGetFirstUse(p); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsALoadInst(user) && LLVMGetOperand(user, 0) == p)
      continue;
    if (LLVMIsACallInst(user)) { /* lifetime markers; a callee reading it */
      LLVMValueRef f = LLVMGetCalledValue(user);
      const char *name = f && LLVMIsAFunction(f) ? LLVMGetValueName(f) : "";
      if (!strncmp(name, "llvm.lifetime.", 14) || callee_only_loads(user, p, 0))
        continue;
      return 0;
    }
    if (!LLVMIsAStoreInst(user) || LLVMGetOperand(user, 1) != p ||
        !is_ptr(LLVMGetOperand(user, 0)) ||
        zy_map_has(&a->shadowed, LLVMGetOperand(user, 0)))
      return 0;
  }
  return 1;
}

int zy_activity_unshadowed_slot(const ZyActivity *a, LLVMValueRef p) {
  return zy_map_has(&a->shadowed, p) && unshadowed_slot(a, p);
}

/* Shadowed pointers: dup arguments, local and heap memory (which may come
 * to hold derivatives), and pointers derived from shadowed ones, also
 * through their integer bits (ptrtoint, + and - an offset, inttoptr). */
static int derives_shadow(ZyActivity *a, LLVMValueRef i) {
  switch (LLVMGetInstructionOpcode(i)) {
  case LLVMAlloca:
    return 1;
  case LLVMCall: {
    /* Allocations; and pointers returned by functions with a body, or by
     * external ones given shadowed pointers: they may point to memory
     * with derivatives. */
    LLVMValueRef f = LLVMGetCalledValue(i);
    if (!is_ptr(i) && !is_pointer_aggregate(i))
      return 0;
    if (zy_activity_allocation(i) != ZY_ALLOC_NONE)
      return 1;
    if (!f || !LLVMIsAFunction(f) || zy_activity_inactive_function(f))
      return 0;
    if (!LLVMIsDeclaration(f))
      return !returns_constant_memory(f);
    for (unsigned k = 0; k < LLVMGetNumArgOperands(i); k++)
      if (zy_map_has(&a->shadowed, LLVMGetOperand(i, k)))
        return 1;
    return 0;
  }
  case LLVMLoad: /* a pointer (or an aggregate of some) in shadowed memory */
    return (is_ptr(i) || is_pointer_aggregate(i)) &&
           zy_map_has(&a->shadowed, LLVMGetOperand(i, 0)) &&
           !unshadowed_slot(a, LLVMGetOperand(i, 0));
  case LLVMGetElementPtr:
  case LLVMBitCast:
  case LLVMAddrSpaceCast:
  case LLVMFreeze:
  case LLVMPtrToInt: /* pointer bits, mirrored on the shadow's bits */
  case LLVMIntToPtr:
    return zy_map_has(&a->shadowed, LLVMGetOperand(i, 0));
  case LLVMAdd: /* pointer bits plus or minus an offset */
  case LLVMSub:
    return zy_map_has(&a->shadowed, LLVMGetOperand(i, 0)) !=
           zy_map_has(&a->shadowed, LLVMGetOperand(i, 1));
  case LLVMPHI:
    for (unsigned k = 0; k < LLVMCountIncoming(i); k++)
      if (zy_map_has(&a->shadowed, LLVMGetIncomingValue(i, k)))
        return 1;
    return 0;
  case LLVMSelect:
    return zy_map_has(&a->shadowed, LLVMGetOperand(i, 1)) ||
           zy_map_has(&a->shadowed, LLVMGetOperand(i, 2));
  case LLVMExtractValue: /* a pointer from a struct of pointers */
    return zy_map_has(&a->shadowed, LLVMGetOperand(i, 0));
  case LLVMInsertValue:
    return zy_map_has(&a->shadowed, LLVMGetOperand(i, 0)) ||
           zy_map_has(&a->shadowed, LLVMGetOperand(i, 1));
  default:
    return 0;
  }
}

static int shadowed_global_at(LLVMValueRef v, int depth);

/* Whether constant `c` holds (somewhere in an aggregate) a pointer into a
 * shadowed global: a constant table of pointers to mutable globals. */
static int holds_shadowed_pointer(LLVMValueRef c, int depth) {
  if (!c || depth > 8)
    return 0;
  switch (LLVMGetTypeKind(LLVMTypeOf(c))) {
  case LLVMPointerTypeKind:
    return shadowed_global_at(c, depth + 1);
  case LLVMArrayTypeKind:
  case LLVMStructTypeKind: {
    if (LLVMIsAConstantAggregateZero(c) || LLVMIsAConstantDataSequential(c) ||
        LLVMIsUndef(c))
      return 0;
    unsigned n = LLVMGetTypeKind(LLVMTypeOf(c)) == LLVMArrayTypeKind
                     ? LLVMGetArrayLength(LLVMTypeOf(c))
                     : LLVMCountStructElementTypes(LLVMTypeOf(c));
    for (unsigned k = 0; k < n; k++)
      if (holds_shadowed_pointer(LLVMGetAggregateElement(c, k), depth + 1))
        return 1;
    return 0;
  }
  default:
    return 0;
  }
}

/* A global, or a constant GEP/cast of one, whose memory may carry
 * derivatives: a mutable one not marked inactive, or a constant one
 * holding pointers to such memory (its shadow holds theirs). */
static int shadowed_global_at(LLVMValueRef v, int depth) {
  while (v && LLVMIsAConstantExpr(v) && LLVMGetNumOperands(v) > 0 &&
         (LLVMGetConstOpcode(v) == LLVMGetElementPtr ||
          LLVMGetConstOpcode(v) == LLVMBitCast ||
          LLVMGetConstOpcode(v) == LLVMAddrSpaceCast))
    v = LLVMGetOperand(v, 0);
  if (!v || !LLVMIsAGlobalVariable(v) || zy_activity_inactive_global(v) ||
      !strncmp(LLVMGetValueName(v), "llvm.", 5) ||
      !strncmp(LLVMGetValueName(v), "__enzyme_", 9) ||
      !strncmp(LLVMGetValueName(v), "zymase.", 7) ||
      !strncmp(LLVMGetValueName(v), ".gomp_critical_user_", 20))
    return 0; /* intrinsics' data, Enzyme's markers, our lock sequences,
                 OpenMP's lock words */
  return !LLVMIsGlobalConstant(v) ||
         holds_shadowed_pointer(LLVMGetInitializer(v), depth);
}

int zy_activity_shadowed_global(LLVMValueRef v) {
  return shadowed_global_at(v, 0);
}

/* Puts in `s` the operands of `fn`'s instructions that are shadowed
 * globals (or constant offsets and casts of them). */
static void mark_shadowed_globals(LLVMValueRef fn, ZyMap *s) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      for (int k = 0; k < LLVMGetNumOperands(i); k++) {
        LLVMValueRef op = LLVMGetOperand(i, k);
        if (op && is_ptr(op) && zy_activity_shadowed_global(op))
          zy_map_put(s, op, YES);
      }
}

static void compute_shadowed(ZyActivity *a, LLVMValueRef fn,
                             unsigned long long dup_args) {
  unsigned n = LLVMCountParams(fn);
  for (unsigned i = 0; i < n && i < 64; i++)
    if (dup_args >> i & 1)
      zy_map_put(&a->shadowed, LLVMGetParam(fn, i), YES);
  mark_shadowed_globals(fn, &a->shadowed);
  for (int changed = 1; changed;) {
    changed = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i))
        if ((is_ptr(i) ||
             LLVMGetTypeKind(LLVMTypeOf(i)) == LLVMIntegerTypeKind ||
             is_pointer_aggregate(i)) &&
            !zy_map_has(&a->shadowed, i) && derives_shadow(a, i)) {
          zy_map_put(&a->shadowed, i, YES);
          changed = 1;
        }
  }
}

/* The global that `p` points into, through GEPs and casts, or NULL. */
static LLVMValueRef global_base(LLVMValueRef p) {
  p = zy_llvm_underlying_object(p);
  return LLVMIsAGlobalVariable(p) ? p : NULL;
}

/* Whether function `fn`, or one it calls, reads a shadowed global: its
 * result may carry derivatives even when none of its arguments does.
 * Within a cycle of calls the answer is yes (conservative). */
static int reads_shadowed_global(ZyActivity *a, LLVMValueRef fn) {
  void *known = zy_map_get(&a->reads_globals, fn);
  if (known)
    return known != NO;
  zy_map_put(&a->reads_globals, fn, BUSY);
  int r = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && !r;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && !r;
         i = LLVMGetNextInstruction(i)) {
      if (LLVMGetInstructionOpcode(i) == LLVMLoad) {
        LLVMValueRef g = global_base(LLVMGetOperand(i, 0));
        r = g && zy_activity_shadowed_global(g);
      } else if (LLVMIsACallInst(i)) {
        LLVMValueRef f = LLVMGetCalledValue(i);
        for (unsigned k = 0; k < LLVMGetNumArgOperands(i) && !r; k++) {
          LLVMValueRef g = global_base(LLVMGetOperand(i, k));
          r = g && zy_activity_shadowed_global(g); /* memcpy from it */
        }
        if (!r && f && LLVMIsAFunction(f) && !LLVMIsDeclaration(f) &&
            !zy_activity_inactive_function(f))
          r = reads_shadowed_global(a, f);
      }
    }
  zy_map_put(&a->reads_globals, fn, r ? YES : NO);
  return r;
}

/* Whether pointer `p` points into a shadowed global whose memory holds
 * floating point. */
static int float_global_at(LLVMValueRef p) {
  LLVMValueRef g = global_base(p);
  return g && zy_activity_shadowed_global(g) &&
         zy_type_differentiable(LLVMGlobalGetValueType(g));
}

/* The pointers of `fn` into memory reachable from shadowed globals: the
 * globals, offsets and casts of such pointers, and pointers loaded from
 * such memory (a global pointer to a buffer). */
static void global_pointers(LLVMValueRef fn, ZyMap *s) {
  mark_shadowed_globals(fn, s);
  for (int changed = 1; changed;) {
    changed = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i)) {
        if (!is_ptr(i) || zy_map_has(s, i))
          continue;
        int in = 0;
        switch (LLVMGetInstructionOpcode(i)) {
        case LLVMGetElementPtr:
        case LLVMBitCast:
        case LLVMAddrSpaceCast:
        case LLVMFreeze:
        case LLVMLoad:
          in = zy_map_has(s, LLVMGetOperand(i, 0));
          break;
        case LLVMPHI:
          for (unsigned k = 0; k < LLVMCountIncoming(i) && !in; k++)
            in = zy_map_has(s, LLVMGetIncomingValue(i, k));
          break;
        case LLVMSelect:
          in = zy_map_has(s, LLVMGetOperand(i, 1)) ||
               zy_map_has(s, LLVMGetOperand(i, 2));
          break;
        default:
          break;
        }
        if (in) {
          zy_map_put(s, i, YES);
          changed = 1;
        }
      }
  }
}

/* Whether instruction `i` writes (or, for a call, may write) floating
 * point through `s`'s pointers; `deeper` follows calls of functions with
 * a body. */
static int writes_global_at(ZyActivity *a, const ZyMap *s, LLVMValueRef i,
                            int (*deeper)(ZyActivity *, LLVMValueRef)) {
  LLVMOpcode op = LLVMGetInstructionOpcode(i);
  if (op == LLVMStore || op == LLVMAtomicRMW || op == LLVMAtomicCmpXchg) {
    LLVMValueRef p = LLVMGetOperand(i, op == LLVMStore);
    LLVMValueRef v = LLVMGetOperand(i, op != LLVMStore);
    return zy_map_has(s, p) &&
           (zy_type_differentiable(LLVMTypeOf(v)) || float_global_at(p));
  }
  if (op != LLVMCall)
    return 0;
  LLVMValueRef f = LLVMGetCalledValue(i);
  if (zy_activity_inactive_function(f) || zy_llvm_call_reads_only(i))
    return 0;
  for (unsigned k = 0; k < LLVMGetNumArgOperands(i); k++)
    if (zy_map_has(s, LLVMGetOperand(i, k)))
      return 1; /* memcpy or memset into it, or a callee given it */
  return f && LLVMIsAFunction(f) && !LLVMIsDeclaration(f) && deeper(a, f);
}

/* Whether function `fn`, or one it calls, writes floating point into
 * memory reachable from a shadowed global: calling it overwrites
 * derivatives even when none of its arguments or its result carries one
 * (a reset of a global parameter), so its call has a reverse.  In a cycle
 * of calls, a function whose answer is in progress counts as no: the
 * answer of the cycle's first function covers every function it reaches;
 * a no that relied on one in progress is not kept (AGAIN), but asked
 * again. */
static int writes_shadowed_global(ZyActivity *a, LLVMValueRef fn) {
  void *known = zy_map_get(&a->writes_globals, fn);
  if (known == BUSY)
    a->writes_open = 1;
  if (known == BUSY || known == YES || known == NO)
    return known == YES;
  zy_map_put(&a->writes_globals, fn, BUSY);
  int outer = a->writes_open;
  a->writes_open = 0;
  ZyMap s = {0};
  global_pointers(fn, &s);
  int r = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && !r;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && !r;
         i = LLVMGetNextInstruction(i))
      r = writes_global_at(a, &s, i, writes_shadowed_global);
  zy_map_free(&s);
  zy_map_put(&a->writes_globals, fn, r ? YES : a->writes_open ? AGAIN : NO);
  a->writes_open = outer || (!r && a->writes_open);
  return r;
}

int zy_activity_writes_shadowed_global(ZyActivity *a, LLVMValueRef fn) {
  return fn && LLVMIsAFunction(fn) && !LLVMIsDeclaration(fn) &&
         !zy_activity_inactive_function(fn) && writes_shadowed_global(a, fn);
}

/* A call to a function with a body (or a custom gradient), or to a BLAS
 * routine, that receives shadowed pointers, or reads a shadowed global: it
 * may read derivatives from that memory and write some to it. */
static int reads_shadowed(ZyActivity *a, LLVMValueRef i) {
  LLVMValueRef f = LLVMIsACallInst(i) ? LLVMGetCalledValue(i) : NULL;
  if ((!zy_registry_differentiable(f) && !zy_blas_routine(f, NULL, NULL)) ||
      zy_activity_inactive_function(f))
    return 0;
  for (unsigned k = 0; k < LLVMGetNumArgOperands(i); k++)
    if (zy_map_has(&a->shadowed, LLVMGetOperand(i, k)))
      return 1;
  return !LLVMIsDeclaration(f) && reads_shadowed_global(a, f);
}

/* A call to an external function that receives a varied value and a
 * shadowed pointer it may write through (sincos(x, &s, &c)): what it
 * writes may carry derivatives. */
static int writes_varied(ZyActivity *a, LLVMValueRef i) {
  LLVMValueRef f = LLVMIsACallInst(i) ? LLVMGetCalledValue(i) : NULL;
  if (!f || !LLVMIsAFunction(f) || !LLVMIsDeclaration(f) ||
      zy_activity_inactive_function(f) || zy_llvm_call_reads_only(i))
    return 0;
  int varied = 0, shadowed = 0;
  for (unsigned k = 0; k < LLVMGetNumArgOperands(i); k++) {
    varied |= zy_map_has(&a->varied, LLVMGetOperand(i, k));
    shadowed |= zy_map_has(&a->shadowed, LLVMGetOperand(i, k));
  }
  return varied && shadowed;
}

/* Forward: an instruction of differentiable type with a varied operand is
 * varied, and so is a value of differentiable type loaded from shadowed
 * memory.  Instructions are visited in layout order until nothing changes,
 * which also covers phis fed from later blocks. */
static void compute_varied(ZyActivity *a, LLVMValueRef fn,
                           unsigned long long active_args) {
  unsigned n = LLVMCountParams(fn);
  for (unsigned i = 0; i < n && i < 64; i++)
    if (active_args >> i & 1)
      zy_map_put(&a->varied, LLVMGetParam(fn, i), YES);
  for (int changed = 1; changed;) {
    changed = 0;
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i)) {
        if (zy_map_has(&a->varied, i) ||
            !zy_type_differentiable(LLVMTypeOf(i)))
          continue;
        if (LLVMGetInstructionOpcode(i) == LLVMLoad) {
          if (zy_map_has(&a->shadowed, LLVMGetOperand(i, 0))) {
            zy_map_put(&a->varied, i, YES);
            changed = 1;
          }
          continue;
        }
        if (LLVMIsACallInst(i) &&
            zy_activity_inactive_function(LLVMGetCalledValue(i)))
          continue;
        if (reads_shadowed(a, i)) {
          zy_map_put(&a->varied, i, YES);
          changed = 1;
          continue;
        }
        int nops = LLVMGetNumOperands(i);
        for (int k = 0; k < nops; k++)
          if (zy_map_has(&a->varied, LLVMGetOperand(i, k))) {
            zy_map_put(&a->varied, i, YES);
            changed = 1;
            break;
          }
      }
  }
}

/* Whether no derivative flows from the result of `v` to its operands: a
 * floating-point compare or conversion to an integer (a running maximum
 * that only decides which index is kept is not useful). */
static int cuts_derivatives(LLVMValueRef v) {
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  return op == LLVMFCmp || op == LLVMFPToSI || op == LLVMFPToUI;
}

/* Backward: the returned value (when active) and values stored into
 * shadowed memory are useful, and so is every operand of a useful
 * instruction (but not those of a compare or conversion of floats). */
static void compute_useful(ZyActivity *a, LLVMValueRef fn, int active_ret) {
  ZyVec work = {0};
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    if (active_ret && t && LLVMGetInstructionOpcode(t) == LLVMRet &&
        LLVMGetNumOperands(t) == 1)
      zy_vec_push(&work, LLVMGetOperand(t, 0));
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMGetInstructionOpcode(i) == LLVMStore &&
          zy_map_has(&a->shadowed, LLVMGetOperand(i, 1)))
        zy_vec_push(&work, LLVMGetOperand(i, 0));
      else if (LLVMGetInstructionOpcode(i) == LLVMAtomicRMW &&
               zy_map_has(&a->shadowed, LLVMGetOperand(i, 0)))
        zy_vec_push(&work, LLVMGetOperand(i, 1)); /* s += v, atomically */
      else if (reads_shadowed(a, i) || writes_varied(a, i))
        for (unsigned k = 0; k < LLVMGetNumArgOperands(i); k++)
          zy_vec_push(&work, LLVMGetOperand(i, k));
  }
  while (work.len) {
    LLVMValueRef v = work.data[--work.len];
    if (zy_map_has(&a->useful, v))
      continue;
    zy_map_put(&a->useful, v, YES);
    if (!LLVMIsAInstruction(v) || cuts_derivatives(v))
      continue;
    int nops = LLVMGetNumOperands(v);
    for (int k = 0; k < nops; k++) {
      LLVMValueRef op = LLVMGetOperand(v, k);
      if (LLVMIsAInstruction(op) || LLVMIsAArgument(op))
        zy_vec_push(&work, op);
    }
  }
  zy_vec_free(&work);
}

ZyActivity *zy_activity_compute(LLVMValueRef fn,
                                unsigned long long active_args,
                                unsigned long long dup_args, int active_ret) {
  ZyActivity *a = calloc(1, sizeof *a);
  compute_shadowed(a, fn, dup_args);
  compute_varied(a, fn, active_args);
  compute_useful(a, fn, active_ret);
  return a;
}

void zy_activity_free(ZyActivity *a) {
  if (!a)
    return;
  zy_map_free(&a->varied);
  zy_map_free(&a->useful);
  zy_map_free(&a->shadowed);
  zy_map_free(&a->reads_globals);
  zy_map_free(&a->writes_globals);
  free(a);
}

int zy_activity_varied(const ZyActivity *a, LLVMValueRef v) {
  return zy_map_has(&a->varied, v);
}

int zy_activity_useful(const ZyActivity *a, LLVMValueRef v) {
  return zy_map_has(&a->useful, v);
}

int zy_activity_active(const ZyActivity *a, LLVMValueRef v) {
  return zy_activity_varied(a, v) && zy_activity_useful(a, v);
}

int zy_activity_shadowed(const ZyActivity *a, LLVMValueRef v) {
  return zy_map_has(&a->shadowed, v);
}
