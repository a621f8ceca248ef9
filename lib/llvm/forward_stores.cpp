// forward_stores.cpp - a rewrite of the pre-AD copy: a load of a scratch
// array that one earlier loop filled element by element (xc[i] = x[i] -
// mu[i], then later loops read xc[i]) is replaced by the stored value,
// computed again from what it was computed from, so that the reverse sweep
// computes it again instead of caching every reading loop's loads.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "compat.h"
#include "glue.h"

#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

using namespace llvm;

namespace {

enum { MaxNodes = 24 };

struct Forwarder {
  Function &F;
  ScalarEvolution &SE;
  LoopInfo &LI;
  DominatorTree &DT;
  AAResults &AA;
  SmallVector<Instruction *, 32> Writers; // everything that may write memory

  // One load to replace: the store that wrote what it reads, the stored
  // value's instructions in the storing loop (operands first).
  struct Plan {
    LoadInst *L;
    StoreInst *S;
    SmallVector<Instruction *, MaxNodes> Nodes;
  };

  // A header phi {c,+,1} (or {c,+,-1}) of L: its iteration number.
  const SCEV *iterationNumber(Loop *L) {
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

  // An affine pointer {B,+,size of Ty}<L>: its start B, else null.
  const SCEV *elementwise(Value *P, Type *Ty, Loop *L) {
    auto *R = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(P));
    if (!R || R->getLoop() != L || !R->isAffine() ||
        !SE.isLoopInvariant(R->getStart(), L))
      return nullptr;
    auto *C = dyn_cast<SCEVConstant>(R->getStepRecurrence(SE));
    uint64_t Size = F.getParent()->getDataLayout().getTypeStoreSize(Ty);
    if (!C || C->getAPInt() != Size)
      return nullptr;
    return R->getStart();
  }

  // Whether anything in the function may write the memory `P` points
  // into (at any offset), other than `Except`, on a path from `From` to
  // `To` that does not pass through block `Fence`.
  bool writtenBetween(Value *P, Instruction *Except, BasicBlock *Fence,
                      Instruction *From, Instruction *To) {
    MemoryLocation Loc = MemoryLocation::getBeforeOrAfter(P);
    SmallPtrSet<BasicBlock *, 1> Excl;
    if (Fence)
      Excl.insert(Fence);
    for (Instruction *W : Writers) {
      if (W == Except || !isModSet(AA.getModRefInfo(W, Loc)))
        continue;
      if (!From || (isPotentiallyReachable(From, W, &Excl, &DT, &LI) &&
                    isPotentiallyReachable(W, To, &Excl, &DT, &LI)))
        return true;
    }
    return false;
  }

  // Collects, operands first, the instructions of the stored value `V`
  // inside loop SL that computing it again at `At` needs; values from
  // outside SL must dominate `At`.  Loads must read memory nothing in the
  // function writes; phis must be affine header phis of SL.
  bool collect(Value *V, Loop *SL, Instruction *At, Plan &P) {
    auto *I = dyn_cast<Instruction>(V);
    if (!I)
      return isa<Constant>(V) || isa<Argument>(V);
    if (!SL->contains(I))
      return DT.dominates(I, At);
    if (is_contained(P.Nodes, I))
      return true;
    if (P.Nodes.size() >= MaxNodes)
      return false;
    if (auto *PN = dyn_cast<PHINode>(I)) {
      auto *R = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(PN));
      if (PN->getParent() != SL->getHeader() || !R || R->getLoop() != SL ||
          !R->isAffine())
        return false;
      P.Nodes.push_back(I);
      return true;
    }
    if (auto *Ld = dyn_cast<LoadInst>(I)) {
      if (!Ld->isSimple() || writtenBetween(Ld->getPointerOperand(), nullptr,
                                            nullptr, nullptr, nullptr))
        return false;
    } else if (auto *CB = dyn_cast<IntrinsicInst>(I)) {
      // Arithmetic intrinsics (fmuladd, fabs, ...); not math library
      // calls, which each reading loop would compute again.
      if (!CB->doesNotAccessMemory() || !CB->willReturn() ||
          CB->mayHaveSideEffects())
        return false;
    } else if (!isa<BinaryOperator>(I) && !isa<CastInst>(I) &&
               !isa<GetElementPtrInst>(I) && !isa<UnaryOperator>(I) &&
               !isa<CmpInst>(I) && !isa<SelectInst>(I)) {
      return false;
    }
    for (Value *Op : I->operands())
      if (!isa<BasicBlock>(Op) && !isa<Function>(Op) && !collect(Op, SL, At, P))
        return false;
    P.Nodes.push_back(I);
    return true;
  }

  // The store whose value `L` reads: the one store of an earlier loop SL
  // beside L's loop T (same parent loop, SL's header dominating T's) that
  // writes every element L may read, one per iteration, in the same
  // order, with nothing else writing the array between SL and L.
  bool plan(LoadInst *L, Plan &P) {
    Loop *T = LI.getLoopFor(L->getParent());
    if (!T || !L->isSimple())
      return false;
    Value *Ptr = L->getPointerOperand();
    const SCEV *Start = elementwise(Ptr, L->getType(), T);
    const SCEV *TripT = SE.getSymbolicMaxBackedgeTakenCount(T);
    if (!Start || isa<SCEVCouldNotCompute>(TripT))
      return false;
    Value *Obj = getUnderlyingObject(Ptr);
    MemoryLocation Loc = MemoryLocation::getBeforeOrAfter(Obj);
    for (Instruction *W : Writers) {
      auto *S = dyn_cast<StoreInst>(W);
      if (!S || !S->isSimple() ||
          S->getValueOperand()->getType() != L->getType() ||
          !isModSet(AA.getModRefInfo(S, Loc)))
        continue;
      Loop *SL = LI.getLoopFor(S->getParent());
      if (!SL || SL == T || SL->getParentLoop() != T->getParentLoop() ||
          !SL->getLoopLatch() || SL->getExitingBlock() != SL->getLoopLatch() ||
          !SL->getExitBlock() ||
          !DT.dominates(SL->getHeader(), T->getHeader()) ||
          !DT.dominates(S->getParent(), SL->getLoopLatch()) ||
          elementwise(S->getPointerOperand(), L->getType(), SL) != Start)
        continue;
      const SCEV *TripS = SE.getBackedgeTakenCount(SL);
      if (isa<SCEVCouldNotCompute>(TripS))
        continue;
      Type *I64 = Type::getInt64Ty(F.getContext());
      if (TripS->getType()->getIntegerBitWidth() > 64 ||
          TripT->getType()->getIntegerBitWidth() > 64 ||
          !SE.isKnownPredicate(ICmpInst::ICMP_ULE,
                               SE.getZeroExtendExpr(TripT, I64),
                               SE.getZeroExtendExpr(TripS, I64)))
        continue;
      bool Other = false;
      for (Instruction *W2 : Writers)
        Other |=
            W2 != S && SL->contains(W2) && isModSet(AA.getModRefInfo(W2, Loc));
      if (Other || writtenBetween(Obj, S, SL->getHeader(),
                                  &*SL->getExitBlock()->begin(), L))
        continue;
      P = Plan{L, S, {}};
      return collect(S->getValueOperand(), SL, L, P);
    }
    return false;
  }

  // Whether `S` can be expanded before `At`: built from values that
  // dominate it, without recurrences (whose expansion adds phis).
  // (SCEVExpander::isSafeToExpandAt refuses a phi of At's own block.)
  bool expandableAt(SCEVExpander &Exp, const SCEV *S, Instruction *At) {
    return Exp.isSafeToExpand(S) && !SCEVExprContains(S, [&](const SCEV *X) {
             if (isa<SCEVAddRecExpr>(X))
               return true;
             auto *U = dyn_cast<SCEVUnknown>(X);
             auto *I = U ? dyn_cast<Instruction>(U->getValue()) : nullptr;
             return I && !DT.dominates(I, At);
           });
  }

  // Replaces P.L by the stored value computed again before it.
  bool apply(Plan &P, SCEVExpander &Exp) {
    Loop *T = LI.getLoopFor(P.L->getParent());
    const SCEV *K = iterationNumber(T);
    DenseMap<Value *, const SCEV *> Phis;
    for (Instruction *I : P.Nodes) {
      if (!isa<PHINode>(I))
        continue;
      auto *R = cast<SCEVAddRecExpr>(SE.getSCEV(I));
      if (!K)
        return false;
      const SCEV *At = R->evaluateAtIteration(
          SE.getTruncateOrZeroExtend(K, R->getType()), SE);
      if (!expandableAt(Exp, At, P.L))
        return false;
      Phis[I] = At;
    }
    DenseMap<Value *, Value *> Map;
    for (Instruction *I : P.Nodes) {
      if (auto It = Phis.find(I); It != Phis.end()) {
        Map[I] = Exp.expandCodeFor(It->second, I->getType(), P.L);
        continue;
      }
      Instruction *C = I->clone();
      C->dropUnknownNonDebugMetadata({LLVMContext::MD_tbaa});
      for (Use &U : C->operands())
        if (auto M = Map.find(U.get()); M != Map.end())
          U.set(M->second);
      C->insertBefore(P.L->getIterator());
      C->setName(I->getName() + ".fwd");
      Map[I] = C;
    }
    Value *V = P.S->getValueOperand();
    if (auto M = Map.find(V); M != Map.end())
      V = M->second;
    SE.forgetValue(P.L);
    P.L->replaceAllUsesWith(V);
    P.L->eraseFromParent();
    return true;
  }
};

} // namespace

extern "C" int zy_llvm_forward_stores(LLVMValueRef fn) {
  Function &F = *unwrap<Function>(fn);
  PassBuilder PB;
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  FAM.registerPass([&] { return PB.buildDefaultAAPipeline(); });
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  Forwarder Fw{F,
               FAM.getResult<ScalarEvolutionAnalysis>(F),
               FAM.getResult<LoopAnalysis>(F),
               FAM.getResult<DominatorTreeAnalysis>(F),
               FAM.getResult<AAManager>(F),
               {}};
  SmallVector<LoadInst *, 16> Loads;
  for (Instruction &I : instructions(F)) {
    if (I.mayWriteToMemory())
      Fw.Writers.push_back(&I);
    if (auto *L = dyn_cast<LoadInst>(&I); L && Fw.LI.getLoopFor(L->getParent()))
      Loads.push_back(L);
  }
  SmallVector<Forwarder::Plan, 4> Plans;
  for (LoadInst *L : Loads) {
    Forwarder::Plan P;
    if (Fw.plan(L, P))
      Plans.push_back(std::move(P));
  }
  SCEVExpander Exp =
      zyMakeExpander(Fw.SE, F.getParent()->getDataLayout(), "zymase.fwd");
  int n = 0;
  for (Forwarder::Plan &P : Plans)
    n += Fw.apply(P, Exp);
  Exp.clear();
  FAM.clear();
  return n;
}
