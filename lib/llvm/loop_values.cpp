// loop_values.cpp - a value of one iteration of a loop computed again
// elsewhere (loop_values.h).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "loop_values.h"

#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

const SCEV *zyIterationNumber(ScalarEvolution &SE, Loop *L) {
  for (PHINode &PN : L->getHeader()->phis()) {
    auto *R = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(&PN));
    if (!PN.getType()->isIntegerTy() || !R || R->getLoop() != L ||
        !R->isAffine())
      continue;
    auto *C = dyn_cast<SCEVConstant>(R->getStepRecurrence(SE));
    if (!C || !(C->getAPInt().isOne() || C->getAPInt().isAllOnes()))
      continue;
    const SCEV *K = SE.getMinusSCEV(SE.getUnknown(&PN), R->getStart());
    return C->getAPInt().isOne() ? K : SE.getNegativeSCEV(K);
  }
  return nullptr;
}

bool ZyLoopValue::collect(Value *V, Loop *L, Instruction *At) {
  auto *I = dyn_cast<Instruction>(V);
  if (!I)
    return isa<Constant>(V) || isa<Argument>(V);
  if (!L->contains(I))
    return DT.dominates(I, At);
  if (is_contained(Nodes, I))
    return true;
  if (Nodes.size() >= MaxNodes)
    return false;
  if (auto *PN = dyn_cast<PHINode>(I)) {
    auto *R = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(PN));
    if (PN->getParent() != L->getHeader() || !R || R->getLoop() != L ||
        !R->isAffine() || !SE.isLoopInvariant(R->getStart(), L) ||
        !SE.isLoopInvariant(R->getStepRecurrence(SE), L))
      return false;
    Nodes.push_back(I);
    return true;
  }
  if (auto *Ld = dyn_cast<LoadInst>(I)) {
    if (!Ld->isSimple() || !Unchanged(Ld))
      return false;
  } else if (auto *CB = dyn_cast<IntrinsicInst>(I)) {
    // Arithmetic intrinsics (fmuladd, fabs, ...); not math library
    // calls, which would be computed once more.
    if (!CB->doesNotAccessMemory() || !CB->willReturn() ||
        CB->mayHaveSideEffects())
      return false;
  } else if (!isa<BinaryOperator>(I) && !isa<CastInst>(I) &&
             !isa<GetElementPtrInst>(I) && !isa<UnaryOperator>(I) &&
             !isa<CmpInst>(I) && !isa<SelectInst>(I)) {
    return false;
  }
  for (Value *Op : I->operands())
    if (!isa<BasicBlock>(Op) && !isa<Function>(Op) && !collect(Op, L, At))
      return false;
  Nodes.push_back(I);
  return true;
}

// Whether S can be expanded before At: built from values that dominate
// it, without recurrences (whose expansion adds phis).
// (SCEVExpander::isSafeToExpandAt refuses a phi of At's own block.)
static bool expandable(SCEVExpander &Exp, DominatorTree &DT, const SCEV *S,
                       Instruction *At) {
  return Exp.isSafeToExpand(S) && !SCEVExprContains(S, [&](const SCEV *X) {
           if (isa<SCEVAddRecExpr>(X))
             return true;
           auto *U = dyn_cast<SCEVUnknown>(X);
           auto *I = U ? dyn_cast<Instruction>(U->getValue()) : nullptr;
           return I && !DT.dominates(I, At);
         });
}

Value *ZyLoopValue::emit(Value *V, const SCEV *K, Instruction *At,
                         SCEVExpander &Exp) {
  DenseMap<Value *, const SCEV *> Phis;
  for (Instruction *I : Nodes) {
    if (!isa<PHINode>(I))
      continue;
    auto *R = cast<SCEVAddRecExpr>(SE.getSCEV(I));
    if (!K)
      return nullptr;
    const SCEV *S =
        R->evaluateAtIteration(SE.getTruncateOrZeroExtend(K, R->getType()), SE);
    if (!expandable(Exp, DT, S, At))
      return nullptr;
    Phis[I] = S;
  }
  DenseMap<Value *, Value *> Map;
  for (Instruction *I : Nodes) {
    if (auto It = Phis.find(I); It != Phis.end()) {
      Map[I] = Exp.expandCodeFor(It->second, I->getType(), At);
      continue;
    }
    Instruction *C = I->clone();
    C->dropUnknownNonDebugMetadata({LLVMContext::MD_tbaa});
    for (Use &U : C->operands())
      if (auto M = Map.find(U.get()); M != Map.end())
        U.set(M->second);
    C->insertBefore(At->getIterator());
    C->setName(I->getName() + ".again");
    Map[I] = C;
  }
  auto M = Map.find(V);
  return M != Map.end() ? M->second : V;
}
