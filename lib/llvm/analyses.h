// analyses.h - LLVM's pass builder and analysis managers, registered and
// cross-wired as the glue layer needs them to run an analysis or a pass
// on one function or module (the default alias-analysis pipeline
// included).  Members in the order that destroys them safely.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef ZY_LLVM_ANALYSES_H
#define ZY_LLVM_ANALYSES_H

#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Passes/PassBuilder.h"

struct ZyAnalyses {
  llvm::PassBuilder PB;
  llvm::LoopAnalysisManager LAM;
  llvm::FunctionAnalysisManager FAM;
  llvm::CGSCCAnalysisManager CGAM;
  llvm::ModuleAnalysisManager MAM;

  ZyAnalyses() {
    FAM.registerPass([this] { return PB.buildDefaultAAPipeline(); });
    PB.registerModuleAnalyses(MAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerLoopAnalyses(LAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  }
  ZyAnalyses(const ZyAnalyses &) = delete;
  ZyAnalyses &operator=(const ZyAnalyses &) = delete;
};

#endif
