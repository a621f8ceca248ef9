/* effects.c - finds observable side effects by walking function bodies
 * and the bodies of the functions they call.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "effects.h"

#include "activity.h"
#include "llvm/glue.h"
#include "support/vec.h"

#include <string.h>

/* The object a pointer is derived from, through GEPs and casts. */
static LLVMValueRef base_object(LLVMValueRef p) {
  for (;;) {
    if (LLVMIsAGetElementPtrInst(p) || LLVMIsABitCastInst(p) ||
        LLVMIsAAddrSpaceCastInst(p))
      p = LLVMGetOperand(p, 0);
    else
      return p;
  }
}

static int writes_stack_only(LLVMValueRef ptr) {
  return LLVMIsAAllocaInst(base_object(ptr)) != NULL;
}

typedef struct Walk {
  ZyVec seen;
  ZyBenignCall benign;
  int reads; /* reads of changeable memory count too */
} Walk;

/* Memory nothing else can change: the stack, constant globals. */
static int reads_fixed_memory(LLVMValueRef ptr) {
  LLVMValueRef b = base_object(ptr);
  return LLVMIsAAllocaInst(b) ||
         (LLVMIsAGlobalVariable(b) && LLVMIsGlobalConstant(b));
}

static LLVMValueRef first_write(LLVMValueRef fn, Walk *w);

/* --- Private heap memory ------------------------------------------------
 * Memory a function allocates, uses only through its own pointers, and
 * never lets out (not stored, returned or passed on, except to free,
 * realloc and the memory intrinsics) is like its stack: writing it, or
 * allocating and freeing it, cannot be observed (a gradient's caches).
 * Pointers to it may be kept in it (a gradient's cache of the shadows of
 * each iteration): loaded from it, they are private too, unless some
 * other pointer is stored there.  The set holds the pointers to such
 * memory; empty when one escapes. */
#define IN ((void *)1)
#define OUT ((void *)2)

static int is_private(ZyMap *priv, LLVMValueRef p) {
  return zy_map_get(priv, p) == IN;
}

/* The pointers `v` is made from, when it is a candidate. */
static unsigned sources(LLVMValueRef v, LLVMValueRef *src) {
  if (LLVMIsAPHINode(v)) {
    unsigned n = LLVMCountIncoming(v);
    for (unsigned k = 0; k < n && k < 64; k++)
      src[k] = LLVMGetIncomingValue(v, k);
    return n < 64 ? n : 64;
  }
  if (LLVMIsASelectInst(v)) {
    src[0] = LLVMGetOperand(v, 1), src[1] = LLVMGetOperand(v, 2);
    return 2;
  }
  if (LLVMIsACallInst(v)) { /* an allocation; realloc keeps its source */
    src[0] = LLVMGetOperand(v, 0);
    return zy_activity_allocation(v) == ZY_ALLOC_REALLOC;
  }
  src[0] = LLVMGetOperand(v, 0); /* GEP, cast; a load: its address */
  return 1;
}

static int candidate(LLVMValueRef i) {
  if (LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMPointerTypeKind)
    return 0;
  if (LLVMIsACallInst(i))
    return zy_activity_allocation(i) != ZY_ALLOC_NONE &&
           LLVMIsAFunction(LLVMGetCalledValue(i));
  return LLVMIsAPHINode(i) || LLVMIsASelectInst(i) || LLVMIsALoadInst(i) ||
         LLVMIsAGetElementPtrInst(i) || LLVMIsABitCastInst(i) ||
         LLVMIsAAddrSpaceCastInst(i);
}

/* Zymase's own memory helpers (irutil.c, reverse_memory.c): they touch
 * only the memory their pointer arguments point to, and keep nothing. */
static int memory_helper(LLVMValueRef callee) {
  const char *name = callee && LLVMIsAFunction(callee)
                         ? LLVMGetValueName(callee)
                         : "";
  return LLVMIsAFunction(callee) &&
         LLVMGetLinkage(callee) == LLVMInternalLinkage &&
         (!strncmp(name, "__zymase_copy.", 14) ||
          !strncmp(name, "__zymase_move_adjoints.", 23));
}

/* Whether use `k` of private pointer `p` by `user` keeps it private. */
static int private_use(ZyMap *priv, LLVMValueRef user, unsigned k) {
  if (LLVMIsALoadInst(user) || LLVMIsAICmpInst(user))
    return 1;
  if (LLVMIsAStoreInst(user))
    return k == 1 || is_private(priv, LLVMGetOperand(user, 1));
  if (!LLVMIsACallInst(user))
    return is_private(priv, user); /* a GEP, cast, phi, select */
  if (is_private(priv, user)) /* realloc of it */
    return k == 0;
  LLVMValueRef callee = LLVMGetCalledValue(user);
  const char *name = callee && LLVMIsAFunction(callee)
                         ? LLVMGetValueName(callee)
                         : "";
  if (zy_activity_deallocation(user))
    return k == zy_activity_freed_arg(user);
  if (memory_helper(callee))
    return 1;
  return !strncmp(name, "llvm.mem", 8) || !strncmp(name, "llvm.lifetime", 13);
}

/* When a pointer that is not private is stored in private memory, what
 * is loaded from there is not private either: takes the loads out. */
static int foreign_pointer_kept(ZyVec *cand, ZyMap *priv) {
  int out = 0;
  for (size_t k = 0; k < cand->len; k++) {
    LLVMValueRef p = cand->data[k];
    for (LLVMUseRef u = LLVMGetFirstUse(p); u && is_private(priv, p) && !out;
         u = LLVMGetNextUse(u)) {
      LLVMValueRef st = LLVMGetUser(u), v;
      if (LLVMIsAStoreInst(st) && LLVMGetOperand(st, 1) == p &&
          LLVMGetTypeKind(LLVMTypeOf(v = LLVMGetOperand(st, 0))) ==
              LLVMPointerTypeKind &&
          !is_private(priv, v) && !LLVMIsAConstantPointerNull(v))
        out = 1;
    }
  }
  if (!out)
    return 0;
  int changed = 0;
  for (size_t k = 0; k < cand->len; k++)
    if (LLVMIsALoadInst(cand->data[k]) && is_private(priv, cand->data[k])) {
      zy_map_put(priv, cand->data[k], OUT);
      changed = 1;
    }
  return changed;
}

static void private_memory(LLVMValueRef fn, ZyMap *priv) {
  ZyVec cand = {0};
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (candidate(i)) {
        zy_vec_push(&cand, i);
        zy_map_put(priv, i, IN);
      }
  /* The largest set whose members come from allocations and null. */
  for (int changed = 1; changed;) {
    if (foreign_pointer_kept(&cand, priv)) {
      changed = 1;
      continue;
    }
    changed = 0;
    for (size_t k = 0; k < cand.len; k++) {
      LLVMValueRef v = cand.data[k], src[64];
      if (!is_private(priv, v))
        continue;
      unsigned n = sources(v, src);
      for (unsigned s = 0; s < n; s++)
        if (!is_private(priv, src[s]) && !LLVMIsAConstantPointerNull(src[s]) &&
            !LLVMIsUndef(src[s])) {
          zy_map_put(priv, v, OUT);
          changed = 1;
          break;
        }
    }
  }
  int escapes = 0;
  for (size_t k = 0; k < cand.len && !escapes; k++) {
    LLVMValueRef v = cand.data[k];
    if (!is_private(priv, v))
      continue;
    for (LLVMUseRef u = LLVMGetFirstUse(v); u && !escapes;
         u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      unsigned op = 0;
      while ((int)op < LLVMGetNumOperands(user) &&
             LLVMGetOperandUse(user, op) != u)
        op++;
      escapes = !private_use(priv, user, op);
    }
  }
  if (escapes)
    for (size_t k = 0; k < cand.len; k++)
      zy_map_put(priv, cand.data[k], OUT);
  zy_vec_free(&cand);
}

/* Whether call `i` only allocates, frees or moves private memory. */
static int private_call(ZyMap *priv, LLVMValueRef i, int reads) {
  if (is_private(priv, i))
    return 1; /* the allocation itself */
  if (zy_activity_deallocation(i))
    return is_private(priv, LLVMGetOperand(i, zy_activity_freed_arg(i)));
  if (LLVMGetNumArgOperands(i) < 1 ||
      !is_private(priv, LLVMGetOperand(i, 0)))
    return 0;
  LLVMValueRef callee = LLVMGetCalledValue(i);
  if (memory_helper(callee)) {
    for (unsigned k = 0; k < LLVMGetNumArgOperands(i); k++) {
      LLVMValueRef a = LLVMGetOperand(i, k);
      if (LLVMGetTypeKind(LLVMTypeOf(a)) == LLVMPointerTypeKind &&
          !is_private(priv, a))
        return 0;
    }
    return 1;
  }
  const char *name = callee && LLVMIsAFunction(callee)
                         ? LLVMGetValueName(callee)
                         : "";
  if (!strncmp(name, "llvm.memset", 11))
    return 1;
  if (!strncmp(name, "llvm.memcpy", 11) || !strncmp(name, "llvm.memmove", 12))
    return !reads || is_private(priv, LLVMGetOperand(i, 1)) ||
           reads_fixed_memory(LLVMGetOperand(i, 1));
  return 0;
}

static LLVMValueRef call_writes(LLVMValueRef call, Walk *w) {
  LLVMValueRef callee = LLVMGetCalledValue(call);
  const char *name = callee && LLVMIsAFunction(callee)
                         ? LLVMGetValueName(callee)
                         : NULL;
  /* A call that only reads: no effect, unless reads count; then what a
   * body reads is found by walking it. */
  if (zy_llvm_call_reads_only(call)) {
    if (!w->reads)
      return NULL;
    if (!name)
      return call;
    if (LLVMIsDeclaration(callee) && strncmp(name, "llvm.", 5))
      return w->benign && w->benign(callee) ? NULL : call;
  }
  if (name && !strncmp(name, "llvm.", 5)) {
    if (!strncmp(name, "llvm.mem", 8)) { /* memcpy, memmove, memset */
      if (w->reads && strncmp(name, "llvm.memset", 11) &&
          !reads_fixed_memory(LLVMGetOperand(call, 1)))
        return call;
      return writes_stack_only(LLVMGetOperand(call, 0)) ? NULL : call;
    }
    return NULL; /* lifetime, dbg, math: no effect we could repeat */
  }
  if (!name)
    return call; /* unknown code: assume it writes */
  if (LLVMIsDeclaration(callee))
    return w->benign && w->benign(callee) ? NULL : call;
  return first_write(callee, w) ? call : NULL;
}

static LLVMValueRef first_write(LLVMValueRef fn, Walk *w) {
  if (zy_vec_contains(&w->seen, fn))
    return NULL;
  zy_vec_push(&w->seen, fn);
  ZyMap priv = {0};
  private_memory(fn, &priv);
  LLVMValueRef found = NULL;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb && !found;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && !found;
         i = LLVMGetNextInstruction(i)) {
      switch (LLVMGetInstructionOpcode(i)) {
      case LLVMStore:
        if (!writes_stack_only(LLVMGetOperand(i, 1)) &&
            !is_private(&priv, LLVMGetOperand(i, 1)))
          found = i;
        break;
      case LLVMLoad:
        if (w->reads && !reads_fixed_memory(LLVMGetOperand(i, 0)) &&
            !is_private(&priv, LLVMGetOperand(i, 0)))
          found = i;
        break;
      case LLVMAtomicRMW:
      case LLVMAtomicCmpXchg:
      case LLVMFence:
      case LLVMInvoke:
        found = i;
        break;
      case LLVMCall:
        if (!private_call(&priv, i, w->reads) && call_writes(i, w))
          found = i;
        break;
      default:
        break;
      }
    }
  zy_map_free(&priv);
  return found;
}

LLVMValueRef zy_effects_first_write(LLVMValueRef fn, ZyBenignCall benign) {
  Walk w = {.benign = benign};
  LLVMValueRef i = first_write(fn, &w);
  zy_vec_free(&w.seen);
  return i;
}

LLVMValueRef zy_effects_first_access(LLVMValueRef fn, ZyBenignCall benign) {
  Walk w = {.benign = benign, .reads = 1};
  LLVMValueRef i = first_write(fn, &w);
  zy_vec_free(&w.seen);
  return i;
}

int zy_effects_private(LLVMValueRef v) {
  ZyMap priv = {0};
  private_memory(LLVMGetBasicBlockParent(LLVMGetInstructionParent(v)), &priv);
  int r = is_private(&priv, v);
  zy_map_free(&priv);
  return r;
}
