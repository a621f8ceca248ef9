// loop_values.h - a value of one iteration of a loop computed again
// elsewhere, for another iteration number: what the pre-AD rewrites
// forward_stores.cpp and last_update.cpp build on.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef ZY_LLVM_LOOP_VALUES_H
#define ZY_LLVM_LOOP_VALUES_H

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

#include <functional>

// The iteration number of loop L (0 for the first) as a scalar evolution
// of one of its header phis {c,+,1} or {c,+,-1}, or null.
const llvm::SCEV *zyIterationNumber(llvm::ScalarEvolution &SE, llvm::Loop *L);

// Value V of an iteration of loop L, computed again before instruction At
// (outside L, or in another loop) for the iteration numbered K: V is
// built from constants, arguments, values from outside L that dominate
// At, L's affine header phis (evaluated at K), arithmetic, compares,
// selects, GEPs, casts, arithmetic intrinsics, and loads that `Unchanged`
// says read the same memory there as in L.
struct ZyLoopValue {
  enum { MaxNodes = 24 };
  llvm::ScalarEvolution &SE;
  llvm::DominatorTree &DT;
  std::function<bool(llvm::LoadInst *)> Unchanged;
  // The instructions of L that computing V again clones (operands first).
  llvm::SmallVector<llvm::Instruction *, MaxNodes> Nodes;

  // Collects the instructions V needs; false when V cannot be built so.
  bool collect(llvm::Value *V, llvm::Loop *L, llvm::Instruction *At);
  // V (collected first) for iteration K (a scalar evolution of values
  // that dominate At) built before At, or null when an induction variable
  // cannot be expanded there (then nothing was built).
  llvm::Value *emit(llvm::Value *V, const llvm::SCEV *K, llvm::Instruction *At,
                    llvm::SCEVExpander &Exp);
};

#endif
