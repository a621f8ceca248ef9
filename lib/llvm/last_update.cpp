// last_update.cpp - a rewrite of the pre-AD copy: a loop's running
// maximum (or minimum, or any value replaced when a condition holds:
// m = x[i] > m ? x[i] : m), whose final value only is used, becomes the
// replacing value computed again after the loop at the iteration of the
// last replacement, whose number the loop records.  The running value is
// then only compared, so it carries no derivative and the reverse sweep
// caches no condition per iteration: the derivative goes to x at that
// iteration alone (as Enzyme does for LSE's maximum).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "analyses.h"
#include "compat.h"
#include "glue.h"
#include "loop_values.h"

#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace {

// A header phi M = phi [Init, preheader], [Sel, latch] with Sel = select
// (C, V, M) (or select(C, M, V): replaced when C is false).
struct Update {
  PHINode *M;
  SelectInst *Sel;
  bool WhenTrue;
  ZyLoopValue Value;
};

// Whether the users of `V` are `Other`, compares, or (with `Outside`)
// instructions outside loop L.
bool used_only_by(Value *V, Value *Other, Loop *L, bool Outside) {
  for (User *U : V->users()) {
    auto *I = dyn_cast<Instruction>(U);
    if (!I || !(U == Other || isa<CmpInst>(I) || (Outside && !L->contains(I))))
      return false;
  }
  return true;
}

} // namespace

extern "C" int zy_llvm_last_updates(LLVMValueRef fn) {
  Function &F = *unwrap<Function>(fn);
  ZyAnalyses A;
  FunctionAnalysisManager &FAM = A.FAM;
  auto &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
  auto &LI = FAM.getResult<LoopAnalysis>(F);
  auto &DT = FAM.getResult<DominatorTreeAnalysis>(F);
  auto &AA = FAM.getResult<AAManager>(F);
  SmallVector<Instruction *, 32> Writers;
  for (Instruction &I : instructions(F))
    if (I.mayWriteToMemory())
      Writers.push_back(&I);
  SmallVector<std::pair<Loop *, Update>, 4> Found;
  for (Loop *L : LI.getLoopsInPreorder()) {
    BasicBlock *Pre = L->getLoopPredecessor(), *Latch = L->getLoopLatch();
    BasicBlock *Exit = L->getExitBlock();
    if (!Pre || !Latch || L->getExitingBlock() != Latch || !Exit ||
        !zyIterationNumber(SE, L))
      continue;
    // The replacing value's loads read memory nothing in L writes.
    auto Unchanged = [&, L](LoadInst *Ld) {
      MemoryLocation Loc =
          MemoryLocation::getBeforeOrAfter(Ld->getPointerOperand());
      for (Instruction *W : Writers)
        if (L->contains(W) && isModSet(AA.getModRefInfo(W, Loc)))
          return false;
      return true;
    };
    for (PHINode &M : L->getHeader()->phis()) {
      auto *Sel = dyn_cast<SelectInst>(M.getIncomingValueForBlock(Latch));
      if (!M.getType()->isFloatingPointTy() || M.getNumIncomingValues() != 2 ||
          !Sel || !L->contains(Sel) ||
          (Sel->getTrueValue() != &M) == (Sel->getFalseValue() != &M))
        continue;
      bool WhenTrue = Sel->getFalseValue() == &M;
      Value *V = WhenTrue ? Sel->getTrueValue() : Sel->getFalseValue();
      if (!used_only_by(&M, Sel, L, false) || !used_only_by(Sel, &M, L, true))
        continue;
      Update U{&M, Sel, WhenTrue, ZyLoopValue{SE, DT, Unchanged, {}}};
      if (U.Value.collect(V, L, Latch->getTerminator()))
        Found.push_back({L, std::move(U)});
    }
  }
  SCEVExpander Exp =
      zyMakeExpander(SE, F.getParent()->getDataLayout(), "zymase.last");
  Type *I64 = Type::getInt64Ty(F.getContext());
  int n = 0;
  for (auto &[L, U] : Found) {
    const SCEV *K = zyIterationNumber(SE, L);
    if (K->getType()->getIntegerBitWidth() > 64)
      continue;
    BasicBlock *Header = L->getHeader(), *Latch = L->getLoopLatch();
    // In the loop: the number of the iteration that last replaced M.
    PHINode *Last = PHINode::Create(I64, 2, "zymase.last");
    Last->insertBefore(Header->begin());
    Value *Iter = Exp.expandCodeFor(SE.getZeroExtendExpr(K, I64), I64,
                                    &*Header->getFirstInsertionPt());
    IRBuilder<> B(U.Sel->getNextNode());
    Value *Next =
        B.CreateSelect(U.Sel->getCondition(), U.WhenTrue ? Iter : Last,
                       U.WhenTrue ? Last : Iter, "zymase.last.next");
    Last->addIncoming(ConstantInt::getSigned(I64, -1), L->getLoopPredecessor());
    Last->addIncoming(Next, L->getLoopLatch());
    // After it, on the exit edge: V at that iteration (at the first one
    // when none did, a value the loop computed, so that nothing faults),
    // or M's start.
    // The number leaves the loop through a phi, so that the reverse sweep
    // keeps it once, not per iteration.
    BasicBlock *Mid = SplitEdge(Latch, L->getExitBlock(), &DT, &LI);
    Mid->getTerminator()->setMetadata(LLVMContext::MD_loop, nullptr);
    PHINode *Out = PHINode::Create(I64, 1, "zymase.last.out");
    Out->insertBefore(Mid->begin());
    Out->addIncoming(Next, Latch);
    Instruction *At = &*Mid->getFirstInsertionPt();
    IRBuilder<> E(At);
    Value *Did = E.CreateICmpNE(Out, ConstantInt::getSigned(I64, -1));
    Value *KAt = E.CreateSelect(Did, Out, ConstantInt::get(I64, 0));
    Value *VK = U.Value.emit(U.WhenTrue ? U.Sel->getTrueValue()
                                        : U.Sel->getFalseValue(),
                             SE.getUnknown(KAt), At, Exp);
    if (!VK) { // (nothing but the counter was built: it stays unused)
      continue;
    }
    Value *R = E.CreateSelect(
        Did, VK, U.M->getIncomingValueForBlock(L->getLoopPredecessor()),
        "zymase.last.value");
    SmallVector<Use *, 4> Outside;
    for (Use &Us : U.Sel->uses())
      if (!L->contains(cast<Instruction>(Us.getUser())))
        Outside.push_back(&Us);
    for (Use *Us : Outside) {
      auto *P = dyn_cast<PHINode>(Us->getUser());
      if (P && P->getParent() == Mid) { // (one incoming value: R itself)
        P->replaceAllUsesWith(R);
        P->eraseFromParent();
      } else { // (the exit's phis: their value from Mid)
        Us->set(R);
      }
    }
    ++n;
  }
  Exp.clear();
  FAM.clear();
  return n;
}
