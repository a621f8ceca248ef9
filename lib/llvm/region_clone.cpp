// region_clone.cpp - a region of a function (the blocks between a block
// and the merge it dominates: branches, inner loops) copied into a
// function of its own that returns the value of a phi at the merge, so
// that the reverse sweep can compute that value again with a call
// (region.c).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "glue.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

using namespace llvm;

// Intrinsics that compute nothing (debug info, lifetimes, assumptions,
// scope declarations): a region may contain them, its copy leaves them out.
static bool ignorable(const Instruction *I) {
  return isa<DbgInfoIntrinsic>(I) || isa<LifetimeIntrinsic>(I) ||
         isa<AssumeInst>(I) || isa<NoAliasScopeDeclInst>(I) ||
         isa<PseudoProbeInst>(I);
}

extern "C" int zy_llvm_ignorable_intrinsic(LLVMValueRef inst) {
  auto *I = dyn_cast<Instruction>(unwrap(inst));
  return I && ignorable(I);
}

extern "C" LLVMValueRef
zy_llvm_region_helper(LLVMValueRef phi, LLVMBasicBlockRef entry,
                      LLVMBasicBlockRef *blocks, unsigned nblocks,
                      LLVMValueRef *liveins, unsigned nlive, const char *name) {
  auto *PN = cast<PHINode>(unwrap(phi));
  Module *M = PN->getModule();
  LLVMContext &C = M->getContext();
  SmallVector<Type *, 16> Params;
  for (unsigned k = 0; k < nlive; k++)
    Params.push_back(unwrap(liveins[k])->getType());
  auto *F = Function::Create(FunctionType::get(PN->getType(), Params, false),
                             GlobalValue::InternalLinkage, name, M);
  F->addFnAttr(Attribute::AlwaysInline);
  F->addFnAttr(Attribute::NoUnwind);
  ValueToValueMapTy VM;
  for (unsigned k = 0; k < nlive; k++)
    VM[unwrap(liveins[k])] = F->getArg(k);
  BasicBlock *E = unwrap(entry);
  auto *NewEntry = BasicBlock::Create(C, "entry", F);
  VM[E] = NewEntry;
  SmallVector<BasicBlock *, 32> Clones;
  for (unsigned k = 0; k < nblocks; k++) {
    BasicBlock *B = unwrap(blocks[k]);
    auto *NB = BasicBlock::Create(C, B->getName(), F);
    VM[B] = NB;
    Clones.push_back(NB);
  }
  auto *Exit = BasicBlock::Create(C, "merge", F);
  VM[PN->getParent()] = Exit;
  // Instructions (the entry's terminator only), then their operands.
  SmallVector<Instruction *, 128> New;
  auto copy = [&](Instruction &I, BasicBlock *To) {
    if (ignorable(&I))
      return;
    Instruction *NI = I.clone();
    NI->setDebugLoc(DebugLoc());
    NI->setMetadata(LLVMContext::MD_loop, nullptr);
    NI->setMetadata(LLVMContext::MD_alias_scope, nullptr);
    NI->setMetadata(LLVMContext::MD_noalias, nullptr);
    if (I.hasName())
      NI->setName(I.getName());
    NI->insertInto(To, To->end());
    VM[&I] = NI;
    New.push_back(NI);
  };
  copy(*E->getTerminator(), NewEntry);
  for (unsigned k = 0; k < nblocks; k++)
    for (Instruction &I : *unwrap(blocks[k]))
      copy(I, Clones[k]);
  for (Instruction *I : New)
    RemapInstruction(I, VM, RF_IgnoreMissingLocals | RF_NoModuleLevelChanges);
  IRBuilder<> B(Exit);
  PHINode *R = B.CreatePHI(PN->getType(), PN->getNumIncomingValues());
  for (unsigned k = 0; k < PN->getNumIncomingValues(); k++) {
    auto It = VM.find(PN->getIncomingBlock(k));
    if (It == VM.end())
      continue;
    Value *V = PN->getIncomingValue(k);
    auto Vt = VM.find(V);
    R->addIncoming(Vt != VM.end() ? (Value *)Vt->second : V,
                   cast<BasicBlock>(It->second));
  }
  B.CreateRet(R);
  return wrap(F);
}
