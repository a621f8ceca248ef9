/* scopes.c - alias scopes that tell the optimizer the gradient's caches
 * (loop buffers, replay scratch and logs: heap blocks only the gradient's
 * own loads and stores reach) are apart from every other memory access.
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "cache.h"

#include <string.h>

/* A cache buffer is a heap block the gradient allocates and nothing else
 * reaches, but through a pointer in a slot, a phi or a realloc the
 * optimizer loses that: the vectorized reverse of LLSQ's inner loop
 * checked at run time, at every entry, that the log and the shadow of x
 * do not overlap.  So the accesses zy_cache_access marked get the scope
 * `zymase.cache` (!alias.scope) and every other load and store of the
 * gradient !noalias of it: sound, since no other access can reach a
 * cache, and kept when the gradient is split or inlined. */
void zy_cache_access(ZyGen *g, LLVMValueRef inst) {
  zy_map_put(&g->cache_mem, inst, inst);
}

static LLVMValueRef scope_list(LLVMContextRef c) {
  LLVMMetadataRef name = LLVMMDStringInContext2(c, "zymase.cache.domain", 19);
  LLVMMetadataRef domain = LLVMMDNodeInContext2(c, &name, 1);
  LLVMMetadataRef ops[2] = {LLVMMDStringInContext2(c, "zymase.cache", 12),
                            domain};
  LLVMMetadataRef scope = LLVMMDNodeInContext2(c, ops, 2);
  return LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, &scope, 1));
}

/* `list` added to the scope list of kind `kind` of `inst`. */
static void add_scopes(LLVMContextRef c, LLVMValueRef inst, unsigned kind,
                       LLVMValueRef list) {
  LLVMValueRef old = LLVMGetMetadata(inst, kind);
  if (!old) {
    LLVMSetMetadata(inst, kind, list);
    return;
  }
  unsigned n = LLVMGetMDNodeNumOperands(old);
  LLVMValueRef ops[n + 1];
  LLVMGetMDNodeOperands(old, ops);
  LLVMGetMDNodeOperands(list, &ops[n]);
  for (unsigned k = 0; k < n; k++)
    if (ops[k] == ops[n])
      return;
  LLVMMetadataRef md[n + 1];
  for (unsigned k = 0; k <= n; k++)
    md[k] = LLVMValueAsMetadata(ops[k]);
  LLVMSetMetadata(inst, kind,
                  LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, md, n + 1)));
}

/* Whether the scope list of kind `kind` of `inst` holds the scope of
 * `list` (an access of a cache copied from a gradient that is itself
 * differentiated: still an access of that cache). */
static int has_scope(LLVMValueRef inst, unsigned kind, LLVMValueRef list) {
  LLVMValueRef old = LLVMGetMetadata(inst, kind), scope;
  if (!old)
    return 0;
  unsigned n = LLVMGetMDNodeNumOperands(old);
  LLVMValueRef ops[n ? n : 1];
  LLVMGetMDNodeOperands(old, ops);
  LLVMGetMDNodeOperands(list, &scope);
  for (unsigned k = 0; k < n; k++)
    if (ops[k] == scope)
      return 1;
  return 0;
}

void zy_cache_scopes(ZyGen *g) {
  if (!g->cache_mem.order.len)
    return;
  LLVMContextRef c = g->zm->ctx;
  unsigned kscope = LLVMGetMDKindIDInContext(c, "alias.scope", 11);
  unsigned knoalias = LLVMGetMDKindIDInContext(c, "noalias", 7);
  LLVMValueRef list = scope_list(c);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->grad); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i)) {
      if (!LLVMIsALoadInst(i) && !LLVMIsAStoreInst(i))
        continue;
      if (zy_map_has(&g->cache_mem, i) || has_scope(i, kscope, list))
        add_scopes(c, i, kscope, list);
      else
        add_scopes(c, i, knoalias, list);
    }
}
