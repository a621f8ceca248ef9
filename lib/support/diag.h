/* diag.h - user-facing errors and internal assertions.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef ZY_SUPPORT_DIAG_H
#define ZY_SUPPORT_DIAG_H

#include <llvm-c/Core.h>

/* Kinds of user-facing failure.  The kind's tag is printed in the message
 * ("[zymase:no-rule]") so tests can match it. */
typedef enum ZyErr {
  ZY_ERR_BAD_CALL,      /* malformed __enzyme_autodiff call            */
  ZY_ERR_BAD_MARKER,    /* marker without argument, unknown marker     */
  ZY_ERR_BAD_RETURN,    /* declared return type cannot hold gradients  */
  ZY_ERR_NO_RULE,       /* call to a function we cannot differentiate  */
  ZY_ERR_UNSUPPORTED,   /* instruction or construct not supported      */
  ZY_ERR_BAD_REGISTRATION, /* malformed or unknown __enzyme_* global,
                              enzyme_* annotation, custom gradient that
                              does not fit its function              */
  ZY_ERR_COUNT
} ZyErr;

/* Reports an error about differentiating `fn` (the user's function; NULL
 * when the error is not about one) at `inst` (may be NULL).  The message
 * names the function and the instruction, and carries file:line:col when
 * `inst` has debug info, else the location of `fn`.  `hint` may be NULL.
 * Always returns -1, so callers can write `return zy_error(...)`. */
int zy_error(ZyErr kind, LLVMValueRef fn, LLVMValueRef inst, const char *hint,
             const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* The same as a warning: the compilation goes on.  The message reads
 * "[zymase:<kind>] '<fn>': <what>". */
void zy_warning(ZyErr kind, LLVMValueRef fn, LLVMValueRef inst,
                const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Number of errors reported since the last zy_error_reset(). */
int zy_error_count(void);
void zy_error_reset(void);

/* Internal invariant; a failure is a Zymase bug, reported as such. */
#define ZY_ASSERT(c)                                                           \
  ((c) ? (void)0 : zy_assert_fail(#c, __FILE__, __LINE__))
_Noreturn void zy_assert_fail(const char *cond, const char *file, int line);

#endif
