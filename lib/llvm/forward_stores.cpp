// forward_stores.cpp - a rewrite of the pre-AD copy: a load of a scratch
// array that one earlier loop filled element by element (xc[i] = x[i] -
// mu[i], then later loops read xc[i]) is replaced by the stored value,
// computed again from what it was computed from, so that the reverse sweep
// computes it again instead of caching every reading loop's loads.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "analyses.h"
#include "compat.h"
#include "glue.h"
#include "loop_values.h"

#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/Passes/PassBuilder.h"

#include <optional>

using namespace llvm;

namespace {

struct Forwarder {
  Function &F;
  ScalarEvolution &SE;
  LoopInfo &LI;
  DominatorTree &DT;
  AAResults &AA;
  SmallVector<Instruction *, 32> Writers; // everything that may write memory

  // One load to replace: the store that wrote what it reads, and the
  // stored value's instructions in the storing loop.
  struct Plan {
    LoadInst *L;
    StoreInst *S;
    ZyLoopValue Value;
  };

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
  // `To` that does not pass through block `Fence` (anywhere without From).
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

  // The store whose value `L` reads: the one store of an earlier loop SL
  // beside L's loop T (same parent loop, SL's header dominating T's) that
  // writes every element L may read, one per iteration, in the same
  // order, with nothing else writing the array between SL and L.  The
  // stored value is built from loads of memory nothing in the function
  // writes.
  std::optional<Plan> plan(LoadInst *L) {
    Loop *T = LI.getLoopFor(L->getParent());
    if (!T || !L->isSimple())
      return std::nullopt;
    Value *Ptr = L->getPointerOperand();
    const SCEV *Start = elementwise(Ptr, L->getType(), T);
    const SCEV *TripT = SE.getSymbolicMaxBackedgeTakenCount(T);
    if (!Start || isa<SCEVCouldNotCompute>(TripT))
      return std::nullopt;
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
      Plan P{L, S,
             ZyLoopValue{SE,
                         DT,
                         [this](LoadInst *Ld) {
                           return !writtenBetween(Ld->getPointerOperand(),
                                                  nullptr, nullptr, nullptr,
                                                  nullptr);
                         },
                         {}}};
      if (!P.Value.collect(S->getValueOperand(), SL, header_point(T)))
        return std::nullopt;
      return P;
    }
    return std::nullopt;
  }

  // Where the stored value is computed again: at the start of the reading
  // loop's iteration, which every iteration runs, so that the reverse
  // sweep builds it once per iteration (share.c) even where the load was
  // in a branch; the loads it makes read what SL's iteration of the same
  // number read.
  static Instruction *header_point(Loop *T) {
    return &*T->getHeader()->getFirstInsertionPt();
  }

  // Replaces P.L by the stored value computed again: SL's iteration that
  // wrote the element is T's iteration reading it.
  bool apply(Plan &P, SCEVExpander &Exp) {
    Loop *T = LI.getLoopFor(P.L->getParent());
    Value *V = P.Value.emit(P.S->getValueOperand(), zyIterationNumber(SE, T),
                            header_point(T), Exp);
    if (!V)
      return false;
    SE.forgetValue(P.L);
    P.L->replaceAllUsesWith(V);
    P.L->eraseFromParent();
    return true;
  }
};

} // namespace

extern "C" int zy_llvm_forward_stores(LLVMValueRef fn) {
  Function &F = *unwrap<Function>(fn);
  ZyAnalyses A;
  FunctionAnalysisManager &FAM = A.FAM;
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
  for (LoadInst *L : Loads)
    if (auto P = Fw.plan(L))
      Plans.push_back(std::move(*P));
  SCEVExpander Exp =
      zyMakeExpander(Fw.SE, F.getParent()->getDataLayout(), "zymase.fwd");
  int n = 0;
  for (Forwarder::Plan &P : Plans)
    n += Fw.apply(P, Exp);
  Exp.clear();
  FAM.clear();
  return n;
}
