/* activity_print.c - the printer pass print<zymase-activity>: each value
 * of a function as active, shadowed or constant, for lit tests.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "activity.h"

#include "registry.h"

#include "llvm/glue.h"

#include <llvm-c/Core.h>
#include <stdlib.h>
#include <string.h>

typedef struct Buf {
  char *s;
  size_t len, cap;
} Buf;

static void put(Buf *b, const char *s) {
  size_t n = strlen(s);
  if (b->len + n + 1 > b->cap) {
    b->cap = 2 * (b->len + n + 1);
    b->s = realloc(b->s, b->cap);
  }
  memcpy(b->s + b->len, s, n + 1);
  b->len += n;
}

static void put_value(Buf *b, const ZyActivity *a, LLVMValueRef v) {
  put(b, zy_activity_active(a, v)     ? "  active    "
         : zy_activity_shadowed(a, v) ? "  shadowed  "
                                      : "  constant  ");
  char *s = LLVMPrintValueToString(v);
  char *p = s;
  while (*p == ' ')
    p++;
  char *meta = strstr(p, ", !");
  if (meta)
    *meta = 0;
  put(b, p);
  put(b, "\n");
  LLVMDisposeMessage(s);
}

/* The printer differentiates with respect to every differentiable argument
 * and the return value, with pointer arguments shadowed, as
 * __enzyme_autodiff does by default. */
void zy_print_activity(LLVMValueRef fn, char **out) {
  unsigned long long mask = 0, dups = 0;
  unsigned n = LLVMCountParams(fn);
  for (unsigned i = 0; i < n && i < 64; i++) {
    LLVMValueRef p = LLVMGetParam(fn, i);
    if (zy_type_differentiable(LLVMTypeOf(p)))
      mask |= 1ull << i;
    if (LLVMGetTypeKind(LLVMTypeOf(p)) == LLVMPointerTypeKind)
      dups |= 1ull << i;
  }
  LLVMTypeRef ret = LLVMGetReturnType(LLVMGlobalGetValueType(fn));
  zy_registry_scan(LLVMGetGlobalParent(fn));
  ZyActivity *a =
      zy_activity_compute(fn, mask, dups, zy_type_differentiable(ret));

  Buf b = {0};
  put(&b, "activity of '");
  put(&b, LLVMGetValueName(fn));
  put(&b, "':\n");
  for (unsigned i = 0; i < n; i++)
    put_value(&b, a, LLVMGetParam(fn, i));
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMGetTypeKind(LLVMTypeOf(i)) != LLVMVoidTypeKind)
        put_value(&b, a, i);
  zy_activity_free(a);
  *out = b.s;
}
