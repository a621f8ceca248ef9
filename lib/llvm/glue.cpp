// glue.cpp - LLVM facilities the C API lacks, exposed as extern "C"
// functions for the C engine (see glue.h).  No AD logic lives here.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "glue.h"
#include "analyses.h"
#include "compat.h"
#include "gpu_address.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/IPO/FunctionAttrs.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Transforms/IPO/AlwaysInliner.h"
#include "llvm/Transforms/IPO/Internalize.h"
#include "llvm/Transforms/Utils/BuildLibCalls.h"
#include "llvm/Transforms/Utils/CallPromotionUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/LCSSA.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/Mem2Reg.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include <numeric>

using namespace llvm;

extern "C" void zy_llvm_diagnose(LLVMValueRef fn, LLVMValueRef inst,
                                 const char *msg, int warning) {
  Instruction *I = inst ? dyn_cast<Instruction>(unwrap(inst)) : nullptr;
  // The user's function rather than a clone of it: clang locates it in
  // the source even without debug info.
  Function *F = fn ? unwrap<Function>(fn) : I->getFunction();
  DiagnosticLocation Loc;
  if (I && I->getDebugLoc() && I->getDebugLoc().getLine())
    Loc = DiagnosticLocation(I->getDebugLoc());
  else if (F->getSubprogram())
    Loc = DiagnosticLocation(F->getSubprogram());
  F->getContext().diagnose(DiagnosticInfoUnsupported(
      *F, msg, Loc, warning ? DS_Warning : DS_Error));
}

extern "C" void zy_llvm_diagnose_module(LLVMModuleRef m, const char *msg) {
  unwrap(m)->getContext().emitError(msg);
}

extern "C" LLVMValueRef zy_llvm_underlying_object(LLVMValueRef p) {
  return wrap(getUnderlyingObject(unwrap(p)));
}

extern "C" LLVMBasicBlockRef zy_llvm_switch_dest(LLVMValueRef sw, long long v) {
  auto *S = cast<SwitchInst>(unwrap(sw));
  for (auto &C : S->cases())
    if (C.getCaseValue()->getSExtValue() == v)
      return wrap(C.getCaseSuccessor());
  return wrap(S->getDefaultDest());
}

extern "C" int zy_llvm_global_location(LLVMValueRef gv, char *buf,
                                        size_t n) {
  auto *G = dyn_cast<GlobalVariable>(unwrap(gv));
  SmallVector<DIGlobalVariableExpression *, 1> GVs;
  if (G)
    G->getDebugInfo(GVs);
  if (GVs.empty() || !GVs[0]->getVariable())
    return 0;
  DIGlobalVariable *V = GVs[0]->getVariable();
  snprintf(buf, n, "%s:%u", V->getFilename().str().c_str(), V->getLine());
  return 1;
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

// Calls of functions with a body inside loops, with their loop depths.
static std::vector<std::pair<WeakVH, unsigned>> callsInLoops(Function &F) {
  DominatorTree DT(F);
  LoopInfo LI(DT);
  std::vector<std::pair<WeakVH, unsigned>> R;
  for (Instruction &I : instructions(F))
    if (auto *CB = dyn_cast<CallBase>(&I))
      if (Function *C = CB->getCalledFunction();
          C && !C->isDeclaration() && LI.getLoopDepth(I.getParent()))
        R.push_back({WeakVH(&I), LI.getLoopDepth(I.getParent())});
  return R;
}

extern "C" int zy_llvm_has_calls_in_loops(LLVMValueRef fn) {
  for (auto &[V, Depth] : callsInLoops(*unwrap<Function>(fn)))
    if (cast<CallBase>(V)->onlyReadsMemory())
      return 1;
  return 0;
}

extern "C" int zy_llvm_simplify_function(LLVMValueRef fn, int level) {
  Function &F = *unwrap<Function>(fn);
  auto Before = callsInLoops(F);
  ZyAnalyses A;
  OptimizationLevel L = level <= 1   ? OptimizationLevel::O1
                        : level == 2 ? OptimizationLevel::O2
                                     : OptimizationLevel::O3;
  FunctionPassManager FPM =
      A.PB.buildFunctionSimplificationPipeline(L, ThinOrFullLTOPhase::None);
  FPM.run(F, A.FAM);
  if (Before.empty())
    return 0;
  DominatorTree DT(F);
  LoopInfo LI(DT);
  for (auto &[V, Depth] : Before)
    if (auto *I = dyn_cast_or_null<Instruction>(V))
      if (LI.getLoopDepth(I->getParent()) < Depth)
        return 1;
  return 0;
}

extern "C" int zy_llvm_errno_accessor(LLVMValueRef fn) {
  auto *F = dyn_cast_or_null<Function>(unwrap(fn));
  if (!F)
    return 0;
  StringRef N = F->getName();
  return N == "__errno_location" || N == "__error" || N == "_errno";
}

// Whether F reads or sets errno (calls the C library's accessor).
static bool usesErrno(Function &F) {
  for (Instruction &I : instructions(F))
    if (auto *C = dyn_cast<CallBase>(&I);
        C && zy_llvm_errno_accessor(wrap(C->getCalledOperand())))
      return true;
  return false;
}

extern "C" void zy_llvm_infer_call_effects(LLVMValueRef fn,
                                           int (*pure)(LLVMValueRef)) {
  Function &F = *unwrap<Function>(fn);
  DenseMap<Function *, MemoryEffects> Known;
  // Where the function looks at errno, its loads stay after the math
  // calls (and the gradient refuses to read it: check.c).
  bool Errno = usesErrno(F);
  for (Instruction &I : instructions(F)) {
    auto *CB = dyn_cast<CallBase>(&I);
    if (CB && !Errno && pure(wrap(CB))) {
      // A math call: its errno write would keep loads of any int (a loop
      // bound read through a pointer) from moving out of loops.
      CB->setDoesNotAccessMemory();
      continue;
    }
    Function *Callee = CB ? CB->getCalledFunction() : nullptr;
    if (!Callee || Callee->isDeclaration() || Callee->isInterposable())
      continue;
    auto It = Known.find(Callee);
    if (It == Known.end()) {
      ZyAnalyses A;
      // On a copy whose calls of pure functions (math functions: their
      // errno does not matter to AD) are marked as such.
      ValueToValueMapTy VMap;
      Function *Copy = CloneFunction(Callee, VMap);
      // Nor where the caller looks at errno: its load after the call
      // would be folded, out of the check's sight.
      bool CopyErrno = Errno || usesErrno(*Copy);
      for (Instruction &J : instructions(*Copy))
        if (auto *C = dyn_cast<CallBase>(&J);
            C && !CopyErrno && pure(wrap(C)))
          C->setDoesNotAccessMemory();
      // Promoted to registers first: at -O0 the arguments live in stack
      // slots, and LLVM 19 takes a load through a pointer reloaded from
      // one as a read of any memory.
      Copy->removeFnAttr(Attribute::OptimizeNone);
      FunctionPassManager FPM;
      FPM.addPass(PromotePass());
      FPM.run(*Copy, A.FAM);
      auto &AA = A.FAM.getResult<AAManager>(*Copy);
      MemoryEffects ME = computeFunctionBodyMemoryAccess(*Copy, AA);
      A.FAM.clear();
      Copy->eraseFromParent();
      It = Known.insert({Callee, ME}).first;
    }
    CB->setMemoryEffects(CB->getMemoryEffects() & It->second);
  }
}

extern "C" void zy_llvm_keep_alive(LLVMValueRef fn) {
  GlobalValue *F = unwrap<GlobalValue>(fn);
  appendToCompilerUsed(*F->getParent(), {F});
}

extern "C" void zy_llvm_let_go(LLVMValueRef fn) {
  GlobalValue *F = unwrap<GlobalValue>(fn);
  Module &M = *F->getParent();
  removeFromUsedLists(M, [F](Constant *C) {
    return C->stripPointerCasts() == F;
  });
  // The lists' old arrays stay behind as dead constants using F and the
  // others: not a use.
  F->removeDeadConstantUsers();
  for (const char *Name : {"llvm.used", "llvm.compiler.used"})
    if (GlobalVariable *GV = M.getGlobalVariable(Name))
      if (auto *A = dyn_cast<ConstantArray>(GV->getInitializer()))
        for (Value *Op : A->operands())
          if (auto *C = dyn_cast<Constant>(Op->stripPointerCasts()))
            C->removeDeadConstantUsers();
}

extern "C" void zy_llvm_infer_libfunc_attrs(LLVMValueRef fn) {
  Function *F = unwrap<Function>(fn);
  TargetLibraryInfoImpl TLII(Triple(F->getParent()->getTargetTriple()));
  TargetLibraryInfo TLI(TLII);
  inferNonMandatoryLibFuncAttrs(*F, TLI);
}

extern "C" int zy_llvm_inline_call(LLVMValueRef call) {
  auto *CB = dyn_cast<CallBase>(unwrap(call));
  Function *Callee = CB ? CB->getCalledFunction() : nullptr;
  if (!Callee || Callee->isDeclaration() || Callee->isInterposable())
    return 0;
  InlineFunctionInfo IFI;
  return InlineFunction(*CB, IFI).isSuccess();
}

extern "C" int zy_llvm_link_needed(LLVMModuleRef m, const char *path,
                                   char **err) {
  Module &M = *unwrap(m);
  auto fail = [err](const std::string &What) {
    *err = strdup(What.c_str());
    return 1;
  };
  auto Buf = MemoryBuffer::getFile(path);
  if (!Buf)
    return fail(std::string(path) + ": " + Buf.getError().message());
  Expected<std::unique_ptr<Module>> Lib =
      parseBitcodeFile((*Buf)->getMemBufferRef(), M.getContext());
  if (!Lib)
    return fail(std::string(path) + ": " + toString(Lib.takeError()));
  (*Lib)->setTargetTriple(M.getTargetTriple());
  (*Lib)->setDataLayout(M.getDataLayout());
  // What is linked becomes internal, as clang's builtin bitcode.
  if (Linker::linkModules(
          M, std::move(*Lib), Linker::LinkOnlyNeeded,
          [](Module &M, const StringSet<> &Names) {
            internalizeModule(M, [&Names](const GlobalValue &GV) {
              return !GV.hasName() || !Names.count(GV.getName());
            });
          }))
    return fail(std::string(path) + ": the link failed");
  return 0;
}

extern "C" void zy_llvm_always_inline(LLVMModuleRef m) {
  ZyAnalyses A;
  ModulePassManager MPM;
  MPM.addPass(AlwaysInlinerPass(/*InsertLifetime=*/false));
  MPM.run(*unwrap(m), A.MAM);
}

extern "C" LLVMValueRef zy_llvm_invoke_to_call(LLVMValueRef inst) {
  auto *II = dyn_cast<InvokeInst>(unwrap(inst));
  return II ? wrap(changeToCall(II)) : inst;
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

extern "C" LLVMBasicBlockRef zy_llvm_domtree_idom(ZyDomTree *T,
                                                  LLVMBasicBlockRef bb) {
  DomTreeNode *N = T->DT.getNode(unwrap(bb));
  return N && N->getIDom() ? wrap(N->getIDom()->getBlock()) : nullptr;
}

extern "C" void zy_llvm_domtree_free(ZyDomTree *T) { delete T; }

struct ZyLoopNest {
  DominatorTree DT;
  LoopInfo LI;
  SmallVector<Loop *, 8> Loops; // preorder: parents first
  DenseMap<Loop *, unsigned> Index;
  DenseMap<BasicBlock *, Value *> Trips; // by header
  SmallPtrSet<BasicBlock *, 8> ExactTrips;
  DenseMap<BasicBlock *, uint64_t> MaxTrips; // by header, constant bounds
  // header -> (iterations over the nest, preheader that reserves them)
  DenseMap<BasicBlock *, std::pair<Value *, BasicBlock *>> NestTrips;
  Function *F;
};

// Replaces, in a trip count, each recurrence of an enclosing loop that is
// the value of one of that loop's header phis by the phi itself: the count
// of a triangular loop (j from i + 1 to n) is then n - i - 1 in values the
// preheader has, and the reverse sweep recomputes it from i's iteration
// number instead of caching the exit iteration of every entry.
namespace {
struct ZyPhiRewriter : SCEVRewriteVisitor<ZyPhiRewriter> {
  DenseMap<const SCEV *, Value *> &Phis;
  ZyPhiRewriter(ScalarEvolution &SE, DenseMap<const SCEV *, Value *> &Phis)
      : SCEVRewriteVisitor(SE), Phis(Phis) {}
  const SCEV *visitAddRecExpr(const SCEVAddRecExpr *E) {
    auto It = Phis.find(E);
    if (It != Phis.end())
      return SE.getUnknown(It->second);
    if (!E->isAffine())
      return E;
    // {a,+,b} = a + b * k, with the iteration number k from a phi
    // {c,+,s} of the same loop and type: k = (phi - c) / s for s = 1, or
    // b / s constant.
    const SCEV *A = visit(E->getStart()), *B = visit(E->getStepRecurrence(SE));
    for (auto &KV : Phis) {
      auto *R = dyn_cast<SCEVAddRecExpr>(KV.first);
      if (!R || R->getLoop() != E->getLoop() || !R->isAffine() ||
          R->getType() != E->getType())
        continue;
      auto *S = dyn_cast<SCEVConstant>(R->getStepRecurrence(SE));
      if (!S || S->getAPInt().isZero())
        continue;
      const SCEV *K = SE.getMinusSCEV(SE.getUnknown(KV.second), R->getStart());
      const SCEV *Scale = nullptr;
      if (S->getAPInt().isOne())
        Scale = B;
      else if (auto *BC = dyn_cast<SCEVConstant>(B);
               BC && BC->getAPInt().srem(S->getAPInt()).isZero())
        Scale = SE.getConstant(BC->getAPInt().sdiv(S->getAPInt()));
      if (Scale)
        return SE.getAddExpr(A, SE.getMulExpr(Scale, K));
    }
    return E;
  }
};
} // namespace

static const SCEV *phis_for_outer_recurrences(ScalarEvolution &SE, Loop *L,
                                              const SCEV *S) {
  if (!SCEVExprContains(S, [](const SCEV *X) { return isa<SCEVAddRecExpr>(X); }))
    return S;
  DenseMap<const SCEV *, Value *> Phis;
  for (Loop *P = L->getParentLoop(); P; P = P->getParentLoop())
    for (PHINode &PN : P->getHeader()->phis())
      if (SE.isSCEVable(PN.getType()))
        Phis.try_emplace(SE.getSCEV(&PN), &PN);
  return ZyPhiRewriter(SE, Phis).visit(S);
}

// The trip count (header executions per entry) of each loop whose count
// scalar evolution knows before the loop, expanded at the end of its
// preheader.  Counts that vary with an enclosing loop are expanded too:
// they only use values available in the preheader.
static void expand_trip_counts(Function &F, ZyLoopNest &N) {
  FunctionAnalysisManager FAM;
  PassBuilder PB;
  PB.registerFunctionAnalyses(FAM);
  auto &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
  auto &LI = FAM.getResult<LoopAnalysis>(F);
  const DataLayout &DL = F.getParent()->getDataLayout();
  Type *I64 = Type::getInt64Ty(F.getContext());
  SCEVExpander Exp = zyMakeExpander(SE, DL, "zymase.trip");
  DenseMap<Loop *, const SCEV *> TripOf;
  for (Loop *L : LI.getLoopsInPreorder()) {
    BasicBlock *Pre = L->getLoopPreheader();
    // Scalar evolution's count, for reserving buffers: never below the
    // iterations run (with several exits it may be the count of one of
    // them, as LLVM 19 gives for a loop with a break).  Not its symbolic
    // maximum: for a data-dependent exit that is the induction variable's
    // range (2^31 iterations, 16 GB reserved).  The count is the exit's
    // iteration number when the latch is the only exit.
    const SCEV *BTC = SE.getBackedgeTakenCount(L);
    // A constant bound (a loop with a data-dependent exit and k < 8 too):
    // fixed-size caches of device gradients.
    if (auto *Max =
            dyn_cast<SCEVConstant>(SE.getConstantMaxBackedgeTakenCount(L));
        Max && Max->getAPInt().getActiveBits() <= 32)
      N.MaxTrips[L->getHeader()] = Max->getAPInt().getZExtValue() + 1;
    bool IsExact = L->getExitingBlock() &&
                   L->getExitingBlock() == L->getLoopLatch();
    if (!Pre || isa<SCEVCouldNotCompute>(BTC) ||
        !BTC->getType()->isIntegerTy() ||
        BTC->getType()->getIntegerBitWidth() > 64)
      continue;
    const SCEV *Trip = phis_for_outer_recurrences(
        SE, L, SE.getAddExpr(SE.getZeroExtendExpr(BTC, I64), SE.getOne(I64)));
    Instruction *At = Pre->getTerminator();
    if (!Exp.isSafeToExpandAt(Trip, At))
      continue;
    // Addrecs of enclosing loops would make the expander add phis there.
    if (SCEVExprContains(Trip, [](const SCEV *S) {
          return isa<SCEVAddRecExpr>(S);
        }))
      continue;
    N.Trips[L->getHeader()] = Exp.expandCodeFor(Trip, I64, At);
    TripOf[L] = Trip;
    if (IsExact)
      N.ExactTrips.insert(L->getHeader());
    // The iterations of L over a whole nest of loops around it, when
    // their counts are known before the outermost of them: reserved there
    // once instead of at every entry into L.
    const SCEV *Total = Trip;
    Loop *Top = L;
    for (Loop *P = L->getParentLoop(); P; P = P->getParentLoop()) {
      auto It = TripOf.find(P);
      if (It == TripOf.end() || !SE.isLoopInvariant(Total, P))
        break;
      Total = SE.getMulExpr(Total, It->second);
      Top = P;
    }
    if (Top != L &&
        Exp.isSafeToExpandAt(Total, Top->getLoopPreheader()->getTerminator()))
      N.NestTrips[L->getHeader()] = {
          Exp.expandCodeFor(Total, I64, Top->getLoopPreheader()->getTerminator()),
          Top->getLoopPreheader()};
  }
  Exp.clear();
}

extern "C" ZyLoopNest *zy_llvm_loops_new(LLVMValueRef fn) {
  Function &F = *unwrap<Function>(fn);
  {
    FunctionAnalysisManager FAM;
    PassBuilder PB;
    PB.registerFunctionAnalyses(FAM);
    FunctionPassManager FPM;
    FPM.addPass(LoopSimplifyPass());
    FPM.addPass(LCSSAPass());
    FPM.run(F, FAM);
  }
  auto *N = new ZyLoopNest;
  N->F = &F;
  expand_trip_counts(F, *N);
  N->DT.recalculate(F);
  N->LI.analyze(N->DT);
  for (Loop *L : N->LI.getLoopsInPreorder()) {
    N->Index[L] = N->Loops.size();
    N->Loops.push_back(L);
  }
  return N;
}

extern "C" unsigned zy_llvm_loops_count(ZyLoopNest *N) {
  return N->Loops.size();
}

extern "C" void zy_llvm_loops_describe(ZyLoopNest *N, unsigned l,
                                       ZyLoopDesc *out) {
  Loop *L = N->Loops[l];
  out->header = wrap(L->getHeader());
  out->preheader = wrap(L->getLoopPreheader());
  out->latch = wrap(L->getLoopLatch());
  out->parent = L->getParentLoop() ? (int)N->Index[L->getParentLoop()] : -1;
  out->dedicated_exits = L->hasDedicatedExits();
  out->trip = wrap(N->Trips.lookup(L->getHeader()));
  out->trip_exact = N->ExactTrips.count(L->getHeader());
  auto Nest = N->NestTrips.lookup(L->getHeader());
  out->nest_trip = wrap(Nest.first);
  out->nest_at = wrap(Nest.second);
  out->max_trip = N->MaxTrips.lookup(L->getHeader());
}

extern "C" int zy_llvm_loops_innermost(ZyLoopNest *N, LLVMBasicBlockRef bb) {
  Loop *L = N->LI.getLoopFor(unwrap(bb));
  return L ? (int)N->Index[L] : -1;
}

// A retreating edge (to a block earlier in reverse post-order) whose
// target does not dominate its source enters a cycle other than through
// a header.
extern "C" LLVMBasicBlockRef zy_llvm_loops_irreducible(ZyLoopNest *N) {
  ReversePostOrderTraversal<Function *> RPOT(N->F);
  DenseMap<BasicBlock *, unsigned> Order;
  for (BasicBlock *BB : RPOT)
    Order[BB] = Order.size();
  for (BasicBlock *BB : RPOT)
    for (BasicBlock *S : successors(BB))
      if (Order[S] <= Order[BB] && !N->DT.dominates(S, BB))
        return wrap(S);
  return nullptr;
}

extern "C" void zy_llvm_loops_free(ZyLoopNest *N) { delete N; }

struct ZyAlias {
  ZyAnalyses An;
  Function *F;
  AAResults *AA;
};

extern "C" ZyAlias *zy_llvm_alias_new(LLVMValueRef fn) {
  auto *A = new ZyAlias;
  A->F = unwrap<Function>(fn);
  A->AA = &A->An.FAM.getResult<AAManager>(*A->F);
  return A;
}

// Blocks a path of at least one edge from `From` reaches.
static SmallPtrSet<BasicBlock *, 32> reached_from(BasicBlock *From) {
  SmallPtrSet<BasicBlock *, 32> Seen;
  SmallVector<BasicBlock *, 32> Work(succ_begin(From), succ_end(From));
  while (!Work.empty()) {
    BasicBlock *B = Work.pop_back_val();
    if (Seen.insert(B).second)
      Work.append(succ_begin(B), succ_end(B));
  }
  return Seen;
}

// The pointer a write `I` stores through (null: none that is known).
static Value *written_pointer(Instruction &I) {
  if (auto *S = dyn_cast<StoreInst>(&I))
    return S->getPointerOperand();
  if (auto *M = dyn_cast<AnyMemIntrinsic>(&I))
    return M->getRawDest();
  return nullptr;
}

// Whether `P` (with AA facts `PI`) and `Q` may reach the same memory in
// different iterations of a loop.  Alias analysis answers for one
// iteration: two pointers swapped at every iteration (u, v = v, u) are
// phis it finds distinct, though each is the other one iteration later.
// So where a pointer comes from a phi or select, the objects each may
// point into are compared, through every phi.
static bool may_alias_across(AAResults *AA, Value *P, const AAMDNodes &PI,
                             Value *Q, const AAMDNodes &QI) {
  auto varies = [](Value *V) {
    const Value *O = getUnderlyingObject(V);
    return isa<PHINode>(O) || isa<SelectInst>(O);
  };
  if (!varies(P) && !varies(Q))
    return false;
  SmallVector<const Value *, 8> A, B;
  getUnderlyingObjects(P, A, nullptr, 0);
  getUnderlyingObjects(Q, B, nullptr, 0);
  for (const Value *X : A)
    for (const Value *Y : B)
      if (X == Y || !AA->isNoAlias(MemoryLocation::getBeforeOrAfter(X, PI),
                                   MemoryLocation::getBeforeOrAfter(Y, QI)))
        return true;
  return false;
}

// Whether an instruction of A's function may write memory at any offset
// from pointer P (with the type-based facts PI), counting, when From is
// not null, only the instructions a path from From reaches.
static bool written(ZyAlias *A, Value *P, const AAMDNodes &PI,
                    Instruction *From, int (*ignore)(LLVMValueRef, void *),
                    void *ctx, bool AskAll = false) {
  // Any offset from the pointer: alias queries compare values of the
  // same loop iteration, but a store in a later iteration (to u[i+1] when
  // this load read u[i+1] as u[i]'s neighbour) counts too.  Type-based
  // answers hold across iterations and are kept.
  MemoryLocation Loc = MemoryLocation::getBeforeOrAfter(P, PI);
  SmallPtrSet<BasicBlock *, 32> Reached;
  if (From)
    Reached = reached_from(From->getParent());
  for (Instruction &I : instructions(*A->F)) {
    // Only writes that may run after From count.
    if (From && !Reached.count(I.getParent()) &&
        !(I.getParent() == From->getParent() && From->comesBefore(&I)))
      continue;
    if (!I.mayWriteToMemory() ||
        (ignore && (AskAll || isa<CallBase>(I)) && ignore(wrap(&I), ctx)))
      continue;
    if (isModSet(A->AA->getModRefInfo(&I, Loc)))
      return true;
    Value *W = written_pointer(I);
    if (W && may_alias_across(A->AA, P, PI, W, I.getAAMetadata()))
      return true;
  }
  return false;
}

extern "C" int zy_llvm_alias_load_clobbered(ZyAlias *A, LLVMValueRef load,
                                            int after,
                                            int (*ignore)(LLVMValueRef, void *),
                                            void *ctx) {
  auto *LI = cast<LoadInst>(unwrap(load));
  if (!LI->isSimple())
    return 1;
  return written(A, LI->getPointerOperand(), LI->getAAMetadata(),
                 after ? LI : nullptr, ignore, ctx);
}

extern "C" int zy_llvm_alias_load_written(ZyAlias *A, LLVMValueRef load,
                                          int (*ignore)(LLVMValueRef, void *),
                                          void *ctx) {
  auto *LI = cast<LoadInst>(unwrap(load));
  if (!LI->isSimple())
    return 1;
  return written(A, LI->getPointerOperand(), LI->getAAMetadata(), nullptr,
                 ignore, ctx, true);
}

extern "C" int zy_llvm_alias_written_after(ZyAlias *A, LLVMValueRef inst,
                                           LLVMValueRef p,
                                           int (*ignore)(LLVMValueRef, void *),
                                           void *ctx) {
  return written(A, unwrap(p), AAMDNodes(), unwrap<Instruction>(inst), ignore,
                 ctx);
}

// The memory at any offset from pointer `v`, with the type-based facts
// of the loads and stores through it when they all agree (a load or store
// instruction: its own).
static MemoryLocation anywhere_from(Value *V) {
  if (auto *I = dyn_cast<Instruction>(V);
      I && (isa<LoadInst>(I) || isa<StoreInst>(I)))
    return MemoryLocation::getBeforeOrAfter(getLoadStorePointerOperand(I),
                                            I->getAAMetadata());
  std::optional<AAMDNodes> Info;
  for (User *U : V->users()) {
    auto *I = dyn_cast<Instruction>(U);
    if (!I || !(isa<LoadInst>(I) || isa<StoreInst>(I)) ||
        getLoadStorePointerOperand(I) != V)
      continue;
    if (!Info)
      Info = I->getAAMetadata();
    else if (!(*Info == I->getAAMetadata()))
      Info = AAMDNodes();
  }
  return MemoryLocation::getBeforeOrAfter(V, Info ? *Info : AAMDNodes());
}

extern "C" int zy_llvm_alias_may_overlap(ZyAlias *A, LLVMValueRef p,
                                         LLVMValueRef q) {
  return !A->AA->isNoAlias(anywhere_from(unwrap(p)), anywhere_from(unwrap(q)));
}

extern "C" void zy_llvm_alias_free(ZyAlias *A) { delete A; }

extern "C" int zy_llvm_alias_gpu_address(ZyAlias *A, LLVMValueRef p,
                                         int (*uniform)(LLVMValueRef, void *),
                                         void *ctx) {
  auto &SE = A->An.FAM.getResult<ScalarEvolutionAnalysis>(*A->F);
  return zyGpuAddress(SE, unwrap(p), uniform, ctx);
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

extern "C" int zy_llvm_call_no_memory(LLVMValueRef call) {
  auto *CB = dyn_cast<CallBase>(unwrap(call));
  return CB && CB->doesNotAccessMemory();
}

// --- GPU on CPU (lib/gpu) --------------------------------------------------

extern "C" int zy_llvm_constants_to_instructions(LLVMValueRef g) {
  auto *GV = cast<GlobalVariable>(unwrap(g));
  convertUsersOfConstantsToInstructions({GV});
  for (User *U : GV->users())
    if (!isa<Instruction>(U))
      return 0;
  return 1;
}

extern "C" void zy_llvm_system_sync_scopes(LLVMValueRef fn) {
  for (Instruction &I : instructions(*cast<Function>(unwrap(fn)))) {
    if (auto *F = dyn_cast<FenceInst>(&I))
      F->setSyncScopeID(SyncScope::System);
    else if (auto *A = dyn_cast<AtomicRMWInst>(&I))
      A->setSyncScopeID(SyncScope::System);
    else if (auto *X = dyn_cast<AtomicCmpXchgInst>(&I))
      X->setSyncScopeID(SyncScope::System);
    else if (auto *L = dyn_cast<LoadInst>(&I)) {
      if (L->isAtomic())
        L->setSyncScopeID(SyncScope::System);
    } else if (auto *S = dyn_cast<StoreInst>(&I)) {
      if (S->isAtomic())
        S->setSyncScopeID(SyncScope::System);
    }
  }
}

extern "C" int zy_llvm_set_host_target(LLVMModuleRef m) {
  Module *M = unwrap(m);
  std::string Triple = sys::getProcessTriple();
  std::string Err;
  const Target *T = zyLookupTarget(Triple, Err);
  if (!T)
    return 0;
  std::unique_ptr<TargetMachine> TM(zyCreateTargetMachine(T, Triple));
  if (!TM)
    return 0;
  zySetTargetTriple(*M, Triple);
  M->setDataLayout(TM->createDataLayout());
  return 1;
}

extern "C" void zy_llvm_add_global_ctor(LLVMModuleRef m, LLVMValueRef fn) {
  appendToGlobalCtors(*unwrap(m), cast<Function>(unwrap(fn)), 65535);
}
