// plugin.cpp - registers the Zymase passes with the PassBuilder and declares
// the command-line options.  The passes call into the C engine.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "glue.h"
#include "compat.h"
#include "gpu/gpu.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <iterator>

using namespace llvm;

static cl::opt<bool> PrintGradient("zymase-print", cl::init(false),
                                   cl::desc("Print each generated gradient"));
static cl::opt<bool> NoPreopt(
    "zymase-no-preopt", cl::init(false),
    cl::desc("Differentiate functions as they are, without the pre-AD "
             "simplification pipeline (for IR tests)"));
static cl::opt<bool> NoPostopt(
    "zymase-no-postopt", cl::init(false),
    cl::desc("Do not optimize generated gradients (for IR tests)"));
static cl::opt<bool> LooseTypes(
    "zymase-loose-types", cl::init(false),
    cl::desc("Where type analysis cannot tell what memory holds, assume "
             "double"));
static cl::opt<bool> PrintCache(
    "zymase-print-cache", cl::init(false),
    cl::desc("Report, per gradient, each forward value kept for the "
             "reverse sweep, its size and how it is kept"));
static cl::opt<bool> PrintStats(
    "zymase-print-stats", cl::init(false),
    cl::desc("Print counts of the work done by the analyses (type-analysis "
             "runs, fixpoint rounds, rules evaluated, type-tree entries "
             "inserted), to check that compile time scales"));
static cl::opt<unsigned> KeepBuffersMB(
    "zymase-keep-buffers-mb", cl::init(32),
    cl::desc("Keep a gradient's loop cache buffers of up to this many MiB "
             "in all for its next call instead of freeing them (0: free "
             "them at every call)"));
static cl::opt<unsigned> ReplayLogMB(
    "zymase-replay-log-mb", cl::init(16),
    cl::desc("Recurrences of inner loops replayed in the reverse sweep: "
             "the forward sweep also keeps their values in a log of up to "
             "this many MiB per loop, and the reverse reads the entries "
             "that fit instead of replaying them (0: always replay)"));
static cl::opt<unsigned> MathLogMB(
    "zymase-math-log-mb", cl::init(16),
    cl::desc("Math library calls of loop iterations are computed again in "
             "the reverse sweep; the forward sweep also keeps their values "
             "in a log of up to this many MiB per loop, and the reverse "
             "reads them back when the call's iterations fit (0: always "
             "cache them, as values that cannot be recomputed)"));
static cl::opt<bool> RecomputeMath(
    "zymase-recompute-math", cl::init(false),
    cl::desc("Recompute math library calls (sin, exp, ...) of loop "
             "iterations and the merges of branches built from them in the "
             "reverse sweep instead of caching them (default: on in device "
             "code, off elsewhere)"));
static cl::opt<bool> RecomputeRegions(
    "zymase-recompute-regions", cl::init(true),
    cl::desc("In device code, compute values at the merge of a branch region "
             "(both sides of a branch, inner loops) that reads only memory "
             "nothing writes after it again in the reverse sweep, by running "
             "the region again, instead of caching them per iteration"));
static cl::opt<bool> CheckFwd(
    "zymase-check-fwd", cl::init(false), cl::Hidden,
    cl::desc("Check each gradient of floating-point scalars against forward "
             "mode at run time (tools/fwd-check)"));
static cl::opt<bool>
    VerifySteps("zymase-verify", cl::init(false),
                cl::desc("Run the verifier after each step of the pass"));

// For the test of tools/check-unchanged only: the pass also marks the
// named function, as a plugin that touched code it does not differentiate.
static cl::opt<std::string>
    TestTouch("zymase-test-touch", cl::init(""), cl::Hidden,
              cl::desc("(tests) mark this function as changed by the pass"));

static cl::opt<bool> GpuSanitizeThread(
    "zymase-gpu-sanitize-thread", cl::init(false),
    cl::desc("zymase-gpu-to-host: mark the device functions for "
             "ThreadSanitizer (-fsanitize=thread instruments them)"));

static cl::opt<std::string> GpuModuleId(
    "zymase-gpu-module-id", cl::init(""),
    cl::desc("zymase-gpu-to-host: the identity of the translation unit, "
             "which its host side embeds as its fat binary"));

static cl::opt<bool> GpuSanitizeAddress(
    "zymase-gpu-sanitize-address", cl::init(false),
    cl::desc("zymase-gpu-to-host: mark the device functions for "
             "AddressSanitizer (-fsanitize=address instruments them)"));

static cl::opt<bool> GpuAllAtomic(
    "zymase-gpu-all-atomic", cl::init(false),
    cl::desc("Device gradients: add every adjoint to shadow memory other "
             "than the thread's stack atomically (no plain adds, no warp or "
             "block sums), to compare with"));

static cl::opt<bool> GpuCountAtomics(
    "zymase-gpu-count-atomics", cl::init(false),
    cl::desc("zymase-gpu-to-host: count the atomic read-modify-writes and "
             "compare-exchanges that device code executes (read with "
             "zymase_gpu_atomics() of the GPU-on-CPU runtime)"));

extern "C" int zy_opt_gpu_count_atomics(void) { return GpuCountAtomics; }
static cl::opt<unsigned> GpuLocalCacheBytes(
    "zymase-gpu-local-cache-bytes", cl::init(4096),
    cl::desc("Device gradients: loop caches whose size has a compile-time "
             "bound are fixed-size buffers in each thread's local memory "
             "(an alloca), up to this many bytes per thread in all; the "
             "others start in local memory with what is left and use "
             "device malloc only for more iterations"));

static cl::opt<bool> GpuNoDeviceMalloc(
    "zymase-gpu-no-device-malloc", cl::init(false),
    cl::desc("Device gradients: refuse, with an error naming the loop, a "
             "loop cache that would need device malloc (for targets "
             "without a device heap)"));

extern "C" int zy_opt_gpu_all_atomic(void) { return GpuAllAtomic; }
extern "C" unsigned zy_opt_gpu_local_cache_bytes(void) {
  return GpuLocalCacheBytes;
}
extern "C" int zy_opt_gpu_no_device_malloc(void) { return GpuNoDeviceMalloc; }
extern "C" int zy_opt_gpu_sanitize_thread(void) { return GpuSanitizeThread; }
extern "C" int zy_opt_gpu_sanitize_address(void) { return GpuSanitizeAddress; }
extern "C" const char *zy_opt_gpu_module_id(void) {
  return GpuModuleId.c_str();
}
extern "C" int zy_opt_print_gradient(void) { return PrintGradient; }
extern "C" int zy_opt_preopt(void) { return !NoPreopt; }
extern "C" int zy_opt_postopt(void) { return !NoPostopt; }
extern "C" int zy_opt_verify_steps(void) { return VerifySteps; }
extern "C" int zy_opt_check_fwd(void) { return CheckFwd; }
extern "C" int zy_opt_loose_types(void) { return LooseTypes; }
extern "C" int zy_opt_print_cache(void) { return PrintCache; }
extern "C" int zy_opt_print_stats(void) { return PrintStats; }
extern "C" unsigned zy_opt_keep_buffers_mb(void) { return KeepBuffersMB; }
extern "C" int zy_opt_recompute_math(void) { return RecomputeMath; }
extern "C" int zy_opt_recompute_math_given(void) {
  return RecomputeMath.getNumOccurrences() > 0;
}
extern "C" int zy_opt_recompute_regions(void) { return RecomputeRegions; }
extern "C" int zy_opt_recompute_regions_given(void) {
  return RecomputeRegions.getNumOccurrences() > 0;
}
extern "C" unsigned zy_opt_replay_log_mb(void) { return ReplayLogMB; }
extern "C" unsigned zy_opt_math_log_mb(void) { return MathLogMB; }

namespace {

// The functions Zymase adds (gradients, reverses of OpenMP regions,
// helpers) are sanitized as the code they come from: clang puts
// sanitize_thread (address, memory) on the functions of a translation unit
// built with -fsanitize=..., and the sanitizers' passes, which run after
// this one, instrument only the functions that carry it.  Without this the
// gradient code of a -fsanitize=thread build (Archer's OpenMP race checks)
// was not checked at all.  The functions there before are marked for the
// run (the mark is copied to their clones, which keep their attributes);
// Zymase may delete some, so no pointer to them is kept.
static const char OldMark[] = "zymase-old";
static const Attribute::AttrKind SanitizeKinds[] = {
    Attribute::SanitizeThread, Attribute::SanitizeAddress,
    Attribute::SanitizeMemory, Attribute::SanitizeHWAddress};

static unsigned markOld(Module &M) {
  unsigned Kinds = 0;
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    F.addFnAttr(OldMark);
    for (unsigned K = 0; K < std::size(SanitizeKinds); K++)
      if (F.hasFnAttribute(SanitizeKinds[K]))
        Kinds |= 1u << K;
  }
  return Kinds;
}

static void sanitizeAdded(Module &M, unsigned Kinds, bool Changed) {
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    if (F.hasFnAttribute(OldMark)) {
      F.removeFnAttr(OldMark);
      continue;
    }
    if (!Changed ||
        F.hasFnAttribute(Attribute::DisableSanitizerInstrumentation))
      continue;
    for (unsigned K = 0; K < std::size(SanitizeKinds); K++)
      if (Kinds >> K & 1)
        F.addFnAttr(SanitizeKinds[K]);
  }
}

struct ZymasePass : PassInfoMixin<ZymasePass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    unsigned Kinds = markOld(M);
    bool Changed = zy_run_on_module(wrap(&M));
    sanitizeAdded(M, Kinds, Changed);
    if (Function *F = TestTouch.empty() ? nullptr : M.getFunction(TestTouch)) {
      F->addFnAttr("zymase-touched");
      Changed = true;
    }
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
  static bool isRequired() { return true; } // run at -O0 and on optnone too
};

// GPU on CPU: device IR retargeted to the host (lib/gpu).
struct ZymaseGpuToHostPass : PassInfoMixin<ZymaseGpuToHostPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    zy_gpu_to_host(wrap(&M));
    return PreservedAnalyses::none();
  }
  static bool isRequired() { return true; }
};

// Runs before the optimizer touches the module (see zy_start_module).
struct ZymaseStartPass : PassInfoMixin<ZymaseStartPass> {
  bool Optimizing;
  explicit ZymaseStartPass(bool O) : Optimizing(O) {}
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    return zy_start_module(wrap(&M), Optimizing) ? PreservedAnalyses::none()
                                                 : PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

// print<zymase-activity> and print<zymase-types>: run a C printer on each
// function with a body.
template <void (*Print)(LLVMValueRef, char **)>
struct CPrinter : PassInfoMixin<CPrinter<Print>> {
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &) {
    if (F.isDeclaration())
      return PreservedAnalyses::all();
    char *S = nullptr;
    Print(wrap(&F), &S);
    outs() << S;
    free(S);
    return PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

bool isPassName(StringRef Name) { return Name == "zymase" || Name == "enzyme"; }

void registerCallbacks(PassBuilder &PB) {
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "zymase-gpu-to-host") {
          MPM.addPass(ZymaseGpuToHostPass());
          return true;
        }
        if (!isPassName(Name))
          return false;
        MPM.addPass(ZymasePass());
        return true;
      });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, FunctionPassManager &FPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "print<zymase-activity>")
          FPM.addPass(CPrinter<zy_print_activity>());
        else if (Name == "print<zymase-types>")
          FPM.addPass(CPrinter<zy_print_types>());
        else
          return false;
        return true;
      });
  // Before inlining, keep a copy of each function to differentiate: the
  // pre-AD pipeline moves calls out of loops there before it inlines them
  // (at -O0 nothing is inlined and the function itself is that copy, but
  // in device code, where the always-inliner puts libdevice's bodies in).
  PB.registerPipelineStartEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel L) {
        MPM.addPass(ZymaseStartPass(L != OptimizationLevel::O0));
      });
  // Differentiate after the module has been simplified (inlining, SROA,
  // ...) and before vectorization and unrolling; the rest of the optimizer
  // then works on the gradients too.  This extension point exists at -O0.
  PB.registerOptimizerEarlyEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel ZY_EP_PHASE_PARAM) {
        MPM.addPass(ZymasePass());
      });
}

} // namespace

extern "C" __attribute__((visibility("default"))) ::llvm::PassPluginLibraryInfo
llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "Zymase", LLVM_VERSION_STRING,
          registerCallbacks};
}
