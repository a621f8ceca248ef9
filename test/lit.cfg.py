# lit configuration for Zymase.
# Substitutions:
#   %opt      opt with the plugin loaded     %zyopt  = %opt -passes=zymase
#   %clang    clang with the plugin (-fpass-plugin) and the test headers
#   %FileCheck, %not
#   %omp-run, %archer-clang, %archer-run  OpenMP tests (see below)
#   %gpu-clang  zymase-clang --gpu-on-cpu (test/gpu, feature `cuda`)
import os
import lit.formats

config.name = "Zymase"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".ll", ".c", ".cpp", ".cu", ".hip"]
config.test_source_root = os.path.dirname(__file__)

site = lit_config.params.get("zymase_site")
if site:
    lit_config.load_config(config, site)
else:
    lit_config.fatal("run the tests through ctest (or pass --param zymase_site=...)")

config.test_exec_root = lit_config.params.get(
    "zymase_exec", os.path.join(config.zymase_obj, "lit-out"))
bin = config.llvm_bin
plugin = config.zymase_plugin
inc = os.path.join(config.zymase_src, "test", "integration")
pub = os.path.join(config.zymase_src, "include")

# OpenMP (test/integration/openmp-*.c, errors/openmp-*.c).  Feature
# `openmp` when this LLVM's clang finds omp.h and libomp.  Debian's
# libomp-19-dev and libomp-22-dev conflict (both provide libomp-x.y-dev):
# with only one installed, the other clang gets an include folder holding
# just a link to that omp.h (the OpenMP API header is the same; the
# resource folder itself is not added, its builtin headers would shadow
# the other clang's), and links the installed libomp.so.
llvm_prefix = os.path.dirname(bin)
def omp_file(name, subdirs):
    """The first `name` in this LLVM's `subdirs`, else in the newest other
    LLVM under /usr/lib/llvm-N."""
    import glob, re
    prefixes = [llvm_prefix] + sorted(
        glob.glob("/usr/lib/llvm-*"), reverse=True,
        key=lambda d: int((re.findall(r"(\d+)$", d) or ["0"])[0]))
    for pre in prefixes:
        for sub in subdirs:
            hits = sorted(glob.glob(os.path.join(pre, sub, name)), reverse=True)
            if hits:
                return hits[0], pre == llvm_prefix
    return None, False
omp_h, omp_h_own = omp_file("omp.h", [f"lib/clang/{config.llvm_major}/include",
                                      "lib/clang/*/include"])
libomp = [p for p in (os.path.join(llvm_prefix, "lib", "libomp.so"),
                      "/usr/lib/x86_64-linux-gnu/libomp.so") if os.path.exists(p)]
omp_inc = ""
if omp_h and not omp_h_own:
    omp_dir = os.path.join(config.zymase_obj, "omp-include")
    link = os.path.join(omp_dir, "omp.h")
    os.makedirs(omp_dir, exist_ok=True)
    if os.path.realpath(link) != os.path.realpath(omp_h):
        # Atomic: several lit processes may configure at once.
        tmp = f"{link}.{os.getpid()}"
        os.symlink(omp_h, tmp)
        os.replace(tmp, link)
    omp_inc = f" -I{omp_dir}"
if omp_h and libomp:
    config.available_features.add("openmp")
# The OpenMP programs run with 1, 2 and 4 threads (%omp-run %t0); nothing
# OMP_ or KMP_ from the caller's environment reaches them (lit passes
# neither today; this keeps it so).
omp_run = "sh " + os.path.join(config.zymase_src, "test", "omp-run.sh")
config.substitutions.append(("%omp-run", omp_run))
for k in [k for k in config.environment if k.startswith(("OMP_", "KMP_"))]:
    del config.environment[k]
# Races: %archer-clang compiles with ThreadSanitizer, %archer-run runs the
# program with 2 and 4 threads under LLVM's Archer (libarcher.so, an OMPT
# tool that tells TSan about OpenMP's barriers, reductions, locks...); a
# race exits with status 66.  libomp itself is not instrumented, hence
# ignore_noninstrumented_modules.  Feature `archer` when libarcher.so and
# the TSan runtime exist and this is not the sanitizer build (its ASan
# preload would go into the TSan program; %archer-run drops LD_PRELOAD as
# well).  RUN: %if archer %{ %archer-clang -O2 %s -lm -o %ta && %archer-run %ta %}
archer, _ = omp_file("libarcher.so", ["lib"])
tsan_rt = [p for p in __import__("glob").glob(
    os.path.join(llvm_prefix, "lib", "clang", "*", "lib", "**", "libclang_rt.tsan*.a"),
    recursive=True)]
config.substitutions.append(("%archer-run", (
    f"env -u LD_PRELOAD OMP_TOOL_LIBRARIES={archer} ARCHER_OPTIONS=verbose=1 "
    "TSAN_OPTIONS=halt_on_error=1:exitcode=66:ignore_noninstrumented_modules=1 "
    f"{omp_run} --threads=2,4")))
if archer and tsan_rt and omp_h and libomp and not getattr(config, "sanitizer_preload", ""):
    config.available_features.add("archer")

# GPU on CPU (test/gpu/*.cu): CUDA programs built by zymase-clang
# --gpu-on-cpu with this build's plugin and runtime (libzymase-gpu.a beside
# the plugin).  Feature `cuda` when this clang compiles the CUDA headers at
# /usr/local/cuda (CUDA 13 needs clang 22; LLVM 19 builds skip the tests).
cuda_path = os.environ.get("ZYMASE_CUDA_PATH", "/usr/local/cuda")
if int(config.llvm_major) >= 22 and \
        os.path.exists(os.path.join(cuda_path, "include", "cuda_runtime.h")):
    config.available_features.add("cuda")
# Feature `cuda-native` when CUDA's ptxas, libdevice and libcudart are
# there too: %cuda-native builds a program for a real GPU (sm_80), plugin
# on the device side, so that the PTX the gradients become is checked by
# ptxas; feature `cuda-gpu` when nvidia-smi lists a GPU to run it on.
cuda_files = [os.path.join(cuda_path, "bin", "ptxas"),
              os.path.join(cuda_path, "nvvm", "libdevice", "libdevice.10.bc"),
              os.path.join(cuda_path, "lib64", "libcudart.so")]
if "cuda" in config.available_features and \
        all(os.path.exists(f) for f in cuda_files):
    config.available_features.add("cuda-native")
    cccl = os.path.join(cuda_path, "include", "cccl")
    cccl = f"-isystem {cccl} " if os.path.isdir(cccl) else ""
    config.substitutions.append(("%cuda-native", (
        f"{bin}/clang++ -x cuda --cuda-gpu-arch=sm_80 --cuda-path={cuda_path} "
        "-Xclang -target-sdk-version=12.0 -Wno-unknown-cuda-version "
        f"-fpass-plugin={plugin} -I{inc} -I{pub} {cccl}-L{cuda_path}/lib64 "
        f"-Wl,-rpath,{cuda_path}/lib64 -lcudart")))
    import shutil as _sh, subprocess as _sp
    if _sh.which("nvidia-smi"):
        try:
            listed = _sp.run(["nvidia-smi", "-L"], capture_output=True,
                             text=True, timeout=30).stdout
        except Exception:
            listed = ""
        if "GPU" in listed:
            config.available_features.add("cuda-gpu")
# Feature `hip` when the HIP headers of Debian's libamdhip64-dev (HIP 5.2)
# are installed (tools/install-deps), for the HIP programs (test/gpu/*.hip);
# clang 19 and 22 both compile them.
hip_include = os.environ.get("ZYMASE_HIP_INCLUDE", "/usr/include")
if os.path.exists(os.path.join(hip_include, "hip", "hip_runtime.h")):
    config.available_features.add("hip")
config.substitutions.append(("%gpu-clang", (
    f"env ZYMASE_PLUGIN={plugin} ZYMASE_CLANG={bin}/clang "
    f"{os.path.join(config.zymase_src, 'tools', 'zymase-clang')} --gpu-on-cpu "
    f"-I{inc} -I{pub}")))
for k in [k for k in config.environment if k.startswith("ZYMASE_GPU")]:
    del config.environment[k]
# ThreadSanitizer for the GPU-on-CPU race fixture (not in the sanitizer
# build, whose ASan preload would go into the TSan program).
if tsan_rt and not getattr(config, "sanitizer_preload", ""):
    config.available_features.add("tsan")

# %check-unchanged: tools/check-unchanged with this build's clang and plugin
# (the plugin changes no code it does not differentiate).
config.substitutions.append(("%check-unchanged", (
    f"python3 {os.path.join(config.zymase_src, 'tools', 'check-unchanged')} "
    f"--clang {bin}/clang --plugin {plugin} -j1")))
config.substitutions.append(("%zyopt", f"{bin}/opt -load-pass-plugin={plugin} -passes=zymase"))
config.substitutions.append(("%opt", f"{bin}/opt -load-pass-plugin={plugin}"))
# %clang-plugin: clang with the clang plugin (-fplugin), which teaches clang
# Enzyme's attributes and runs the pass, as Enzyme users load Enzyme.
if config.zymase_clang_plugin:
    config.available_features.add("clang-plugin")
    config.substitutions.append(("%clang-plugin", f"{bin}/clang -fplugin={config.zymase_clang_plugin} -I{inc} -I{pub}{omp_inc}"))
clang = f"{bin}/clang -fpass-plugin={plugin} -I{inc} -I{pub} -Wno-unknown-attributes{omp_inc}"
config.substitutions.append(("%archer-clang", f"{clang} -fopenmp -fsanitize=thread -g"))
config.substitutions.append(("%clang", clang))
config.substitutions.append(("%FileCheck", f"{bin}/FileCheck"))
config.substitutions.append(("%not", f"{bin}/not"))
config.substitutions.append(("%plugin", plugin))
# Runs a test program under valgrind: no invalid access, no definite leak.
valgrind = "valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite"
# The quick set (lit feature `quick`): the sanitizer build, which checks the
# plugin, not the code it generates (the same as the plain build's), and a
# build configured with -DZYMASE_TEST_QUICK=ON (tools/run-tests NN-quick:
# CI's LLVM 19 run beside the full LLVM 22 one).  It skips the valgrind runs
# (the slowest part of the loop tests) and the extra optimization levels
# (RUN: %if !quick %{ ... %}: -O1, -O3 and the other variants a full run
# adds): the plugin sees the same kinds of IR at -O0 and -O2, which it
# still runs.
if getattr(config, "sanitizer_preload", ""):
    config.available_features.add("sanitizer")
if getattr(config, "sanitizer_preload", "") or \
        getattr(config, "test_quick", "OFF").upper() in ("ON", "1", "TRUE", "YES"):
    valgrind = "true"
    config.available_features.add("quick")
config.substitutions.append(("%valgrind", valgrind))
config.available_features.add(f"llvm{config.llvm_major}")

# BLAS for the blas-* tests (tools/install-deps installs both): OpenBLAS,
# and the reference BLAS linked by path with an rpath so that the
# libblas.so.3 alternative cannot swap it for OpenBLAS at run time.
libdir = "/usr/lib/x86_64-linux-gnu"
if os.path.exists(os.path.join(libdir, "libopenblas.so")) and \
        os.path.exists("/usr/include/x86_64-linux-gnu/cblas.h"):
    config.available_features.add("openblas")
    config.substitutions.append(("%openblas", "-lopenblas"))
    config.environment["OPENBLAS_NUM_THREADS"] = "1"
refblas = os.path.join(libdir, "blas", "libblas.so.3")
if os.path.exists(refblas):
    config.available_features.add("refblas")
    config.substitutions.append(
        ("%refblas", f"{refblas} -Wl,-rpath,{os.path.dirname(refblas)}"))
config.environment["PATH"] = bin + os.pathsep + config.environment.get("PATH", "")

# A sanitizer build of the plugin (-DZYMASE_SANITIZE=ON) runs inside the
# uninstrumented clang and opt with the sanitizer runtimes preloaded.  Leak
# checking is off: clang frees nothing at exit by design.
if config.sanitizer_preload:
    config.environment["LD_PRELOAD"] = config.sanitizer_preload
    config.environment["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=1"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"

# MPI for the mpi-* tests (tools/install-deps installs both): Open MPI
# (feature mpi: %mpi-flags, %mpirun N) and MPICH (feature mpich:
# %mpich-flags, %mpichrun N).  Open MPI refuses to run as root (CI does)
# unless told, and needs --oversubscribe for more ranks than cores.  MPICH
# (ch4:ucx) polls without yielding (it has no setting to yield: its
# MPIR_CVAR_POLLS_BEFORE_YIELD is ch3's): the tests run it mostly on 2
# ranks (5 runs on 3), so that a 2-core machine does not crawl.
import shutil
# In the sanitizer build the runtimes preloaded for the plugin stay out of
# the launchers and the (uninstrumented) MPI programs.
mpi_env = "env -u LD_PRELOAD " if config.sanitizer_preload else ""
ompi_inc = "/usr/lib/x86_64-linux-gnu/openmpi/include"
if os.path.exists(os.path.join(ompi_inc, "mpi.h")) and shutil.which("mpirun.openmpi"):
    config.available_features.add("mpi")
    config.substitutions.append(
        ("%mpi-flags", f"-I{ompi_inc} -L/usr/lib/x86_64-linux-gnu/openmpi/lib -lmpi"))
    config.substitutions.append(
        ("%mpirun", mpi_env + "mpirun.openmpi --allow-run-as-root --oversubscribe --bind-to none -np"))
    config.environment["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
    config.environment["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    config.environment["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
    config.environment["OMPI_MCA_btl_vader_single_copy_mechanism"] = "none"
    # A rank waiting for a message yields the core instead of spinning: on
    # an oversubscribed machine (ranks beside other tests) the spinning
    # ranks took the cores from the ones with work (mpi-contiguous at 3
    # ranks: 11.9 CPU seconds and 24 s spinning, 1.0 and 2 s yielding).
    config.environment["OMPI_MCA_mpi_yield_when_idle"] = "1"
mpich_inc = "/usr/include/x86_64-linux-gnu/mpich"
if os.path.exists(os.path.join(mpich_inc, "mpi.h")) and shutil.which("mpiexec.mpich"):
    config.available_features.add("mpich")
    config.substitutions.append(("%mpich-flags", f"-I{mpich_inc} -lmpich"))
    config.substitutions.append(("%mpichrun", mpi_env + "mpiexec.mpich -n"))
for var in ("HOME", "TMPDIR"):  # Open MPI's session directory
    if var in os.environ:
        config.environment.setdefault(var, os.environ[var])
