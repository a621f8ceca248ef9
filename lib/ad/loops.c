/* loops.c - loops in the sweeps: iteration counters, per-iteration caches
 * of forward values, and the walk of the reverse sweep through loops
 * (see ZyLoop in ad.h for the scheme).
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "cache.h"
#include "runtime.h"

#include "ir/irutil.h"

#include <llvm-c/Target.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where a loop's buffers may grow: block `at` ends with a placeholder
 * branch to `cont` that becomes `need > cap ? grow : cont`. */
typedef struct ZyGrowSite {
  LLVMBasicBlockRef at, cont;
  LLVMValueRef need; /* i64: capacity this point needs */
} ZyGrowSite;

static LLVMTypeRef i64_type(ZyGen *g) {
  return LLVMInt64TypeInContext(g->zm->ctx);
}

/* The first instruction of `bb` with a source location, else its
 * terminator: where errors about a block point. */
LLVMValueRef zy_block_located(LLVMBasicBlockRef bb) {
  for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
       i = LLVMGetNextInstruction(i))
    if (LLVMGetDebugLocLine(i))
      return i;
  return LLVMGetBasicBlockTerminator(bb);
}

int zy_loops_analyze(ZyGen *g) {
  g->nest = zy_llvm_loops_new(g->primal);
  LLVMBasicBlockRef irr = zy_llvm_loops_irreducible(g->nest);
  if (irr)
    return zy_error(ZY_ERR_UNSUPPORTED, g->user, zy_block_located(irr),
                    "restructure the loop so that it is entered only at "
                    "its top (no goto into its body)",
                    "irreducible control flow: a cycle is entered at more "
                    "than one block; it cannot be differentiated");
  g->nloops = zy_llvm_loops_count(g->nest);
  g->loops = calloc(g->nloops ? g->nloops : 1, sizeof *g->loops);
  for (unsigned k = 0; k < g->nloops; k++) {
    ZyLoopDesc d;
    zy_llvm_loops_describe(g->nest, k, &d);
    ZyLoop *l = &g->loops[k];
    l->header = d.header;
    l->preheader = d.preheader;
    l->latch = d.latch;
    l->trip = d.trip;
    l->trip_exact = d.trip_exact;
    l->nest_trip = d.nest_trip;
    l->nest_at = d.nest_at;
    l->max_trip = d.max_trip;
    l->parent = d.parent >= 0 ? &g->loops[d.parent] : NULL;
    l->depth = l->parent ? l->parent->depth + 1 : 1;
    if (!d.preheader || !d.latch || !d.dedicated_exits)
      return zy_error(ZY_ERR_UNSUPPORTED, g->user, zy_block_located(d.header),
                      "loops whose back edges are indirect branches cannot "
                      "be put in canonical form",
                      "this loop has no single entry or no single back "
                      "edge after canonicalization");
  }
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->primal); bb;
       bb = LLVMGetNextBasicBlock(bb)) {
    int k = zy_llvm_loops_innermost(g->nest, bb);
    if (k >= 0)
      zy_map_put(&g->loopof, bb, &g->loops[k]);
  }
  return 0;
}

ZyLoop *zy_loop_of(ZyGen *g, LLVMBasicBlockRef bb) {
  return zy_map_get(&g->loopof, bb);
}

int zy_loop_contains(ZyGen *g, ZyLoop *l, LLVMBasicBlockRef bb) {
  for (ZyLoop *m = zy_loop_of(g, bb); m; m = m->parent)
    if (m == l)
      return 1;
  return 0;
}

static ZyLoop *loop_with_header(ZyGen *g, LLVMBasicBlockRef bb) {
  ZyLoop *l = zy_loop_of(g, bb);
  return l && l->header == bb ? l : NULL;
}

static ZyLoop *loop_with_preheader(ZyGen *g, LLVMBasicBlockRef bb) {
  for (unsigned k = 0; k < g->nloops; k++)
    if (g->loops[k].preheader == bb)
      return &g->loops[k];
  return NULL;
}

/* Ends the current forward block with a branch to a new block, where the
 * sweep goes on; the branch may later become a growth check for `l`. */
static void grow_site(ZyGen *g, ZyLoop *l, LLVMValueRef need) {
  ZyGrowSite *s = calloc(1, sizeof *s);
  s->at = LLVMGetInsertBlock(g->b);
  s->cont = LLVMAppendBasicBlockInContext(g->zm->ctx, g->grad,
                                          LLVMGetBasicBlockName(l->header));
  s->need = need;
  LLVMBuildBr(g->b, s->cont);
  LLVMPositionBuilderAtEnd(g->b, s->cont);
  zy_vec_push(&l->sites, s);
  zy_vec_push(&g->fextra, s->cont);
}

static LLVMValueRef slot_i64(ZyGen *g, const char *name, int zero) {
  return zy_new_slot(g, i64_type(g), name, zero);
}

static void make_slots(ZyGen *g, ZyLoop *l) {
  if (l->count)
    return;
  l->count = slot_i64(g, "zymase.count", 1);
  l->rc = slot_i64(g, "zymase.rc", 1);
  if (g->split)
    zy_vec_push(&g->tape, l->count);
}

/* A header counts its executions: iv (this entry) and idx (this call). */
static void header_begin(ZyGen *g, ZyLoop *l) {
  LLVMTypeRef i64 = i64_type(g);
  make_slots(g, l);
  l->iv = LLVMBuildPhi(g->b, i64, "zymase.iv");
  zy_vec_push(&g->fixups, l->iv);
  zy_vec_push(&g->fixups, l->header);
  zy_map_put(&g->loopiv, l->iv, l);
  l->idx = LLVMBuildLoad2(g->b, i64, l->count, "zymase.idx");
  LLVMValueRef next =
      LLVMBuildNUWAdd(g->b, l->idx, LLVMConstInt(i64, 1, 0), "");
  LLVMBuildStore(g->b, next, l->count);
  /* Without a trip count known in the preheader, grow in the header. */
  grow_site(g, l, l->trip ? NULL : next);
  l->body = LLVMGetInsertBlock(g->b);
}

/* An exit block records, for each loop it leaves, the iteration number
 * the loop was left at. */
static void exit_begin(ZyGen *g, LLVMBasicBlockRef bb) {
  ZyVec *preds = zy_preds(g, bb);
  ZyVec *ivs = NULL;
  for (size_t k = 0; k < preds->len; k++)
    for (ZyLoop *l = zy_loop_of(g, preds->data[k]);
         l && !zy_loop_contains(g, l, bb); l = l->parent) {
      if (!ivs)
        ivs = calloc(1, sizeof *ivs);
      if (zy_vec_contains(ivs, l))
        continue;
      LLVMValueRef phi = LLVMBuildPhi(g->b, i64_type(g), "zymase.exit.iv");
      zy_vec_push(ivs, l);
      zy_vec_push(ivs, phi);
      zy_vec_push(&g->fixups, phi);
      zy_vec_push(&g->fixups, bb);
    }
  if (ivs)
    zy_map_put(&g->exitivs, bb, ivs);
}

void zy_loops_forward_begin(ZyGen *g, LLVMBasicBlockRef bb) {
  exit_begin(g, bb);
  ZyLoop *l = loop_with_header(g, bb);
  if (l)
    header_begin(g, l);
}

/* Room for `iters` more iterations of `l`. */
static void reserve(ZyGen *g, ZyLoop *l, LLVMValueRef iters) {
  LLVMTypeRef i64 = i64_type(g);
  make_slots(g, l);
  LLVMValueRef n = LLVMBuildLoad2(g->b, i64, l->count, "");
  LLVMValueRef fv = zy_map_get(&g->vmap, iters);
  grow_site(g, l, LLVMBuildNUWAdd(g->b, n, fv ? fv : iters, ""));
}

void zy_loops_forward_end(ZyGen *g, LLVMBasicBlockRef bb) {
  /* Iteration counts known before a whole nest: reserved once for it. */
  for (unsigned k = 0; k < g->nloops; k++)
    if (g->loops[k].nest_trip && g->loops[k].nest_at == bb)
      reserve(g, &g->loops[k], g->loops[k].nest_trip);
  /* The trip count is known: room for the whole entry. */
  ZyLoop *l = loop_with_preheader(g, bb);
  if (l && l->trip && !l->nest_trip)
    reserve(g, l, l->trip);
}

/* The incoming values of the phis made by the hooks above, once every
 * forward block is complete: `fixups` holds (phi, primal block) pairs. */
static LLVMValueRef iv_incoming(ZyGen *g, LLVMValueRef phi,
                                LLVMBasicBlockRef bb, LLVMBasicBlockRef pred) {
  LLVMTypeRef i64 = i64_type(g);
  ZyLoop *l = zy_map_get(&g->loopiv, phi);
  if (l) /* 0 from the preheader, iv + 1 from the latch */
    return pred == l->preheader
               ? LLVMConstInt(i64, 0, 0)
               : LLVMBuildNUWAdd(g->b, phi, LLVMConstInt(i64, 1, 0),
                                 "zymase.iv.next");
  ZyVec *ivs = zy_map_get(&g->exitivs, bb);
  for (size_t k = 0; k < ivs->len; k += 2)
    if (ivs->data[k + 1] == phi)
      return zy_loop_contains(g, ivs->data[k], pred)
                 ? ((ZyLoop *)ivs->data[k])->iv
                 : LLVMGetPoison(i64);
  return NULL;
}

void zy_loops_forward_fixups(ZyGen *g) {
  for (size_t k = 0; k < g->fixups.len; k += 2) {
    LLVMValueRef phi = g->fixups.data[k];
    LLVMBasicBlockRef bb = g->fixups.data[k + 1];
    ZyVec *preds = zy_preds(g, bb);
    for (size_t p = 0; p < preds->len; p++) {
      LLVMBasicBlockRef from = zy_map_get(&g->fend, preds->data[p]);
      LLVMPositionBuilderBefore(g->b, LLVMGetBasicBlockTerminator(from));
      LLVMValueRef v = iv_incoming(g, phi, bb, preds->data[p]);
      /* One entry per edge: a switch may reach bb through several cases. */
      LLVMValueRef t = LLVMGetBasicBlockTerminator(preds->data[p]);
      for (unsigned s = 0; s < LLVMGetNumSuccessors(t); s++)
        if (LLVMGetSuccessor(t, s) == bb)
          LLVMAddIncoming(phi, &v, &from, 1);
    }
  }
}

void zy_loops_enter(ZyGen *g, LLVMBasicBlockRef bb, LLVMBasicBlockRef pred) {
  ZyVec *ivs = zy_map_get(&g->exitivs, bb);
  LLVMTypeRef i64 = i64_type(g);
  for (ZyLoop *l = zy_loop_of(g, pred); l && !zy_loop_contains(g, l, bb);
       l = l->parent) {
    if (l->trip_exact) {
      /* The only exit is the latch's, after trip iterations. */
      LLVMValueRef trip = zy_lookup(g, l->trip);
      LLVMBuildStore(g->b, LLVMBuildSub(g->b, trip, LLVMConstInt(i64, 1, 0),
                                        ""),
                     l->rc);
      continue;
    }
    for (size_t k = 0; ivs && k < ivs->len; k += 2)
      if (ivs->data[k] == l)
        LLVMBuildStore(g->b, zy_reload(g, ivs->data[k + 1], bb), l->rc);
  }
  /* Recurrences are replayed once every iteration number is set, outer
   * loops first: an inner one may start from an outer one's value. */
  ZyLoop *exited[64];
  int n = 0;
  for (ZyLoop *l = zy_loop_of(g, pred); l && !zy_loop_contains(g, l, bb) &&
                                        n < 64;
       l = l->parent)
    exited[n++] = l;
  while (n > 0)
    zy_replay_mark(g, exited[--n]);
}

/* --- Per-iteration caches ------------------------------------------------ */

/* Where a forward value is saved: right after it, after the phis and a
 * landing pad (and the counters of a header). */
void zy_position_after(ZyGen *g, LLVMBuilderRef b, LLVMValueRef fv) {
  LLVMValueRef at = LLVMGetNextInstruction(fv);
  while (at && (LLVMIsAPHINode(at) || LLVMIsALandingPadInst(at)))
    at = LLVMGetNextInstruction(at); /* a landing pad stays first */
  LLVMBasicBlockRef fb = LLVMGetInstructionParent(fv);
  for (unsigned k = 0; k < g->nloops && LLVMIsAPHINode(fv); k++) {
    ZyLoop *l = &g->loops[k];
    if (l->iv && LLVMGetInstructionParent(l->iv) == fb)
      at = LLVMGetFirstInstruction(l->body); /* after the growth check */
  }
  LLVMPositionBuilderBefore(b, at);
}

/* A value's name, or (clang discards names) its opcode and source line. */
static void describe(LLVMValueRef v, char *out, size_t n) {
  const char *name = LLVMGetValueName(v);
  if (*name) {
    snprintf(out, n, "%c%s", LLVMIsAGlobalValue(v) ? '@' : '%', name);
    return;
  }
  char *text = LLVMPrintValueToString(v);
  const char *op = strstr(text, " = ");
  op = op ? op + 3 : text;
  if (!strncmp(op, "tail ", 5))
    op += 5;
  int len = (int)strcspn(op, " (");
  unsigned line = LLVMIsAInstruction(v) ? LLVMGetDebugLocLine(v) : 0;
  if (line)
    snprintf(out, n, "%.*s at line %u", len, op, line);
  else
    snprintf(out, n, "%.*s", len, op);
  LLVMDisposeMessage(text);
}

void zy_loops_report(ZyGen *g, LLVMValueRef fv, const char *how) {
  if (!zy_opt_print_cache())
    return;
  char *ty = LLVMPrintTypeToString(LLVMTypeOf(fv));
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(g->zm->mod);
  char what[160], line[512];
  describe(fv, what, sizeof what);
  snprintf(line, sizeof line, "  %s: %s, %llu bytes, %s", what, ty,
           LLVMABISizeOfType(td, LLVMTypeOf(fv)), how);
  LLVMDisposeMessage(ty);
  zy_vec_push(&g->report, strdup(line));
}

void zy_loops_report_note(ZyGen *g, LLVMValueRef v, const char *what) {
  if (!zy_opt_print_cache())
    return;
  char name[160], line[512];
  describe(v, name, sizeof name);
  snprintf(line, sizeof line, "  %s: %s", name, what);
  zy_vec_push(&g->report, strdup(line));
}

/* Small buffers whose size is known at compile time live on the stack. */
#define ZY_STACK_BUFFER_BYTES 4096

unsigned long long zy_loop_bound(ZyLoop *l, int nest) {
  unsigned long long n = 1;
  for (; l; l = nest ? l->parent : NULL) {
    unsigned long long k = l->max_trip;
    if (l->trip && LLVMIsAConstantInt(l->trip) &&
        (!k || LLVMConstIntGetZExtValue(l->trip) < k))
      k = LLVMConstIntGetZExtValue(l->trip);
    if (!k || k > (1ull << 20))
      return 0;
    n *= k;
    if (n > (1ull << 20))
      return 0;
  }
  return n;
}

void zy_loops_stack_buffer(ZyGen *g, LLVMValueRef slot, LLVMTypeRef t,
                           unsigned long long bound) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(g->zm->ctx);
  LLVMPositionBuilderAtEnd(b, g->allocas);
  LLVMValueRef a =
      LLVMBuildAlloca(b, LLVMArrayType2(t, bound), "zymase.stack.buffer");
  if (LLVMGetPointerAddressSpace(LLVMTypeOf(a)))
    a = LLVMBuildAddrSpaceCast(b, a, LLVMPointerTypeInContext(g->zm->ctx, 0),
                               "");
  LLVMBuildStore(b, a, slot);
  LLVMDisposeBuilder(b);
}

/* How a loop cache of `bound` elements of `t` (0: unbounded) is kept:
 * 1 on the stack (local memory on a GPU), 0 in a buffer from the heap. */
static int on_stack(ZyGen *g, ZyLoop *l, LLVMTypeRef t,
                    unsigned long long bound) {
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(g->zm->mod);
  unsigned long long bytes = bound * LLVMABISizeOfType(td, t);
  if (zy_gpu_device_kind(g->zm->mod)) {
    if (zy_gpu_local_buffer(g, bytes))
      return 1;
    zy_gpu_heap_check(g, l);
    return 0;
  }
  return !g->split && bound && bytes <= ZY_STACK_BUFFER_BYTES;
}

static LLVMValueRef buffer_elem(ZyGen *g, LLVMBuilderRef b, ZyLoop *l,
                                LLVMValueRef slot, LLVMTypeRef t,
                                LLVMValueRef idx) {
  LLVMValueRef buf =
      LLVMBuildLoad2(b, LLVMPointerTypeInContext(g->zm->ctx, 0), slot, "");
  return LLVMBuildInBoundsGEP2(b, t, buf, &idx, 1, "");
}

/* The type a value of type `t` is kept as in a loop's buffer: a pointer
 * narrower than 64 bits (amdgcn's LDS and private pointers) as a generic
 * (flat) pointer, whose size stays the same after the GPU-on-CPU
 * retargeting makes every pointer 64-bit (a buffer sized for 4-byte
 * pointers would overflow; an integer of the pointer would be narrowed to
 * 32 bits by the device optimizer). */
static LLVMTypeRef stored_type(ZyGen *g, LLVMTypeRef t) {
  if (LLVMGetTypeKind(t) != LLVMPointerTypeKind)
    return t;
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(g->zm->mod);
  return LLVMPointerSizeForAS(td, LLVMGetPointerAddressSpace(t)) <
                 LLVMPointerSizeForAS(td, 0)
             ? LLVMPointerTypeInContext(g->zm->ctx, 0)
             : t;
}

LLVMValueRef zy_loops_reload(ZyGen *g, LLVMValueRef fv, ZyLoop *l) {
  ZyLoop *ivl = zy_map_get(&g->loopiv, fv);
  LLVMTypeRef i64 = i64_type(g), vt = LLVMTypeOf(fv), t = stored_type(g, vt);
  if (ivl) /* the iteration number: the reverse counts it down */
    return LLVMBuildLoad2(g->b, i64, ivl->rc, "zymase.iv");
  LLVMValueRef slot = zy_map_get(&g->cache, fv);
  if (!slot) {
    unsigned long long bound = zy_loop_bound(l, 1);
    int stack = on_stack(g, l, t, bound);
    slot = zy_new_slot(g, LLVMPointerTypeInContext(g->zm->ctx, 0),
                       "zymase.buffer", !stack);
    if (stack) {
      zy_loops_stack_buffer(g, slot, t, bound);
    } else {
      if (g->split)
        zy_vec_push(&g->tape, slot);
      zy_vec_push(&l->bufs, slot);
      zy_vec_push(&l->btypes, t);
    }
    zy_map_put(&g->cache, fv, slot);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(g->zm->ctx);
    zy_position_after(g, b, fv);
    LLVMValueRef kept = t == vt ? fv : LLVMBuildAddrSpaceCast(b, fv, t, "");
    zy_cache_access(g, LLVMBuildStore(b, kept, buffer_elem(g, b, l, slot, t,
                                                           l->idx)));
    LLVMDisposeBuilder(b);
    char how[256];
    const char *hn = LLVMGetBasicBlockName(l->header);
    unsigned line = LLVMGetDebugLocLine(zy_block_located(l->header));
    char where[160] = "";
    if (*hn)
      snprintf(where, sizeof where, "%%%s, ", hn);
    else if (line)
      snprintf(where, sizeof where, "line %u, ", line);
    int gpu = zy_gpu_device_kind(g->zm->mod);
    char kind[96];
    if (stack && gpu)
      snprintf(kind, sizeof kind,
               "fixed-size buffer in local memory (%llu values per thread)",
               bound);
    else
      snprintf(kind, sizeof kind, "%s%s",
               gpu ? "device malloc per thread, " : "",
               stack     ? "fixed-size buffer on the stack"
               : l->trip ? "buffer reserved from the trip count"
                         : "buffer grown geometrically");
    snprintf(how, sizeof how, "per iteration of loop %d (%sdepth %d), %s",
             (int)(l - g->loops) + 1, where, l->depth, kind);
    zy_loops_report(g, fv, how);
  }
  LLVMValueRef n = LLVMBuildLoad2(g->b, i64, l->count, "");
  LLVMValueRef idx = LLVMBuildSub(g->b, n, LLVMConstInt(i64, 1, 0), "");
  LLVMValueRef v =
      LLVMBuildLoad2(g->b, t, buffer_elem(g, g->b, l, slot, t, idx), "");
  zy_cache_access(g, v);
  return t == vt ? v : LLVMBuildAddrSpaceCast(g->b, v, vt, "");
}

/* A block inserted after growth site `k` of loop `l` in the forward
 * sweep, before the site's continuation (the block ends with a branch
 * there): code that runs where the loop's buffers grow.  `*need` is the
 * site's i64 need (the iterations of the loop in the call so far, and
 * the coming ones where the trip count is known; NULL for the header of
 * a loop whose room is reserved before it), `*header` whether the site
 * is the loop header's, which runs at every iteration. */
LLVMBasicBlockRef zy_loops_site_hook(ZyGen *g, ZyLoop *l, size_t k,
                                     LLVMValueRef *need, int *header) {
  ZyGrowSite *s = l->sites.data[k];
  LLVMBasicBlockRef hook =
      LLVMAppendBasicBlockInContext(g->zm->ctx, g->grad, "zymase.hook");
  zy_vec_push(&g->fextra, hook);
  *need = s->need;
  *header = s->cont == l->body;
  LLVMInstructionEraseFromParent(LLVMGetBasicBlockTerminator(s->at));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(g->zm->ctx);
  LLVMPositionBuilderAtEnd(b, s->at);
  LLVMBuildBr(b, hook);
  LLVMPositionBuilderAtEnd(b, hook);
  LLVMBuildBr(b, s->cont);
  LLVMDisposeBuilder(b);
  s->cont = hook;
  return hook;
}

/* --- After both sweeps ---------------------------------------------------- */

void zy_loops_realloc(ZyGen *g, ZyVec *slots, ZyVec *types, LLVMValueRef n,
                      LLVMValueRef keep, ZyVec *locals) {
  LLVMTypeRef i64 = i64_type(g), ptr = LLVMPointerTypeInContext(g->zm->ctx, 0);
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(g->zm->mod);
  LLVMTypeRef fty = LLVMFunctionType(ptr, (LLVMTypeRef[]){ptr, i64}, 2, 0);
  int gpu = zy_gpu_device_kind(g->zm->mod);
  for (size_t k = 0; k < slots->len; k++) {
    LLVMValueRef slot = slots->data[k];
    if (gpu) {
      zy_gpu_grow(g, slot, types->data[k], n, keep,
                  locals && locals->len ? locals->data[k] : NULL);
      continue;
    }
    LLVMValueRef size =
        LLVMConstInt(i64, LLVMABISizeOfType(td, types->data[k]), 0);
    LLVMValueRef args[2] = {LLVMBuildLoad2(g->b, ptr, slot, ""),
                            LLVMBuildNUWMul(g->b, n, size, "")};
    LLVMValueRef realloc_fn = zy_runtime_fn(g->zm->mod, "realloc", fty);
    LLVMBuildStore(g->b, LLVMBuildCall2(g->b, fty, realloc_fn, args, 2, ""),
                   slot);
  }
}

/* A growth check: need > cap ? (realloc every buffer) : nothing. */
static void finish_site(ZyGen *g, ZyLoop *l, ZyGrowSite *s) {
  LLVMTypeRef i64 = i64_type(g);
  LLVMInstructionEraseFromParent(LLVMGetBasicBlockTerminator(s->at));
  LLVMBasicBlockRef grow =
      LLVMAppendBasicBlockInContext(g->zm->ctx, g->grad, "zymase.grow");
  zy_vec_push(&g->fextra, grow);
  LLVMPositionBuilderAtEnd(g->b, s->at);
  LLVMValueRef cap = LLVMBuildLoad2(g->b, i64, l->cap, "");
  LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntUGT, s->need, cap, ""),
                  grow, s->cont);
  LLVMPositionBuilderAtEnd(g->b, grow);
  /* Geometric growth keeps the total copying linear. */
  LLVMValueRef dbl = LLVMBuildAdd(
      g->b, LLVMBuildShl(g->b, cap, LLVMConstInt(i64, 1, 0), ""),
      LLVMConstInt(i64, 8, 0), "");
  LLVMValueRef ncap = LLVMBuildSelect(
      g->b, LLVMBuildICmp(g->b, LLVMIntUGT, s->need, dbl, ""), s->need, dbl,
      "zymase.cap");
  zy_loops_realloc(g, &l->bufs, &l->btypes, ncap, cap, &l->locals);
  LLVMBuildStore(g->b, ncap, l->cap);
  LLVMBuildBr(g->b, s->cont);
}

static void print_report(ZyGen *g) {
  if (!zy_opt_print_cache())
    return;
  LLVMValueRef fn = g->split ? NULL : g->grad;
  /* A copy of snapshot.c (`f.zymase.src`) is the user's f. */
  size_t len;
  const char *name = LLVMGetValueName2(g->user, &len);
  const char *copy = strstr(name, ".zymase.src");
  fprintf(stderr, "zymase: cache of the gradient of '%.*s'%s%s\n",
          (int)(copy ? (size_t)(copy - name) : len), name,
          fn ? " in " : " (split mode)", fn ? LLVMGetValueName(fn) : "");
  if (!g->report.len)
    fprintf(stderr, "  nothing cached\n");
  for (size_t k = 0; k < g->report.len; k++)
    fprintf(stderr, "%s\n", (char *)g->report.data[k]);
  if (g->split && g->sig.parallel)
    zy_loops_report_tape(g);
}

/* --- Buffers kept for the next call ------------------------------------- */

/* A gradient's loop buffers up to -zymase-keep-buffers-mb (32 MiB) in all
 * (all its loops together, in the order of its loops, each loop's
 * buffers whole or not at all) are kept for its next call instead of
 * being freed: a fresh allocation of megabytes per call costs a page fault
 * per 4 KiB page once the allocator returns freed memory to the system,
 * which took more than half of GMM's gradient time.  The others are
 * freed: keeping them would hold that much memory after the gradient
 * returns. */
static unsigned long long keep_bytes(void) {
  return (unsigned long long)zy_opt_keep_buffers_mb() << 20;
}

static int keeps_buffers(ZyGen *g) {
  return !g->split && !g->sig.nofree && !g->zm->nested_ad && keep_bytes() &&
         !zy_device_module(g->zm->mod);
}

static LLVMValueRef keep_global(ZyGen *g, LLVMTypeRef t, unsigned k,
                                const char *what, LLVMValueRef init) {
  char name[256];
  snprintf(name, sizeof name, "zymase.keep%s.%s.%u", what,
           LLVMGetValueName(g->grad), k);
  LLVMValueRef gv = LLVMAddGlobal(g->zm->mod, t, name);
  LLVMSetLinkage(gv, LLVMInternalLinkage);
  LLVMSetInitializer(gv, init);
  return gv;
}

/* &rec->buffers[s] */
static LLVMValueRef rec_buf(ZyGen *g, LLVMBuilderRef b, LLVMTypeRef rt,
                           LLVMValueRef rec, size_t s) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(g->zm->ctx);
  LLVMValueRef idx[3] = {LLVMConstInt(i32, 0, 0), LLVMConstInt(i32, 1, 0),
                         LLVMConstInt(i32, s, 0)};
  return LLVMBuildInBoundsGEP2(b, rt, rec, idx, 3, "");
}

static void call_free(ZyGen *g, LLVMBuilderRef b, LLVMValueRef take,
                      LLVMValueRef p) {
  LLVMValueRef null = LLVMConstNull(LLVMTypeOf(p));
  zy_call_free(b, "free", LLVMBuildSelect(b, take, p, null, ""));
}

/* The kept buffers of a loop are a record {capacity, buffers...} that a
 * global points to (to an empty record when none is kept): the gradient
 * takes it by an atomic exchange at its entry and puts its own back the
 * same way before it returns, freeing what it gets in exchange (another
 * thread or a recursive call may have put one meanwhile), so every record
 * has one owner and threads need no locks. */
static void keep_buffers(ZyGen *g, ZyLoop *l, unsigned k, LLVMValueRef kept) {
  LLVMContextRef c = g->zm->ctx;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0), i64 = i64_type(g);
  LLVMTypeRef rt = LLVMStructTypeInContext(
      c, (LLVMTypeRef[]){i64, LLVMArrayType2(ptr, l->bufs.len)}, 2, 0);
  LLVMValueRef none =
      keep_global(g, rt, k, ".none", LLVMConstNull(rt));
  LLVMSetGlobalConstant(none, 1);
  LLVMValueRef gv = keep_global(g, ptr, k, "", none);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, g->allocas);
  LLVMValueRef rec = LLVMBuildAtomicRMW(b, LLVMAtomicRMWBinOpXchg, gv, none,
                                        LLVMAtomicOrderingAcquireRelease, 0);
  LLVMBuildStore(b, LLVMBuildLoad2(b, i64, rec, ""), l->cap);
  for (size_t s = 0; s < l->bufs.len; s++) {
    LLVMValueRef at = rec_buf(g, b, rt, rec, s);
    LLVMBuildStore(b, LLVMBuildLoad2(b, ptr, at, ""), l->bufs.data[s]);
  }
  call_free(g, b, LLVMBuildICmp(b, LLVMIntNE, rec, none, ""), rec);

  LLVMPositionBuilderBefore(b, g->retinst);
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(g->zm->mod);
  unsigned long long bytes = 0;
  for (size_t s = 0; s < l->btypes.len; s++)
    bytes += LLVMABISizeOfType(td, l->btypes.data[s]);
  /* cap * bytes <= what the budget has left after the loops before */
  LLVMValueRef cap = LLVMBuildLoad2(b, i64, l->cap, "");
  LLVMValueRef used = LLVMBuildLoad2(b, i64, kept, "");
  LLVMValueRef room =
      LLVMBuildSub(b, LLVMConstInt(i64, keep_bytes(), 0), used, "");
  LLVMValueRef keep = LLVMBuildICmp(
      b, LLVMIntULE, cap,
      LLVMBuildUDiv(b, room, LLVMConstInt(i64, bytes, 0), ""), "");
  LLVMValueRef size = LLVMBuildMul(b, cap, LLVMConstInt(i64, bytes, 0), "");
  LLVMBuildStore(
      b,
      LLVMBuildAdd(b, used,
                   LLVMBuildSelect(b, keep, size, LLVMConstInt(i64, 0, 0), ""),
                   ""),
      kept);
  LLVMValueRef drop = LLVMBuildNot(b, keep, "");
  LLVMTypeRef mty = LLVMFunctionType(ptr, &i64, 1, 0);
  LLVMValueRef mine = LLVMBuildCall2(
      b, mty, zy_runtime_fn(g->zm->mod, "malloc", mty),
      (LLVMValueRef[]){LLVMSizeOf(rt)}, 1, "");
  LLVMBuildStore(b, cap, mine);
  for (size_t s = 0; s < l->bufs.len; s++) {
    LLVMValueRef buf = LLVMBuildLoad2(b, ptr, l->bufs.data[s], "");
    LLVMBuildStore(b, buf, rec_buf(g, b, rt, mine, s));
    call_free(g, b, drop, buf);
  }
  call_free(g, b, drop, mine);
  LLVMValueRef old = LLVMBuildAtomicRMW(
      b, LLVMAtomicRMWBinOpXchg, gv, LLVMBuildSelect(b, keep, mine, none, ""),
      LLVMAtomicOrderingAcquireRelease, 0);
  for (size_t s = 0; s < l->bufs.len; s++) {
    zy_call_free(b, "free",
                 LLVMBuildLoad2(b, ptr, rec_buf(g, b, rt, old, s), ""));
  }
  call_free(g, b, LLVMBuildICmp(b, LLVMIntNE, old, none, ""), old);
  LLVMDisposeBuilder(b);
}

void zy_loops_finish(ZyGen *g) {
  LLVMValueRef kept = NULL;
  LLVMTypeRef ptr = LLVMPointerTypeInContext(g->zm->ctx, 0);
  for (unsigned k = 0; k < g->nloops; k++)
    if (g->loops[k].bufs.len)
      g->loops[k].cap = slot_i64(g, "zymase.cap", 1);
  zy_gpu_local_start(g);
  for (unsigned k = 0; k < g->nloops; k++) {
    ZyLoop *l = &g->loops[k];
    if (!l->bufs.len)
      continue;
    for (size_t s = 0; s < l->sites.len; s++)
      if (((ZyGrowSite *)l->sites.data[s])->need)
        finish_site(g, l, l->sites.data[s]);
    if (keeps_buffers(g)) {
      if (!kept) /* bytes kept so far by this call, over all loops */
        kept = zy_new_slot(g, i64_type(g), "zymase.kept", 1);
      keep_buffers(g, l, k, kept);
      continue;
    }
    /* The buffers are freed when the reverse sweep is done (unless the
     * caller keeps the tape that holds them). */
    LLVMPositionBuilderBefore(g->b, g->retinst);
    for (size_t s = 0; s < l->bufs.len && !g->sig.nofree; s++)
      zy_gpu_free_unless(g, g->b,
                         LLVMBuildLoad2(g->b, ptr, l->bufs.data[s], ""),
                         l->locals.len ? l->locals.data[s] : NULL);
  }
  print_report(g);
}

void zy_loops_free(ZyGen *g) {
  for (unsigned k = 0; k < g->nloops; k++) {
    ZyLoop *l = &g->loops[k];
    for (size_t s = 0; s < l->sites.len; s++)
      free(l->sites.data[s]);
    zy_vec_free(&l->sites);
    zy_vec_free(&l->bufs);
    zy_vec_free(&l->btypes);
    zy_vec_free(&l->locals);
    zy_vec_free(&l->replay_locals);
    zy_vec_free(&l->replays);
  }
  free(g->loops);
  zy_map_free(&g->replayable);
  zy_map_free(&g->replay);
  zy_map_free(&g->cache_mem);
  for (size_t k = 0; k < g->exitivs.order.len; k++) {
    ZyVec *v = zy_map_get(&g->exitivs, g->exitivs.order.data[k]);
    zy_vec_free(v);
    free(v);
  }
  for (size_t k = 0; k < g->report.len; k++)
    free(g->report.data[k]);
  zy_vec_free(&g->report);
  zy_map_free(&g->exitivs);
  zy_map_free(&g->reported);
  zy_map_free(&g->recompute);
  zy_map_free(&g->plan);
  zy_map_free(&g->owned);
  zy_map_free(&g->gpu_join);
  zy_vec_free(&g->gpu_shared);
  zy_map_free(&g->gpu_dynexprs);
  zy_vec_free(&g->gpu_deferred);
  zy_map_free(&g->gpu_sum);
  zy_parallel()->priv_free(g);
  zy_vec_free(&g->pending);
  zy_vec_free(&g->dfrees);
  if (g->alias)
    zy_llvm_alias_free(g->alias);
  zy_map_free(&g->loopof);
  zy_map_free(&g->loopiv);
  zy_map_free(&g->fend);
  zy_vec_free(&g->fextra);
  zy_vec_free(&g->fixups);
  if (g->nest)
    zy_llvm_loops_free(g->nest);
}
