/* diag.c - formats user-facing errors and hands them to LLVM's diagnostic
 * machinery through the glue layer.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "diag.h"

#include "../llvm/glue.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_tag[ZY_ERR_COUNT] = {
    [ZY_ERR_BAD_CALL] = "bad-call",       [ZY_ERR_BAD_MARKER] = "bad-marker",
    [ZY_ERR_BAD_RETURN] = "bad-return",   [ZY_ERR_NO_RULE] = "no-rule",
    [ZY_ERR_UNSUPPORTED] = "unsupported", [ZY_ERR_BAD_REGISTRATION] = "bad-registration",
};

static int nerrors;

int zy_error_count(void) { return nerrors; }
void zy_error_reset(void) { nerrors = 0; }

/* `s` without the suffix of the copies the plugin keeps of the user's
 * functions (snapshot.c): they are the user's functions. */
static void strip_copies(char *s) {
  static const char suffix[] = ".zymase.src";
  for (char *p = strstr(s, suffix); p; p = strstr(p, suffix))
    memmove(p, p + sizeof suffix - 1, strlen(p + sizeof suffix - 1) + 1);
}

/* The instruction as LLVM prints it, on one line, without leading blanks
 * and without trailing metadata attachments. */
static char *inst_text(LLVMValueRef inst) {
  char *s = LLVMPrintValueToString(inst);
  char *p = s;
  while (*p == ' ')
    p++;
  char *out = strdup(p);
  LLVMDisposeMessage(s);
  char *meta = strstr(out, ", !");
  if (meta)
    *meta = 0;
  strip_copies(out);
  return out;
}

/* How the user knows function `fn`: its name (a copy the plugin keeps,
 * `f.zymase.src`, is f), or for the body clang outlines from an OpenMP
 * parallel region of f (f.omp_outlined...), "the OpenMP parallel region
 * in 'f'". */
static void function_name(LLVMValueRef fn, char *out, size_t size) {
  char own[400];
  snprintf(own, sizeof own, "%.399s", LLVMGetValueName(fn));
  strip_copies(own);
  const char *name = own;
  const char *cut = strstr(name, ".omp_outlined");
  if (cut && cut > name)
    snprintf(out, size, "the OpenMP parallel region in '%.*s'",
             (int)(cut - name), name);
  else
    snprintf(out, size, "'%s'", name);
}

static void report(ZyErr kind, LLVMValueRef fn, LLVMValueRef inst,
                   const char *hint, int warning, const char *what) {
  char msg[4096], name[512];
  size_t n = 0;
  if (fn) {
    function_name(fn, name, sizeof name);
    n += snprintf(msg + n, sizeof msg - n,
                  warning ? "[zymase:%s] %s: %s"
                          : "[zymase:%s] cannot differentiate %s: %s",
                  kind_tag[kind], name, what);
  }
  else
    n += snprintf(msg + n, sizeof msg - n, "[zymase:%s] %s", kind_tag[kind],
                  what);
  if (inst && LLVMIsAInstruction(inst)) {
    char *t = inst_text(inst);
    n += snprintf(msg + n, sizeof msg - n, "\n  instruction: %s", t);
    free(t);
  }
  if (hint && n < sizeof msg)
    snprintf(msg + n, sizeof msg - n, "\n  hint: %s", hint);
  zy_llvm_diagnose(fn, inst, msg, warning);
}

int zy_error(ZyErr kind, LLVMValueRef fn, LLVMValueRef inst, const char *hint,
             const char *fmt, ...) {
  char what[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  nerrors++;
  report(kind, fn, inst, hint, 0, what);
  return -1;
}

void zy_warning(ZyErr kind, LLVMValueRef fn, LLVMValueRef inst,
                const char *hint, const char *fmt, ...) {
  char what[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  report(kind, fn, inst, hint, 1, what);
}

void zy_assert_fail(const char *cond, const char *file, int line) {
  fprintf(stderr, "zymase: internal error: %s (%s:%d)\n", cond, file, line);
  abort();
}
