# lit configuration for Zymase.
# Substitutions:
#   %opt      opt with the plugin loaded     %zyopt  = %opt -passes=zymase
#   %clang    clang with the plugin (-fpass-plugin) and the test headers
#   %FileCheck, %not
import os
import lit.formats

config.name = "Zymase"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".ll", ".c", ".cpp"]
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

config.substitutions.append(("%zyopt", f"{bin}/opt -load-pass-plugin={plugin} -passes=zymase"))
config.substitutions.append(("%opt", f"{bin}/opt -load-pass-plugin={plugin}"))
# %clang-plugin: clang with the clang plugin (-fplugin), which teaches clang
# Enzyme's attributes and runs the pass, as Enzyme users load Enzyme.
if config.zymase_clang_plugin:
    config.available_features.add("clang-plugin")
    config.substitutions.append(("%clang-plugin", f"{bin}/clang -fplugin={config.zymase_clang_plugin} -I{inc} -I{pub}"))
config.substitutions.append(("%clang", f"{bin}/clang -fpass-plugin={plugin} -I{inc} -I{pub} -Wno-unknown-attributes"))
config.substitutions.append(("%FileCheck", f"{bin}/FileCheck"))
config.substitutions.append(("%not", f"{bin}/not"))
config.substitutions.append(("%plugin", plugin))
# Runs a test program under valgrind: no invalid access, no definite leak.
# The sanitizer build checks the plugin, not the code it generates, which
# is the same as the plain build's and checked there: it skips these runs
# (they are the slowest part of the loop tests).
valgrind = "valgrind -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite"
if getattr(config, "sanitizer_preload", ""):
    valgrind = "true"
    # For the same reason the integration tests' -O1 and -O3 runs are
    # skipped there (RUN: %if !sanitizer %{ ... %}): the plugin sees the
    # same kinds of IR at -O0 and -O2, which it still runs.
    config.available_features.add("sanitizer")
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
# (ch4:ucx) polls without yielding: the tests run it on 2 ranks (one test
# on 3), so that a 2-core machine does not crawl.
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
mpich_inc = "/usr/include/x86_64-linux-gnu/mpich"
if os.path.exists(os.path.join(mpich_inc, "mpi.h")) and shutil.which("mpiexec.mpich"):
    config.available_features.add("mpich")
    config.substitutions.append(("%mpich-flags", f"-I{mpich_inc} -lmpich"))
    config.substitutions.append(("%mpichrun", mpi_env + "mpiexec.mpich -n"))
for var in ("HOME", "TMPDIR"):  # Open MPI's session directory
    if var in os.environ:
        config.environment.setdefault(var, os.environ[var])
