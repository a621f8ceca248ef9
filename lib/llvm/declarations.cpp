// declarations.cpp - the attributes of a module's function declarations,
// kept while the pass works and put back after it: the pre-AD pipeline's
// instcombine infers library attributes on the declarations it meets
// (malloc, calloc), which would change how the program's own calls of
// them are compiled at -O0.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "glue.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"

#include <string>
#include <utility>
#include <vector>

using namespace llvm;

struct ZyDeclAttrs {
  Module *M;
  std::vector<std::pair<std::string, AttributeList>> Saved;
};

extern "C" ZyDeclAttrs *zy_llvm_decl_attrs_save(LLVMModuleRef m) {
  auto *D = new ZyDeclAttrs{unwrap(m), {}};
  for (Function &F : *D->M)
    if (F.isDeclaration() && !F.isIntrinsic())
      D->Saved.emplace_back(F.getName().str(), F.getAttributes());
  return D;
}

extern "C" void zy_llvm_decl_attrs_restore(ZyDeclAttrs *d) {
  for (auto &[Name, Attrs] : d->Saved)
    if (Function *F = d->M->getFunction(Name))
      if (F->isDeclaration())
        F->setAttributes(Attrs);
  delete d;
}
