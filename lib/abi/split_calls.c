/* split_calls.c - lowers Enzyme's split-mode entry points:
 * __enzyme_augmentfwd (the forward pass, returning a tape),
 * __enzyme_reverse (the reverse pass, taking the tape) and
 * __enzyme_augmentsize (the tape's size), on the engine's split pairs.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "abi.h"

#include "ir/irutil.h"

#include <llvm-c/Target.h>
#include <stdio.h>
#include <stdlib.h>

static const char *entry(ZyCall *c) {
  return zy_abi_entry_name(LLVMGetValueName(LLVMGetCalledValue(c->call)));
}

static LLVMTypeRef fn_return(ZyCall *c) {
  return LLVMGetReturnType(LLVMGlobalGetValueType(c->fn));
}

static int is_aggregate(LLVMTypeRef t) {
  LLVMTypeKind k = LLVMGetTypeKind(t);
  return k == LLVMStructTypeKind || k == LLVMArrayTypeKind ||
         k == LLVMVectorTypeKind;
}

/* The return value's activity, as Enzyme decides it: a floating-point
 * result is active, a pointer is dup (its shadow comes back from the
 * forward pass), anything else constant; the return markers override. */
static int return_activity(ZyCall *c) {
  LLVMTypeRef fret = fn_return(c);
  int fp = zy_type_differentiable(fret);
  int ptr = LLVMGetTypeKind(fret) == LLVMPointerTypeKind;
  if (c->primal_return)
    return zy_error(ZY_ERR_BAD_MARKER, c->fn, c->call,
                    "the forward pass returns the primal result already "
                    "(unless enzyme_noret is given)",
                    "enzyme_primal_return is not available in split mode");
  switch (c->ret_kind) {
  case ZY_MARK_CONST_RETURN:
    return 0;
  case ZY_MARK_ACTIVE_RETURN:
    if (!fp)
      return zy_error(ZY_ERR_BAD_MARKER, c->fn, c->call, NULL,
                      "enzyme_active_return, but the function does not "
                      "return a floating-point value");
    break;
  case ZY_MARK_DUP_RETURN:
    if (!ptr)
      return zy_error(ZY_ERR_BAD_MARKER, c->fn, c->call, NULL,
                      "enzyme_dup_return, but the function does not return "
                      "a pointer");
    c->sig.dup_ret = 1;
    return 0;
  default:
    c->sig.dup_ret = ptr;
    if (!fp)
      return 0;
  }
  if (is_aggregate(fret))
    return zy_error(ZY_ERR_BAD_RETURN, c->fn, c->call,
                    "mark the return enzyme_const_return if no derivative "
                    "flows through it",
                    "the function returns an aggregate; split mode needs a "
                    "scalar floating-point result to seed");
  c->sig.active_ret = 1;
  return 0;
}

/* The tape is one pointer (to the heap block the forward pass fills):
 * that is what a caller's buffer holds. */
static unsigned long long tape_size(ZyCall *c) {
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(c->zm->mod);
  return LLVMABISizeOfType(td, LLVMPointerTypeInContext(c->zm->ctx, 0));
}

/* enzyme_allocated without enzyme_tape: the tape travels by value, in
 * the N bytes of the declared result and of the reverse's argument (as
 * Enzyme's inline tape). */
static int inline_tape(ZyCall *c) { return c->allocated >= 0 && !c->tape_ptr; }

static int check_allocated(ZyCall *c) {
  if (c->allocated < 0 || inline_tape(c) ||
      (unsigned long long)c->allocated >= tape_size(c))
    return 0;
  return zy_error(ZY_ERR_BAD_CALL, c->fn, c->call,
                  "allocate __enzyme_augmentsize((void*)f, ...) bytes",
                  "the tape needs %llu bytes but enzyme_allocated gives %lld",
                  tape_size(c), c->allocated);
}

/* Reads the call and generates (or finds) the split pair.  enzyme_nofree
 * only changes the reverse (as in Enzyme). */
static int prepare(ZyCall *c, int reverse, LLVMValueRef *aug,
                   LLVMValueRef *rev) {
  if (zy_abi_read_arguments(c) || return_activity(c) || check_allocated(c))
    return -1;
  c->sig.nofree = reverse && c->nofree;
  c->sig.inline_tape = inline_tape(c);
  ZyTT *seeds = zy_abi_seeds(c);
  int err = zy_gradient_split(c->zm, c->fn, c->sig, seeds, aug, rev);
  zy_abi_free_seeds(c, seeds);
  for (unsigned k = 0; k < c->nshadows; k++)
    c->args[c->nargs++] = c->shadows[k];
  if (err || !c->sig.inline_tape)
    return err;
  zy_gradient_tape_layout(c->zm, *aug, &c->tape_bytes, &c->tape_align);
  if (c->tape_bytes <= (unsigned long long)c->allocated)
    return 0;
  char hint[200];
  snprintf(hint, sizeof hint,
           "give enzyme_allocated at least %llu in both calls, and the tape "
           "a type of as many bytes",
           c->tape_bytes);
  return zy_error(ZY_ERR_BAD_CALL, c->fn, c->call, hint,
                  "the tape needs %llu bytes but enzyme_allocated gives %lld",
                  c->tape_bytes, c->allocated);
}

/* Memory for an inline tape in the caller's frame: enzyme_allocated's
 * bytes, aligned for the tape. */
static LLVMValueRef tape_buffer(ZyCall *c) {
  LLVMBuilderRef eb = LLVMCreateBuilderInContext(c->zm->ctx);
  LLVMPositionBuilderBefore(
      eb, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(c->caller)));
  unsigned long long n =
      c->allocated > 0 ? (unsigned long long)c->allocated : 1;
  LLVMValueRef buf = LLVMBuildAlloca(
      eb, LLVMArrayType2(LLVMInt8TypeInContext(c->zm->ctx), n), "zymase.tape");
  LLVMSetAlignment(buf, c->tape_align > 16 ? (unsigned)c->tape_align : 16);
  LLVMDisposeBuilder(eb);
  return buf;
}

/* A lowered split-mode call: the function, the activity, and the call
 * to the pass that replaced it. */
typedef struct SplitUse {
  LLVMValueRef fn, call;
  ZySig sig;
  int reverse;
} SplitUse;

static void record(ZyCall *c, int reverse, LLVMValueRef call) {
  SplitUse *u = malloc(sizeof *u);
  *u = (SplitUse){.fn = c->fn, .call = call, .sig = c->sig, .reverse = reverse};
  u->sig.nofree = 0; /* a nofree reverse reads the same tape */
  zy_vec_push(&c->zm->split_uses, u);
}

static int same_activity(ZySig a, ZySig b) {
  return a.active_args == b.active_args && a.dup_args == b.dup_args &&
         a.active_ret == b.active_ret && a.dup_ret == b.dup_ret &&
         a.inline_tape == b.inline_tape && a.width == b.width;
}

int zy_check_split_pairs(ZyModule *zm) {
  ZyVec *v = &zm->split_uses;
  int err = 0;
  for (size_t i = 0; i < v->len; i++) {
    SplitUse *r = v->data[i];
    int forwards = 0, match = 0;
    for (size_t j = 0; j < v->len && r->reverse; j++) {
      SplitUse *a = v->data[j];
      if (a->reverse || a->fn != r->fn)
        continue;
      forwards = 1;
      match |= same_activity(a->sig, r->sig);
    }
    if (forwards && !match)
      err = zy_error(ZY_ERR_BAD_CALL, r->fn, r->call,
                     "give __enzyme_augmentfwd and __enzyme_reverse the "
                     "same markers for the arguments and the return, the "
                     "same enzyme_width, and enzyme_allocated (a tape by "
                     "value) to both or neither",
                     "this __enzyme_reverse differentiates with another "
                     "activity than every __enzyme_augmentfwd of the "
                     "function, so it would misread their tapes");
  }
  for (size_t i = 0; i < v->len; i++)
    free(v->data[i]);
  zy_vec_free(v);
  return err;
}

static const char *const AUG_HINT =
    "declare the result as void* (the tape) or as a struct { void *tape; "
    "the result; the result's shadow (N with enzyme_width N) }, without the "
    "tape when enzyme_tape is given and without the result when "
    "enzyme_noret is";

static const char *const INLINE_HINT =
    "declare the result as a type of enzyme_allocated's N bytes (the tape), "
    "or as a struct { char tape[N]; the result; the result's shadow }, "
    "without the result when enzyme_noret is given";

/* The values the user gets: the tape (unless it went to enzyme_tape's
 * buffer, or is inline in `inl`), the primal result and its shadow
 * (unless enzyme_noret). */
static int give_augmented(ZyCall *c, LLVMValueRef res, LLVMValueRef inl) {
  LLVMTypeRef rty = LLVMTypeOf(res);
  unsigned nf = LLVMGetTypeKind(rty) == LLVMStructTypeKind
                    ? LLVMCountStructElementTypes(rty)
                    : 0; /* (void: an inline tape and no result) */
  unsigned last = nf - 1, n = 0, f = 0;
  LLVMValueRef vals[2 + 64];
  LLVMTypeRef types[2 + 64];
  LLVMValueRef tape =
      inl ? NULL : LLVMBuildExtractValue(c->b, res, last, "tape");
  if (c->tape_ptr) /* a caller's buffer, maybe a char array */
    LLVMSetAlignment(LLVMBuildStore(c->b, tape, c->tape_ptr), 1);
  else if (tape)
    vals[n++] = tape;
  if (LLVMGetTypeKind(fn_return(c)) != LLVMVoidTypeKind) {
    if (!c->noret)
      vals[n++] = LLVMBuildExtractValue(c->b, res, f, "");
    f++;
  }
  for (unsigned j = 0; j < c->width && c->sig.dup_ret && !c->noret; j++)
    vals[n++] = LLVMBuildExtractValue(c->b, res, f + j, ""); /* each lane's */
  for (unsigned k = 0; k < n; k++)
    types[k] = LLVMTypeOf(vals[k]);
  if (inl) {
    LLVMValueRef s =
        LLVMGetUndef(LLVMStructTypeInContext(c->zm->ctx, types, n, 0));
    for (unsigned k = 0; k < n; k++)
      s = LLVMBuildInsertValue(c->b, s, vals[k], k, "");
    return zy_abi_pack_after(c, inl, (unsigned long long)c->allocated, s,
                             "result", INLINE_HINT);
  }
  int void_rt = LLVMGetTypeKind(c->rt) == LLVMVoidTypeKind;
  if (!n && !c->out && !void_rt) { /* nothing to return: Enzyme's undef */
    LLVMReplaceAllUsesWith(c->call, LLVMConstNull(c->rt));
    return 0;
  }
  if (!c->out && void_rt) /* the result is dropped, as by Enzyme */
    return c->tape_ptr ? 0
                       : zy_error(ZY_ERR_BAD_RETURN, c->fn, c->call, AUG_HINT,
                                  "the call returns void, so the tape would "
                                  "be lost");
  /* A pointer result is the tape; the primal result is dropped. */
  if (!c->tape_ptr && !c->out &&
      LLVMGetTypeKind(c->rt) == LLVMPointerTypeKind) {
    LLVMReplaceAllUsesWith(c->call, tape);
    return 0;
  }
  LLVMValueRef s =
      LLVMGetUndef(LLVMStructTypeInContext(c->zm->ctx, types, n, 0));
  for (unsigned k = 0; k < n; k++)
    s = LLVMBuildInsertValue(c->b, s, vals[k], k, "");
  return zy_abi_pack(c, s, "result", AUG_HINT);
}

static int lower_augmentfwd(ZyCall *c) {
  LLVMValueRef aug, rev;
  if (prepare(c, 0, &aug, &rev))
    return -1;
  if (c->nextra)
    return zy_error(ZY_ERR_BAD_CALL, c->fn, c->call,
                    "the return adjoint and the tape go to __enzyme_reverse",
                    "too many arguments: '%s' takes %u",
                    LLVMGetValueName(c->fn), LLVMCountParams(c->fn));
  LLVMValueRef inl = c->sig.inline_tape ? tape_buffer(c) : NULL;
  if (inl)
    c->args[c->nargs++] = inl;
  LLVMValueRef res = LLVMBuildCall2(c->b, LLVMGlobalGetValueType(aug), aug,
                                    c->args, c->nargs, "");
  if (give_augmented(c, res, inl))
    return -1;
  record(c, 0, res);
  LLVMInstructionEraseFromParent(c->call);
  return 0;
}

/* An inline tape passed to the reverse by value (argument `t`, operand
 * `op`: a value of any type, or a pointer to a byval copy): its bytes in
 * a tape buffer.  NULL after reporting an error. */
static LLVMValueRef inline_tape_arg(ZyCall *c, LLVMValueRef t, unsigned op) {
  unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
  LLVMAttributeRef a = LLVMGetCallSiteEnumAttribute(c->call, op + 1, byval);
  LLVMTypeRef vt = a ? LLVMGetTypeAttributeValue(a) : LLVMTypeOf(t);
  LLVMValueRef src = t;
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(c->zm->mod);
  unsigned long long have = LLVMABISizeOfType(td, vt);
  if (have < c->tape_bytes) {
    zy_error(ZY_ERR_BAD_CALL, c->fn, c->call,
             "pass the value __enzyme_augmentfwd returned",
             "the tape argument has %llu bytes but the tape needs %llu", have,
             c->tape_bytes);
    return NULL;
  }
  if (!a && have <= (unsigned long long)c->allocated) {
    src = tape_buffer(c); /* aligned for the tape */
    LLVMBuildStore(c->b, t, src);
    return src;
  }
  if (!a) {
    LLVMBuilderRef eb = LLVMCreateBuilderInContext(c->zm->ctx);
    LLVMPositionBuilderBefore(
        eb, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(c->caller)));
    src = LLVMBuildAlloca(eb, vt, "zymase.tape.arg");
    LLVMDisposeBuilder(eb);
    LLVMBuildStore(c->b, t, src);
  }
  LLVMValueRef buf = tape_buffer(c);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c->zm->ctx);
  LLVMBuildMemCpy(c->b, buf, 1, src, 1, LLVMConstInt(i64, c->tape_bytes, 0));
  return buf;
}

/* Appends to `out` the values of the floating-point type `t` that
 * argument `v` (operand `op`) holds: itself (converted), the elements of
 * a vector or aggregate (how C passes a small struct of them), or the
 * memory of a byval copy.  Returns how many, or -1 if it holds others. */
static int lanes_of(ZyCall *c, LLVMValueRef v, unsigned op, LLVMTypeRef t,
                    LLVMValueRef *out, unsigned room) {
  unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
  LLVMAttributeRef a =
      op ? LLVMGetCallSiteEnumAttribute(c->call, op + 1, byval) : NULL;
  LLVMTypeRef vt = a ? LLVMGetTypeAttributeValue(a) : LLVMTypeOf(v);
  LLVMTargetDataRef td = LLVMGetModuleDataLayout(c->zm->mod);
  LLVMTypeKind k = LLVMGetTypeKind(vt);
  if (!a && k != LLVMVectorTypeKind && k != LLVMArrayTypeKind &&
      k != LLVMStructTypeKind) {
    LLVMValueRef x = zy_abi_convert(c->b, v, t);
    if (!x || !room)
      return -1;
    out[0] = x;
    return 1;
  }
  unsigned long long size = LLVMABISizeOfType(td, vt),
                     each = LLVMABISizeOfType(td, t);
  unsigned n = (unsigned)(size / each);
  if (n > room || n * each != size)
    return -1;
  LLVMValueRef mem = v;
  if (!a) { /* a value: through memory, as C lays it out */
    LLVMBuilderRef eb = LLVMCreateBuilderInContext(c->zm->ctx);
    LLVMPositionBuilderBefore(
        eb, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(c->caller)));
    mem = LLVMBuildAlloca(eb, vt, "zymase.dret");
    LLVMDisposeBuilder(eb);
    LLVMBuildStore(c->b, v, mem);
  }
  LLVMTypeRef i8 = LLVMInt8TypeInContext(c->zm->ctx);
  for (unsigned j = 0; j < n; j++) {
    LLVMValueRef off =
        LLVMConstInt(LLVMInt64TypeInContext(c->zm->ctx), j * each, 0);
    LLVMValueRef l =
        LLVMBuildLoad2(c->b, t, LLVMBuildGEP2(c->b, i8, mem, &off, 1, ""), "");
    LLVMSetAlignment(l, 1);
    out[j] = l;
  }
  return (int)n;
}

/* Vector mode: the return adjoints of the N lanes, from the `count`
 * values before the tape (Enzyme's [N x T]: a struct of N values passed
 * by value, or N values), 1.0 in every lane if none. */
static int vector_return_adjoints(ZyCall *c, unsigned count) {
  LLVMTypeRef fret = fn_return(c);
  unsigned got = 0;
  for (unsigned k = 0; k < count; k++) {
    if (got == c->width)
      return zy_error(ZY_ERR_BAD_CALL, c->fn, c->call,
                      "pass the N adjoints of the result (a struct of N "
                      "values, or N values), then the tape",
                      "too many return adjoints: enzyme_width %u takes %u",
                      c->width, c->width);
    int n = lanes_of(c, c->extra[k], c->extraop[k], fret,
                     c->args + c->nargs + got, c->width - got);
    if (n < 0) {
      char *want = zy_abi_type_str(fret);
      zy_error(ZY_ERR_BAD_CALL, c->fn, c->call,
               "pass the N adjoints of the result (a struct of N values, or "
               "N values), then the tape",
               "return adjoint %u is not one or more values of type %s "
               "(at most %u, the lanes of enzyme_width left)",
               k + 1, want, c->width - got);
      free(want);
      return -1;
    }
    got += (unsigned)n;
  }
  if (!count)
    for (; got < c->width; got++)
      c->args[c->nargs + got] = zy_const_fp(fret, 1.0);
  if (got != c->width)
    return zy_error(ZY_ERR_BAD_CALL, c->fn, c->call,
                    "pass the N adjoints of the result (a struct of N "
                    "values, or N values), then the tape",
                    "enzyme_width %u needs %u return adjoints, the call "
                    "passes %u",
                    c->width, c->width, got);
  c->nargs += got;
  return 0;
}

/* The trailing values of a reverse call: the return adjoint (when the
 * return is active; 1.0 if not given; N of them with enzyme_width N),
 * then the tape, unless enzyme_tape names where it is. */
static int reverse_tail(ZyCall *c) {
  unsigned k = 0;
  LLVMTypeRef fret = fn_return(c);
  if (c->sig.active_ret && c->width > 1) {
    k = c->tape_ptr || !c->nextra ? c->nextra : c->nextra - 1;
    if (vector_return_adjoints(c, k))
      return -1;
  } else if (c->sig.active_ret) {
    LLVMValueRef d = k < c->nextra ? c->extra[k++] : zy_const_fp(fret, 1.0);
    LLVMValueRef v = zy_abi_convert(c->b, d, fret);
    if (!v) {
      char *have = zy_abi_type_str(LLVMTypeOf(d));
      char *want = zy_abi_type_str(fret);
      zy_error(ZY_ERR_BAD_CALL, c->fn, c->call,
               "pass the adjoint of the result, then the tape (or mark the "
               "return enzyme_const_return)",
               "the return adjoint has type %s but '%s' returns %s", have,
               LLVMGetValueName(c->fn), want);
      free(have);
      free(want);
      return -1;
    }
    c->args[c->nargs++] = v;
  }
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c->zm->ctx, 0);
  if (c->tape_ptr) {
    LLVMValueRef t = LLVMBuildLoad2(c->b, ptr, c->tape_ptr, "tape");
    LLVMSetAlignment(t, 1);
    c->args[c->nargs++] = t;
  } else if (k < c->nextra) {
    LLVMValueRef t = c->extra[k];
    unsigned op = c->extraop[k++];
    if (c->sig.inline_tape && !(t = inline_tape_arg(c, t, op)))
      return -1;
    unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
    if (!c->sig.inline_tape &&
        LLVMGetCallSiteEnumAttribute(c->call, op + 1, byval))
      t = LLVMGetUndef(LLVMGetTypeAttributeValue(
          LLVMGetCallSiteEnumAttribute(c->call, op + 1, byval)));
    if (LLVMTypeOf(t) != ptr) {
      char *have = zy_abi_type_str(LLVMTypeOf(t));
      zy_error(ZY_ERR_BAD_CALL, c->fn, c->call,
               "pass the pointer __enzyme_augmentfwd returned (a tape by "
               "value takes enzyme_allocated, N in both calls)",
               "the tape argument has type %s, not a pointer", have);
      free(have);
      return -1;
    }
    c->args[c->nargs++] = t;
  } else {
    return zy_error(ZY_ERR_BAD_CALL, c->fn, c->call,
                    "pass the tape __enzyme_augmentfwd returned as the last "
                    "argument, or enzyme_tape and a pointer to it",
                    "the tape is missing: '%s' needs it after the arguments "
                    "of '%s'%s",
                    entry(c), LLVMGetValueName(c->fn),
                    c->sig.active_ret ? " and the return adjoint" : "");
  }
  if (k < c->nextra)
    return zy_error(ZY_ERR_BAD_CALL, c->fn, c->call, NULL,
                    "too many arguments: '%s' takes %u, then %sthe tape",
                    LLVMGetValueName(c->fn), LLVMCountParams(c->fn),
                    c->sig.active_ret ? "the return adjoint and " : "");
  return 0;
}

static int lower_reverse(ZyCall *c) {
  LLVMValueRef aug, rev;
  if (prepare(c, 1, &aug, &rev) || reverse_tail(c))
    return -1;
  LLVMValueRef grads = LLVMBuildCall2(c->b, LLVMGlobalGetValueType(rev), rev,
                                      c->args, c->nargs, "");
  record(c, 1, grads);
  if (zy_abi_pack(c, grads, "gradient",
                  "declare a struct with one field per active argument, of "
                  "the argument's type, in argument order (or double for "
                  "one); with enzyme_width N, an array of N such values per "
                  "active argument"))
    return -1;
  LLVMInstructionEraseFromParent(c->call);
  return 0;
}

/* __enzyme_augmentsize((void*)f, markers...): the markers only, without
 * the arguments. */
static int lower_augmentsize(ZyCall *c) {
  unsigned n = LLVMGetNumArgOperands(c->call);
  for (unsigned k = c->first + 1; k < n; k++) {
    const char *mname = NULL;
    ZyMarker m = zy_abi_marker(LLVMGetOperand(c->call, k), &mname);
    if (m == ZY_MARK_WIDTH || m == ZY_MARK_DUPV || m == ZY_MARK_DUPNONEEDV) {
      k++; /* its N, or its stride */
      continue;
    }
    if (m == ZY_MARK_NONE)
      return zy_error(ZY_ERR_BAD_CALL, c->fn, c->call,
                      "pass the function and the markers of its arguments, "
                      "without the arguments",
                      "argument %u of '%s' is not a marker", k + 1 - c->first,
                      entry(c));
    if (m == ZY_MARK_OTHER || m == ZY_MARK_ALLOCATED || m == ZY_MARK_TAPE)
      return zy_error(ZY_ERR_BAD_MARKER, c->fn, c->call, NULL,
                      "marker '%s' is not supported by '%s'", mname, entry(c));
  }
  if (c->out || LLVMGetTypeKind(c->rt) != LLVMIntegerTypeKind)
    return zy_error(ZY_ERR_BAD_RETURN, c->fn, c->call,
                    "declare it as size_t __enzyme_augmentsize(void *, ...)",
                    "'%s' must return an integer", entry(c));
  LLVMReplaceAllUsesWith(c->call, LLVMConstInt(c->rt, tape_size(c), 0));
  LLVMInstructionEraseFromParent(c->call);
  return 0;
}

static int lower_with(ZyModule *zm, LLVMValueRef call, int (*lower)(ZyCall *)) {
  ZyCall c;
  int r = zy_abi_begin(&c, zm, call, 1);
  if (!r)
    r = lower(&c);
  zy_abi_end(&c);
  return r;
}

int zy_lower_augmentfwd_call(ZyModule *zm, LLVMValueRef call) {
  return lower_with(zm, call, lower_augmentfwd);
}

int zy_lower_reverse_call(ZyModule *zm, LLVMValueRef call) {
  return lower_with(zm, call, lower_reverse);
}

int zy_lower_augmentsize_call(ZyModule *zm, LLVMValueRef call) {
  return lower_with(zm, call, lower_augmentsize);
}
