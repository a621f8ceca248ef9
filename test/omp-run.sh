#!/bin/sh
# omp-run.sh - runs an OpenMP test program once per thread count (1, 2
# and 4 unless --threads=2,4 says otherwise) and fails at the first run
# that fails, with that run's exit status.  lit's %omp-run and %archer-run.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
threads="1 2 4"
# libomp (19 and 22 alike) runs schedule(dynamic[, c]) as its work-stealing
# "static steal" algorithm (the OpenMP 5 default is nonmonotonic), which
# sometimes aborts on a loaded machine with "Assertion failure at
# kmp_dispatch.cpp(1618): vnew.p.ub * (UT)chunk <= trip" - a plain program
# without the plugin too (llvm/llvm-project#86995, #132164; seen here 1 run
# in 20 with KMP_BLOCKTIME=0, and once in CI).  The monotonic dynamic
# schedule hands out chunks through the same __kmpc_dispatch_next calls the
# gradients cache, so the tests lose nothing by it.  The gradients ask for
# the monotonic schedule themselves (openmp.c); a test that sets the
# variable (openmp-dynamic-schedule.c: 0) checks them without it.
KMP_FORCE_MONOTONIC_DYNAMIC_SCHEDULE=${KMP_FORCE_MONOTONIC_DYNAMIC_SCHEDULE-1}
export KMP_FORCE_MONOTONIC_DYNAMIC_SCHEDULE
case "$1" in
--threads=*)
  threads=$(echo "${1#--threads=}" | tr ',' ' ')
  shift
  ;;
esac
if [ $# -eq 0 ]; then
  echo "usage: omp-run.sh [--threads=N,M,...] program [args...]" >&2
  exit 2
fi
for t in $threads; do
  echo "omp-run: OMP_NUM_THREADS=$t $*"
  OMP_NUM_THREADS=$t "$@"
  rc=$?
  if [ $rc -ne 0 ]; then
    echo "omp-run: '$1' failed with OMP_NUM_THREADS=$t (exit status $rc)" >&2
    exit $rc
  fi
done
