// glue.cpp - LLVM facilities the C API lacks, exposed as extern "C"
// functions for the C engine (see glue.h).  No AD logic lives here.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "glue.h"
#include "compat.h"

#include "llvm/ADT/SCCIterator.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/CallPromotionUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <numeric>

using namespace llvm;

extern "C" void zy_llvm_diagnose(LLVMValueRef fn, LLVMValueRef inst,
                                 const char *msg) {
  Instruction *I = inst ? dyn_cast<Instruction>(unwrap(inst)) : nullptr;
  // The user's function rather than a clone of it: clang locates it in
  // the source even without debug info.
  Function *F = fn ? unwrap<Function>(fn) : I->getFunction();
  DiagnosticLocation Loc;
  if (I && I->getDebugLoc() && I->getDebugLoc().getLine())
    Loc = DiagnosticLocation(I->getDebugLoc());
  else if (F->getSubprogram())
    Loc = DiagnosticLocation(F->getSubprogram());
  F->getContext().diagnose(DiagnosticInfoUnsupported(*F, msg, Loc));
}

extern "C" LLVMValueRef zy_llvm_clone_function(LLVMValueRef fn,
                                               const char *name) {
  Function *F = unwrap<Function>(fn);
  ValueToValueMapTy VMap;
  Function *C = CloneFunction(F, VMap);
  C->setName(name);
  C->setLinkage(GlobalValue::InternalLinkage);
  C->setVisibility(GlobalValue::DefaultVisibility);
  C->setDSOLocal(true);
  return wrap(C);
}

extern "C" void zy_llvm_simplify_function(LLVMValueRef fn, int level) {
  Function &F = *unwrap<Function>(fn);
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PassBuilder PB;
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  OptimizationLevel L = level <= 1   ? OptimizationLevel::O1
                        : level == 2 ? OptimizationLevel::O2
                                     : OptimizationLevel::O3;
  FunctionPassManager FPM =
      PB.buildFunctionSimplificationPipeline(L, ThinOrFullLTOPhase::None);
  FPM.run(F, FAM);
}

extern "C" int zy_llvm_verify_function(LLVMValueRef fn) {
  return verifyFunction(*unwrap<Function>(fn), &errs()) ? 1 : 0;
}

struct ZyDomTree {
  DominatorTree DT;
};

extern "C" ZyDomTree *zy_llvm_domtree_new(LLVMValueRef fn) {
  auto *T = new ZyDomTree;
  T->DT.recalculate(*unwrap<Function>(fn));
  return T;
}

extern "C" int zy_llvm_domtree_dominates(ZyDomTree *T, LLVMBasicBlockRef a,
                                         LLVMBasicBlockRef b) {
  return T->DT.dominates(unwrap(a), unwrap(b));
}

extern "C" void zy_llvm_domtree_free(ZyDomTree *T) { delete T; }

extern "C" LLVMBasicBlockRef zy_llvm_find_cycle(LLVMValueRef fn) {
  Function *F = unwrap<Function>(fn);
  for (auto I = scc_begin(F); !I.isAtEnd(); ++I)
    if (I.hasCycle())
      return wrap((*I).front());
  return nullptr;
}

extern "C" int zy_llvm_gep_offset(LLVMModuleRef m, LLVMValueRef gep,
                                  long long *constant,
                                  long long *stride) {
  auto *G = dyn_cast<GEPOperator>(unwrap(gep));
  if (!G)
    return 0;
  const DataLayout &DL = unwrap(m)->getDataLayout();
  unsigned BW = DL.getIndexTypeSizeInBits(G->getType());
  ZyGEPVarOffsets Vars;
  APInt Const(BW, 0);
  if (!G->collectOffset(DL, BW, Vars, Const))
    return 0;
  uint64_t S = 0;
  for (auto &KV : Vars)
    S = std::gcd(S, KV.second.abs().getZExtValue());
  *constant = Const.getSExtValue();
  *stride = (long long)S;
  return 1;
}

extern "C" int zy_llvm_promote_call(LLVMValueRef call, LLVMValueRef fn,
                                    int conditional) {
  auto *CB = cast<CallBase>(unwrap(call));
  auto *F = unwrap<Function>(fn);
  if (!isLegalToPromote(*CB, F))
    return 0;
  if (conditional)
    promoteCallWithIfThenElse(*CB, F);
  else
    promoteCall(*CB, F);
  return 1;
}

extern "C" void zy_llvm_replace_uses_in(LLVMValueRef old, LLVMValueRef repl,
                                        LLVMValueRef fn) {
  Function *F = unwrap<Function>(fn);
  unwrap(old)->replaceUsesWithIf(unwrap(repl), [F](Use &U) {
    auto *I = dyn_cast<Instruction>(U.getUser());
    return I && I->getFunction() == F;
  });
}

extern "C" int zy_llvm_call_reads_only(LLVMValueRef call) {
  auto *CB = dyn_cast<CallBase>(unwrap(call));
  return CB && CB->onlyReadsMemory();
}
