// compat.h - the only place that tests LLVM_VERSION_MAJOR.  Zymase builds
// unchanged against LLVM 19 and 22; each difference between them is one
// macro here.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#ifndef ZY_LLVM_COMPAT_H
#define ZY_LLVM_COMPAT_H

#include "llvm/Config/llvm-config.h"

#if LLVM_VERSION_MAJOR < 19
#error "Zymase needs LLVM 19 or newer"
#endif

// Since LLVM 20 the optimizer extension-point callbacks also receive the
// LTO phase.
#if LLVM_VERSION_MAJOR >= 20
#define ZY_EP_PHASE_PARAM , llvm::ThinOrFullLTOPhase
#else
#define ZY_EP_PHASE_PARAM
#endif

// GEPOperator::collectOffset takes a MapVector in LLVM 19 and a
// SmallMapVector in later versions: take the type from its signature.
#include "llvm/IR/Operator.h"
#include <type_traits>
template <typename T> struct ZyThirdParam;
template <typename R, typename C, typename A1, typename A2, typename A3,
          typename A4>
struct ZyThirdParam<R (C::*)(A1, A2, A3, A4) const> {
  using type = std::remove_reference_t<A3>;
};
using ZyGEPVarOffsets =
    ZyThirdParam<decltype(&llvm::GEPOperator::collectOffset)>::type;

// SCEVExpander takes the DataLayout in LLVM 19 and not in later versions.
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"
template <typename E = llvm::SCEVExpander>
E zyMakeExpander(llvm::ScalarEvolution &SE, const llvm::DataLayout &DL,
                 const char *Name) {
  if constexpr (std::is_constructible_v<E, llvm::ScalarEvolution &,
                                        const llvm::DataLayout &,
                                        const char *>)
    return E(SE, DL, Name);
  else
    return E(SE, Name);
}

// LLVM 22 moved PassPlugin.h from llvm/Passes to llvm/Plugins.
#if __has_include("llvm/Plugins/PassPlugin.h")
#include "llvm/Plugins/PassPlugin.h"
#else
#include "llvm/Passes/PassPlugin.h"
#endif

// GPU on CPU: the host's TargetMachine, and the module triple, take a
// Triple since LLVM 21 (a string before).
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
inline llvm::TargetMachine *zyCreateTargetMachine(const llvm::Target *T,
                                                  const std::string &TT) {
#if LLVM_VERSION_MAJOR >= 21
  return T->createTargetMachine(llvm::Triple(TT), "", "",
                                llvm::TargetOptions(), std::nullopt);
#else
  return T->createTargetMachine(TT, "", "", llvm::TargetOptions(),
                                std::nullopt);
#endif
}
inline const llvm::Target *zyLookupTarget(const std::string &TT,
                                          std::string &Err) {
#if LLVM_VERSION_MAJOR >= 21
  return llvm::TargetRegistry::lookupTarget(llvm::Triple(TT), Err);
#else
  return llvm::TargetRegistry::lookupTarget(TT, Err);
#endif
}
inline void zySetTargetTriple(llvm::Module &M, const std::string &TT) {
#if LLVM_VERSION_MAJOR >= 21
  M.setTargetTriple(llvm::Triple(TT));
#else
  M.setTargetTriple(TT);
#endif
}

#endif
