/* mpi_calls.c - recognition of MPI calls by name (MPI_*, PMPI_*) through
 * the table in mpi.def.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "mpi_calls.h"

#include <string.h>

static const ZyMpiRow rows[] = {
#define ZY_MPI(name, kind, args, adjoint) {#name, ZY_MPI_##kind, args, adjoint},
#include "mpi.def"
#undef ZY_MPI
};
enum { NROWS = sizeof rows / sizeof rows[0] };
static const ZyMpiRow refused = {"?", ZY_MPI_REFUSED, "", "refused"};

const char *zy_mpi_name(LLVMValueRef callee, int *pmpi) {
  if (!callee || !LLVMIsAFunction(callee) || !LLVMIsDeclaration(callee))
    return NULL;
  const char *s = LLVMGetValueName(callee);
  int p = !strncmp(s, "PMPI_", 5);
  if (pmpi)
    *pmpi = p;
  if (p)
    return s + 5;
  return !strncmp(s, "MPI_", 4) ? s + 4 : NULL;
}

const ZyMpiRow *zy_mpi_row(LLVMValueRef callee) {
  const char *s = zy_mpi_name(callee, NULL);
  if (!s)
    return NULL;
  for (unsigned k = 0; k < NROWS; k++)
    if (!strcmp(rows[k].name, s))
      return &rows[k];
  return &refused;
}

int zy_mpi_inactive_function(LLVMValueRef callee) {
  const ZyMpiRow *r = zy_mpi_row(callee);
  return r && r->kind == ZY_MPI_INACTIVE;
}

int zy_mpi_helper(LLVMValueRef callee) {
  return callee && LLVMIsAFunction(callee) &&
         !strncmp(LLVMGetValueName(callee), "__zymase_mpi.", 13);
}

int zy_mpi_handled(LLVMValueRef callee) {
  const ZyMpiRow *r = zy_mpi_row(callee);
  return r && r->kind != ZY_MPI_INACTIVE;
}
