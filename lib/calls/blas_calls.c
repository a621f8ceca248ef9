/* blas_calls.c - recognition of the CBLAS and Fortran names of the
 * routines in blas.def.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "blas_calls.h"

#include <string.h>

static const ZyBlasRoutine routines[] = {
#define ZY_BLAS(name, args, returns, adjoint, tangent) {#name, args, returns},
#include "blas.def"
#undef ZY_BLAS
};
enum { NROUTINES = sizeof routines / sizeof routines[0] };

static const ZyBlasRoutine *by_name(const char *s, size_t len) {
  for (unsigned k = 0; k < NROUTINES; k++)
    if (strlen(routines[k].name) == len && !strncmp(routines[k].name, s, len))
      return &routines[k];
  return NULL;
}

const ZyBlasRoutine *zy_blas_routine(LLVMValueRef callee, int *fortran,
                                     int *single) {
  if (!callee || !LLVMIsAFunction(callee) || !LLVMIsDeclaration(callee))
    return NULL; /* a body of the user's: differentiated as it is */
  size_t len;
  const char *s = LLVMGetValueName2(callee, &len);
  int f = 1;
  if (len > 7 && !strncmp(s, "cblas_", 6))
    s += 6, len -= 6, f = 0;
  else if (len > 2 && s[len - 1] == '_')
    len--;
  else
    return NULL;
  if (s[0] != 'd' && s[0] != 's')
    return NULL;
  const ZyBlasRoutine *r = by_name(s + 1, len - 1);
  if (r && fortran)
    *fortran = f;
  if (r && single)
    *single = s[0] == 's';
  return r;
}

const ZyBlasRoutine *zy_blas_routine_named(const char *name) {
  return by_name(name, strlen(name));
}

unsigned zy_blas_routine_index(const ZyBlasRoutine *r) {
  return (unsigned)(r - routines);
}

int zy_blas_like(LLVMValueRef callee) {
  return callee && LLVMIsAFunction(callee) && LLVMIsDeclaration(callee) &&
         !strncmp(LLVMGetValueName(callee), "cblas_", 6);
}
