#!/bin/sh
# omp-run.sh - runs an OpenMP test program once per thread count (1, 2
# and 4 unless --threads=2,4 says otherwise) and fails at the first run
# that fails, with that run's exit status.  lit's %omp-run and %archer-run.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
threads="1 2 4"
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
