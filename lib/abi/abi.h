/* abi.h - Enzyme's user interface, which Zymase shares: the module pass
 * that finds the __enzyme_* entry points and lowers the calls to them
 * (reading the function, markers and arguments of a call, packing the
 * gradients into the return type the user declared).
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_ABI_ABI_H
#define ZY_ABI_ABI_H

#include "ad/ad.h"

/* The enzyme_* markers.  The first group sets an argument's activity; the
 * others are split-mode options that take no argument of the function
 * (enzyme_allocated and enzyme_tape take a value of their own). */
typedef enum ZyMarker {
  ZY_MARK_NONE,
  ZY_MARK_CONST,
  ZY_MARK_OUT,
  ZY_MARK_DUP,
  ZY_MARK_DUPNONEED,
  ZY_MARK_DUPV,          /* enzyme_dupv, stride: a pointer whose `width`
                            shadows lie `stride` bytes apart from the one
                            given (vector mode)                          */
  ZY_MARK_DUPNONEEDV,    /* the same for enzyme_dupnoneed                 */
  ZY_MARK_WIDTH,         /* enzyme_width, N: N directions (vector mode)   */
  ZY_MARK_VECTOR,        /* (__enzyme_batch) N values, one per lane       */
  ZY_MARK_SCALAR,        /* (__enzyme_batch) one value for all lanes      */
  ZY_MARK_ALLOCATED,     /* enzyme_allocated, N: the tape buffer's size  */
  ZY_MARK_TAPE,          /* enzyme_tape, p: the tape lives at *p         */
  ZY_MARK_NOFREE,        /* the reverse does not free the tape           */
  ZY_MARK_NORET,         /* the primal result is not returned            */
  ZY_MARK_PRIMAL_RETURN, /* (refused in split mode, as by Enzyme)        */
  ZY_MARK_CONST_RETURN,
  ZY_MARK_ACTIVE_RETURN,
  ZY_MARK_DUP_RETURN,
  ZY_MARK_OTHER
} ZyMarker;

/* The most shadows and tangents one call passes (all lanes). */
#define ZY_ABI_MAX_SHADOWS 1024

/* One call to an entry point being lowered. */
typedef struct ZyCall {
  ZyModule *zm;
  LLVMValueRef call, fn, caller;
  LLVMBuilderRef b; /* positioned before the call                     */
  LLVMValueRef out; /* the sret buffer of the declared result, or NULL */
  LLVMTypeRef rt;   /* the declared result type                        */
  unsigned first;   /* operand index of the function                   */
  int split;        /* split-mode markers and trailing values allowed  */
  int fwd;          /* __enzyme_fwddiff: a float's tangent follows it  */
  ZySig sig;
  unsigned width; /* enzyme_width's N (1 without): each tangent and
                     shadow comes N times, lane by lane                */
  LLVMValueRef args[64 + ZY_ABI_MAX_SHADOWS + 64 + 3]; /* primal arguments,
                             then shadows, then return adjoints, then more */
  unsigned argop[64];      /* operand index of each primal argument      */
  LLVMValueRef shadows[ZY_ABI_MAX_SHADOWS]; /* per argument, its `width`
                                               lanes in order           */
  unsigned nargs, nshadows;
  LLVMValueRef extra[68]; /* (split) values after the last parameter:
                             the return adjoint(s), the tape             */
  unsigned extraop[68];   /* ... and their operand indices               */
  unsigned nextra;
  /* Split-mode options. */
  long long allocated;   /* enzyme_allocated's size, -1 if not given    */
  unsigned long long tape_bytes, tape_align; /* an inline tape's layout */
  LLVMValueRef tape_ptr; /* enzyme_tape's pointer, or NULL              */
  const char *ret_name;  /* the return marker's name, for errors       */
  int nofree, noret, primal_return;
  ZyMarker ret_kind; /* ZY_MARK_{CONST,ACTIVE,DUP}_RETURN or NONE   */
} ZyCall;

/* Prepares `c` for `call`: builder, declared result (sret or not), the
 * function to differentiate (defined here, not variadic).  0, or -1
 * after reporting an error.  zy_abi_end disposes of the builder. */
int zy_abi_begin(ZyCall *c, ZyModule *zm, LLVMValueRef call, int split);
void zy_abi_end(ZyCall *c);

/* The name of a function as Enzyme's interface reads it: `name`, or
 * where `name` is a C++ mangled global function named __enzyme_*, the
 * part from its identifier on (`__enzyme_autodiffPvz`). */
const char *zy_abi_entry_name(const char *name);

/* The function an entry-point call names (its first argument after any
 * sret buffer), or NULL. */
LLVMValueRef zy_abi_target(LLVMValueRef call);

/* Which marker `a` is (the global enzyme_<kind> or a load from it);
 * `*name` gets the global's name. */
ZyMarker zy_abi_marker(LLVMValueRef a, const char **name);

/* Reads the markers and arguments after the function into c->args,
 * c->shadows and c->sig (and, when c->split, the split options and the
 * trailing values).  0, or -1 after reporting an error. */
int zy_abi_read_arguments(ZyCall *c);

/* Converts a variadic argument to the parameter type `want` (C promotes
 * float to double and small integers to int); NULL if it cannot. */
LLVMValueRef zy_abi_convert(LLVMBuilderRef b, LLVMValueRef a, LLVMTypeRef want);

/* Seeds for the function's type analysis from what the caller's code
 * says about the arguments; free with zy_abi_free_seeds. */
ZyTT *zy_abi_seeds(ZyCall *c);
void zy_abi_free_seeds(ZyCall *c, ZyTT *seeds);
/* Frees what zy_abi_seeds kept for the module (end of the pass). */
void zy_abi_seeds_release(ZyModule *zm);

/* Stores the literal struct `v` (fields at their natural C offsets) into
 * the declared result: c->out, or a value replacing the call.  A single
 * floating-point field fits a scalar floating-point result.  `noun` names
 * a field in errors ("gradient", "result"), `hint` says what to declare.
 * 0, or -1 after reporting an error. */
int zy_abi_pack(ZyCall *c, LLVMValueRef v, const char *noun, const char *hint);

/* The same after `pbytes` raw bytes copied from `prefix` (an inline
 * tape): those fill the first `pbytes` bytes of the declared result, and
 * the fields of `v` follow as in a C struct { char bytes[pbytes]; ... }.
 * The declared type is not checked at the raw bytes. */
int zy_abi_pack_after(ZyCall *c, LLVMValueRef prefix, unsigned long long pbytes,
                      LLVMValueRef v, const char *noun, const char *hint);

/* `t` as LLVM writes it, named structs by name only; free() it. */
char *zy_abi_type_str(LLVMTypeRef t);

/* Replaces one call to an __enzyme_autodiff* function by a call to the
 * generated gradient.  Returns 0, or -1 after reporting an error (the
 * call is then left in place). */
int zy_lower_autodiff_call(ZyModule *zm, LLVMValueRef call);

/* Whether `name` is a marker global Zymase implements (enzyme_const,
 * enzyme_dup, ...). */
int zy_abi_marker_known(const char *name);

/* Forward mode: __enzyme_fwddiff* (fwddiff.c).  Same contract. */
int zy_lower_fwddiff_call(ZyModule *zm, LLVMValueRef call);

/* Batch mode: __enzyme_batch* (batch.c), fn run for N lanes.  Same
 * contract. */
int zy_lower_batch_call(ZyModule *zm, LLVMValueRef call);

/* -zymase-check-fwd (fwdcheck.c): before the gradient call of `c`, the
 * tangent of the function along a fixed direction (NULL when the call is
 * not checked); after it, the run-time check of dot(gradient, direction)
 * against that tangent. */
LLVMValueRef zy_fwdcheck_begin(ZyCall *c);
void zy_fwdcheck_end(ZyCall *c, LLVMValueRef tangent, LLVMValueRef grads);

/* Split mode: __enzyme_augmentfwd* (the forward pass, returning the tape),
 * __enzyme_reverse* (the reverse pass, taking it) and
 * __enzyme_augmentsize* (the tape's size in bytes).  Same contract. */
int zy_lower_augmentfwd_call(ZyModule *zm, LLVMValueRef call);
int zy_lower_reverse_call(ZyModule *zm, LLVMValueRef call);
int zy_lower_augmentsize_call(ZyModule *zm, LLVMValueRef call);

/* Once every call is lowered: a function's tape is only readable by the
 * reverse pass of the same activity, so each __enzyme_reverse of a
 * function whose __enzyme_augmentfwd calls are in this module must match
 * one of them.  Reports an error per mismatch; frees the records. */
int zy_check_split_pairs(ZyModule *zm);

#endif
