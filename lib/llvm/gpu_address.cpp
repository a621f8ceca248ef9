// gpu_address.cpp - classifies a device address by its scalar evolution:
// uniform, or injective in the grid's x thread number; the thread and
// block numbers and sizes are nvptx special registers or their amdgcn
// forms (work-item intrinsics, HIP's ockl calls, dispatch packet and
// implicit argument loads), each given its nvptx name.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "gpu_address.h"

#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

using namespace llvm;

namespace {
// amdgcn's forms of the x coordinates: `gsize.x` is ntid.x*nctaid.x and
// `gid.x` the grid's thread number, each one value.
struct AmdForm {
  const char *Fn, *Sreg;
};
const AmdForm Intrinsics[] = {{"llvm.amdgcn.workitem.id.x", "tid.x"},
                              {"llvm.amdgcn.workgroup.id.x", "ctaid.x"}};
// ockl's work-item functions, for dimension 0.
const AmdForm Ockl[] = {{"__ockl_get_local_id", "tid.x"},
                        {"__ockl_get_group_id", "ctaid.x"},
                        {"__ockl_get_local_size", "ntid.x"},
                        {"__ockl_get_enqueued_local_size", "ntid.x"},
                        {"__ockl_get_num_groups", "nctaid.x"},
                        {"__ockl_get_global_size", "gsize.x"},
                        {"__ockl_get_global_id", "gid.x"}};
// Loads from the HSA dispatch packet (workgroup_size_x: i16 at 4,
// grid_size_x: i32 at 12) and the code object v5 hidden arguments
// (block_count_x: i32 at 0, group_size_x: i16 at 12).
struct AmdField {
  const char *Base;
  int64_t Offset;
  unsigned Bits;
  const char *Sreg;
};
const AmdField Fields[] = {{"llvm.amdgcn.dispatch.ptr", 4, 16, "ntid.x"},
                           {"llvm.amdgcn.dispatch.ptr", 12, 32, "gsize.x"},
                           {"llvm.amdgcn.implicitarg.ptr", 0, 32, "nctaid.x"},
                           {"llvm.amdgcn.implicitarg.ptr", 12, 16, "ntid.x"}};

StringRef calleeName(const Value *V) {
  auto *CI = dyn_cast<CallInst>(V);
  Function *F = CI ? CI->getCalledFunction() : nullptr;
  return F ? F->getName() : "";
}

// The nvptx name of a coordinate value, "" if it is none.
StringRef coordinate(const Value *V) {
  StringRef N = calleeName(V);
  if (N.consume_front("llvm.nvvm.read.ptx.sreg."))
    return N;
  for (const AmdForm &F : Intrinsics)
    if (N == F.Fn)
      return F.Sreg;
  if (N.starts_with("__ockl_get_")) {
    auto *CI = cast<CallInst>(V);
    auto *C = CI->arg_size() == 1 ? dyn_cast<ConstantInt>(CI->getArgOperand(0))
                                  : nullptr;
    for (const AmdForm &F : Ockl)
      if (N == F.Fn && C && C->isZero())
        return F.Sreg;
    return "";
  }
  auto *L = dyn_cast<LoadInst>(V);
  if (!L || !L->getType()->isIntegerTy())
    return "";
  const DataLayout &DL = L->getModule()->getDataLayout();
  APInt Off(DL.getIndexTypeSizeInBits(L->getPointerOperandType()), 0);
  const Value *Base =
      L->getPointerOperand()->stripAndAccumulateConstantOffsets(DL, Off, true);
  for (const AmdField &F : Fields)
    if (calleeName(Base) == F.Base && Off == F.Offset &&
        L->getType()->getIntegerBitWidth() == F.Bits)
      return F.Sreg;
  return "";
}

// Classifies scalar evolutions by their dependence on the GPU thread.
struct GpuAddress {
  int (*Uniform)(LLVMValueRef, void *);
  void *Ctx;
  ScalarEvolution *SE;
  int Depth = 0;

  static const SCEV *strip(const SCEV *S) {
    while (auto *C = dyn_cast<SCEVCastExpr>(S)) {
      if (isa<SCEVTruncateExpr>(C))
        break;
      S = C->getOperand(0);
    }
    return S;
  }
  // The coordinate `S` is (through extensions, and through a truncation
  // to 32 bits or more of ockl's 64-bit results, which are below 2^32).
  static StringRef sreg(const SCEV *S) {
    S = strip(S);
    bool Trunc = false;
    if (auto *T = dyn_cast<SCEVTruncateExpr>(S)) {
      if (T->getType()->getScalarSizeInBits() < 32)
        return "";
      S = strip(T->getOperand());
      Trunc = true;
    }
    auto *U = dyn_cast<SCEVUnknown>(S);
    if (!U)
      return "";
    if (Trunc && !calleeName(U->getValue()).starts_with("__ockl_get_"))
      return "";
    return coordinate(U->getValue());
  }
  bool uniform(const SCEV *S) {
    if (isa<SCEVConstant>(S))
      return true;
    if (auto *U = dyn_cast<SCEVUnknown>(S))
      return Uniform(wrap(U->getValue()), Ctx);
    if (auto *C = dyn_cast<SCEVCastExpr>(S))
      return uniform(C->getOperand(0));
    if (isa<SCEVNAryExpr>(S) && !isa<SCEVAddRecExpr>(S)) {
      for (const SCEV *Op : cast<SCEVNAryExpr>(S)->operands())
        if (!uniform(Op))
          return false;
      return true;
    }
    if (auto *D = dyn_cast<SCEVUDivExpr>(S))
      return uniform(D->getLHS()) && uniform(D->getRHS());
    return false;
  }
  // A product of a constant and coordinates: its factor `K` and which
  // product (1 tid.x, 2 ntid.x*ctaid.x, 3 ntid.x*nctaid.x).
  static int product(const SCEV *S, int64_t &K) {
    SmallVector<const SCEV *, 4> Work{S}, Regs;
    K = 1;
    while (!Work.empty()) {
      const SCEV *T = strip(Work.pop_back_val());
      if (auto *M = dyn_cast<SCEVMulExpr>(T)) {
        for (const SCEV *Op : M->operands())
          Work.push_back(Op);
      } else if (auto *C = dyn_cast<SCEVConstant>(T)) {
        if (C->getAPInt().getSignificantBits() > 32)
          return 0;
        K *= C->getAPInt().getSExtValue();
      } else if (!sreg(T).empty()) {
        Regs.push_back(T);
      } else {
        return 0;
      }
    }
    if (K == 0)
      return 0;
    std::vector<std::string> N;
    for (const SCEV *R : Regs)
      N.push_back(sreg(R).str());
    std::sort(N.begin(), N.end());
    if (N == std::vector<std::string>{"tid.x"})
      return 1;
    if (N == std::vector<std::string>{"ctaid.x", "ntid.x"})
      return 2;
    if (N == std::vector<std::string>{"nctaid.x", "ntid.x"} ||
        N == std::vector<std::string>{"gsize.x"})
      return 3;
    return 0;
  }
  // A grid-stride loop's phi that scalar evolution leaves unknown because
  // its step is computed in the loop (HIP's ockl calls are convergent and
  // never hoisted): [start, phi + step] with start a grid address of
  // factor c and step c*ntid.x*nctaid.x; its c, else 0.
  int64_t stride(PHINode *Phi) {
    if (!Phi || Phi->getNumIncomingValues() != 2 || Depth > 4)
      return 0;
    for (unsigned K = 0; K < 2; K++) {
      auto *Add = dyn_cast<BinaryOperator>(Phi->getIncomingValue(K));
      if (!Add || Add->getOpcode() != Instruction::Add)
        continue;
      Value *Step = Add->getOperand(0) == Phi   ? Add->getOperand(1)
                    : Add->getOperand(1) == Phi ? Add->getOperand(0)
                                                : nullptr;
      if (!Step)
        continue;
      Depth++;
      int64_t C = grid(SE->getSCEV(Phi->getIncomingValue(1 - K))), F;
      Depth--;
      if (C && product(SE->getSCEV(Step), F) == 3 && F == C)
        return C;
    }
    return 0;
  }
  // The factor c when S is injective in the grid's x thread number as
  // u + c*(ctaid.x*ntid.x + tid.x), with thread numbers below
  // ntid.x*nctaid.x; 0 otherwise.
  int64_t grid(const SCEV *S) {
    S = strip(S);
    if (sreg(S) == "gid.x")
      return 1;
    if (auto *U = dyn_cast<SCEVUnknown>(S))
      return stride(dyn_cast<PHINode>(U->getValue()));
    if (auto *M = dyn_cast<SCEVMulExpr>(S)) {
      if (M->getNumOperands() != 2 || !isa<SCEVConstant>(M->getOperand(0)))
        return 0;
      const APInt &K = cast<SCEVConstant>(M->getOperand(0))->getAPInt();
      int64_t C = grid(M->getOperand(1));
      return K.getSignificantBits() <= 32 ? C * K.getSExtValue() : 0;
    }
    if (auto *A = dyn_cast<SCEVAddExpr>(S)) {
      int64_t Tid = 0, Blk = 0, Inner = 0, K;
      for (const SCEV *Op : A->operands()) {
        if (uniform(Op))
          continue;
        int P = product(Op, K);
        int64_t G;
        if (P == 1 && !Tid)
          Tid = K;
        else if (P == 2 && !Blk)
          Blk = K;
        else if (!P && !Inner && (G = grid(Op)))
          Inner = G;
        else
          return 0;
      }
      if (Inner)
        return !Tid && !Blk ? Inner : 0;
      return Tid && Tid == Blk ? Tid : 0;
    }
    if (auto *R = dyn_cast<SCEVAddRecExpr>(S)) {
      int64_t C = R->isAffine() ? grid(R->getStart()) : 0, K;
      return C && product(R->getStepRecurrence(*SE), K) == 3 && K == C ? C : 0;
    }
    return 0;
  }
};
} // namespace

int zyGpuAddress(ScalarEvolution &SE, Value *P,
                 int (*Uniform)(LLVMValueRef, void *), void *Ctx) {
  if (!SE.isSCEVable(P->getType()))
    return 0;
  GpuAddress G{Uniform, Ctx, &SE};
  const SCEV *S = SE.getSCEV(P);
  if (G.uniform(S))
    return 1;
  return G.grid(S) ? 2 : 0;
}
