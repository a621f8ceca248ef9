// snapshot_clone.cpp - the copy of a function that snapshot.c keeps before
// the optimizer runs, made so that it changes nothing the optimizer
// concludes about the program: every function with a body and every global
// variable it names (declared or defined) is named through a stand-in (see
// zy_llvm_snapshot_clone in glue.h).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "glue.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

using namespace llvm;

namespace {

// Names that stay: LLVM's own globals and Enzyme's interface (markers and
// entry points, which the pass reads in the copies too, nested AD).
bool keeps(StringRef N) {
  return N.starts_with("llvm.") || N.starts_with("enzyme_") ||
         N.contains("__enzyme_");
}

struct StandIns : ValueMaterializer {
  Module &M;
  Function *Self;
  ValueToValueMapTy &VM;
  LLVMValueRef (*FnStandIn)(LLVMValueRef, void *);
  void *Ctx;

  StandIns(Module &M, Function *Self, ValueToValueMapTy &VM,
           LLVMValueRef (*F)(LLVMValueRef, void *), void *Ctx)
      : M(M), Self(Self), VM(VM), FnStandIn(F), Ctx(Ctx) {}

  Value *materialize(Value *V) override {
    if (auto *F = dyn_cast<Function>(V)) {
      if (F == Self || F->isIntrinsic() || keeps(F->getName()))
        return nullptr;
      return unwrap(FnStandIn(wrap(F), Ctx));
    }
    auto *GV = dyn_cast<GlobalVariable>(V);
    if (!GV || keeps(GV->getName()))
      return nullptr;
    std::string Name = (GV->getName() + ".zymase.ref").str();
    if (GlobalVariable *Old = M.getGlobalVariable(Name, true))
      return Old;
    // Internal, with the original's initializer (its globals named through
    // stand-ins in turn), so that it can stand for a global the optimizer
    // folds away; never a constant, which the optimizer would read.
    auto *S = new GlobalVariable(
        M, GV->getValueType(), false, GlobalValue::InternalLinkage, nullptr,
        Name, nullptr, GV->getThreadLocalMode(), GV->getAddressSpace());
    S->setAlignment(GV->getAlign());
    VM[GV] = S; // before the initializer, which may name GV
    S->setInitializer(
        GV->hasInitializer()
            ? MapValue(GV->getInitializer(), VM, RF_None, nullptr, this)
            : UndefValue::get(GV->getValueType()));
    // Taken, so that no interprocedural pass reasons about it (a global
    // only read, made a constant; only written, deleted) in the copy.
    appendToCompilerUsed(M, {S});
    return S;
  }
};

} // namespace

extern "C" LLVMValueRef
zy_llvm_snapshot_clone(LLVMValueRef fn, const char *name,
                       LLVMValueRef (*fn_standin)(LLVMValueRef, void *),
                       void *ctx) {
  Function *F = unwrap<Function>(fn);
  Module &M = *F->getParent();
  Function *C =
      Function::Create(F->getFunctionType(), GlobalValue::InternalLinkage,
                       F->getAddressSpace(), name, &M);
  ValueToValueMapTy VM;
  auto CA = C->arg_begin();
  for (Argument &A : F->args()) {
    CA->setName(A.getName());
    VM[&A] = &*CA++;
  }
  StandIns Mat(M, F, VM, fn_standin, ctx);
  SmallVector<ReturnInst *, 8> Returns;
  CloneFunctionInto(C, F, VM, CloneFunctionChangeType::GlobalChanges, Returns,
                    "", nullptr, nullptr, &Mat);
  C->setLinkage(GlobalValue::InternalLinkage);
  C->setVisibility(GlobalValue::DefaultVisibility);
  C->setDSOLocal(true);
  return wrap(C);
}
