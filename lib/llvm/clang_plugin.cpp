// clang_plugin.cpp - ClangZymase-NN.so, the clang plugin (clang
// -fplugin=ClangZymase-NN.so): teaches clang Enzyme's attributes, which
// become annotations the pass reads (lib/analysis/registry.c), and runs
// the pass itself by loading Zymase-NN.so from the same folder, unless
// the command line already loads it with -fpass-plugin.  It holds no AD
// code: the engine stays in Zymase-NN.so, which opt loads too.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "clang/AST/ASTConsumer.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/Basic/CodeGenOptions.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "clang/Sema/ParsedAttr.h"
#include "clang/Sema/Sema.h"
#include "clang/Sema/SemaDiagnostic.h"
#include "llvm/Passes/PassBuilder.h"
#include "compat.h" // PassPlugin.h
#include "llvm/Support/Path.h"

#include <dlfcn.h>
#include <memory>
#include <string>

using namespace clang;

namespace {

// One attribute of Enzyme's: its spellings become the annotation
// "enzyme_<name>" (with "=<argument>" when it takes a string).  The pass
// implements enzyme_inactive and enzyme_function_like and reports the
// others as errors, located at the declaration.
struct EnzymeAttr : public ParsedAttrInfo {
  const char *name; // "inactive"
  bool takes_string, on_globals;
  std::string gnu, scoped;
  Spelling spellings[4];

  EnzymeAttr(const char *n, bool str, bool globals)
      : name(n), takes_string(str), on_globals(globals),
        gnu(std::string("enzyme_") + n), scoped(std::string("enzyme::") + n) {
    OptArgs = str ? 1 : 0;
    spellings[0] = {ParsedAttr::AS_GNU, gnu.c_str()};
    spellings[1] = {ParsedAttr::AS_C23, gnu.c_str()};
    spellings[2] = {ParsedAttr::AS_CXX11, gnu.c_str()};
    spellings[3] = {ParsedAttr::AS_CXX11, scoped.c_str()};
    Spellings = spellings;
  }

  bool diagAppertainsToDecl(Sema &S, const ParsedAttr &A,
                            const Decl *D) const override {
    if (isa<FunctionDecl>(D))
      return true;
    if (auto *V = dyn_cast<VarDecl>(D); V && on_globals && V->hasGlobalStorage())
      return true;
    unsigned ID = S.getDiagnostics().getCustomDiagID(
        DiagnosticsEngine::Error, "'%0' applies to %1 only");
    S.Diag(A.getLoc(), ID) << gnu
                           << (on_globals ? "functions and global variables"
                                          : "functions");
    return false;
  }

  AttrHandling handleDeclAttribute(Sema &S, Decl *D,
                                   const ParsedAttr &A) const override {
    std::string note = gnu;
    if (takes_string) {
      auto *L = A.getNumArgs() == 1
                    ? dyn_cast<StringLiteral>(
                          A.getArgAsExpr(0)->IgnoreParenCasts())
                    : nullptr;
      if (!L) {
        unsigned ID = S.getDiagnostics().getCustomDiagID(
            DiagnosticsEngine::Error,
            "'%0' takes one string literal: the name of a math function");
        S.Diag(A.getLoc(), ID) << gnu;
        return AttributeNotApplied;
      }
      note += "=" + L->getString().str();
    } else if (A.getNumArgs() != 0) {
      unsigned ID = S.getDiagnostics().getCustomDiagID(
          DiagnosticsEngine::Error, "'%0' takes no arguments");
      S.Diag(A.getLoc(), ID) << gnu;
      return AttributeNotApplied;
    }
    D->addAttr(AnnotateAttr::Create(S.Context, note, nullptr, 0, A));
    return AttributeApplied;
  }
};

struct Inactive : EnzymeAttr {
  Inactive() : EnzymeAttr("inactive", false, true) {}
};
struct FunctionLike : EnzymeAttr {
  FunctionLike() : EnzymeAttr("function_like", true, false) {}
};
struct NoFree : EnzymeAttr {
  NoFree() : EnzymeAttr("nofree", false, false) {}
};
struct ShouldRecompute : EnzymeAttr {
  ShouldRecompute() : EnzymeAttr("shouldrecompute", false, false) {}
};
struct SparseAccumulate : EnzymeAttr {
  SparseAccumulate() : EnzymeAttr("sparse_accumulate", false, false) {}
};

ParsedAttrInfoRegistry::Add<Inactive> A1("enzyme_inactive", "");
ParsedAttrInfoRegistry::Add<FunctionLike> A2("enzyme_function_like", "");
ParsedAttrInfoRegistry::Add<NoFree> A3("enzyme_nofree", "");
ParsedAttrInfoRegistry::Add<ShouldRecompute> A4("enzyme_shouldrecompute", "");
ParsedAttrInfoRegistry::Add<SparseAccumulate> A5("enzyme_sparse_accumulate",
                                                 "");

// The folder this plugin was loaded from.
std::string own_folder() {
  Dl_info info;
  if (!dladdr(reinterpret_cast<void *>(&own_folder), &info) ||
      !info.dli_fname)
    return ".";
  return llvm::sys::path::parent_path(info.dli_fname).str();
}

struct ZymaseAction : public PluginASTAction {
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 llvm::StringRef) override {
    CodeGenOptions &CG = CI.getCodeGenOpts();
    for (const std::string &P : CG.PassPlugins)
      if (llvm::sys::path::stem(P).starts_with("Zymase-"))
        return std::make_unique<ASTConsumer>(); // -fpass-plugin runs it
    std::string path = own_folder() + "/Zymase-" +
                       std::to_string(LLVM_VERSION_MAJOR) + ".so";
    auto P = llvm::PassPlugin::Load(path);
    if (!P) {
      unsigned ID = CI.getDiagnostics().getCustomDiagID(
          DiagnosticsEngine::Error, "zymase: cannot load %0: %1");
      CI.getDiagnostics().Report(ID)
          << path << llvm::toString(P.takeError());
      return std::make_unique<ASTConsumer>();
    }
    auto Plugin = std::make_shared<llvm::PassPlugin>(std::move(*P));
    CG.PassBuilderCallbacks.push_back([Plugin](llvm::PassBuilder &PB) {
      Plugin->registerPassBuilderCallbacks(PB);
    });
    return std::make_unique<ASTConsumer>();
  }
  bool ParseArgs(const CompilerInstance &,
                 const std::vector<std::string> &) override {
    return true;
  }
  ActionType getActionType() override { return AddBeforeMainAction; }
};

FrontendPluginRegistry::Add<ZymaseAction>
    X("zymase", "Enzyme's attributes, and the Zymase pass");

} // namespace
