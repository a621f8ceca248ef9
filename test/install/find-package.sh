#!/bin/sh
# find-package.sh - test install/find-package: installs the build into a
# temporary prefix, builds the external project test/install/project with
# find_package(Zymase) and Zymase::Flags and runs it (it checks its
# gradient against finite differences), checks that a non-clang and a clang
# of another major are refused, and runs the installed zymase-clang.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Usage: find-package.sh BUILD-DIR SOURCE-DIR LLVM-MAJOR CLANG
set -u
build=$1 src=$2 llvm=$3 clang=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/zymase-find-package.XXXXXX") || exit 1
failed=0
fail() {
  echo "FAIL: $*"
  failed=1
}
# Runs a command quietly; prints its output when it fails.
run() {
  if "$@" >"$tmp/log" 2>&1; then
    return 0
  fi
  cat "$tmp/log"
  return 1
}

prefix=$tmp/prefix
project=$src/test/install/project
if ! run cmake --install "$build" --prefix "$prefix"; then
  echo "FAIL: cmake --install $build --prefix $prefix"
  exit 1
fi
for f in lib/zymase/Zymase-$llvm.so bin/zymase-clang bin/zymase-clang-$llvm \
  include/zymase/enzyme.h lib/cmake/Zymase/ZymaseConfig.cmake \
  lib/cmake/Zymase/ZymaseConfigVersion.cmake share/doc/zymase/README.md; do
  [ -f "$prefix/$f" ] || fail "cmake --install did not install $f"
done
grep -q "^$prefix/lib/zymase/Zymase-$llvm.so\$" "$build/install_manifest.txt" ||
  fail "$build/install_manifest.txt does not list the plugin"

# The external project, with the matching clang: builds, and its gradient
# is right.
if ! run env CC="$clang" cmake -S "$project" -B "$tmp/app" \
  -DCMAKE_PREFIX_PATH="$prefix"; then
  fail "configuring $project with CC=$clang and Zymase in $prefix"
elif ! grep -q "Zymase for LLVM $llvm: $prefix/lib/zymase/Zymase-$llvm.so" \
  "$tmp/log"; then
  cat "$tmp/log"
  fail "find_package(Zymase) did not report $prefix/lib/zymase/Zymase-$llvm.so"
elif ! run cmake --build "$tmp/app"; then
  fail "building $project with Zymase::Flags"
elif ! run "$tmp/app/app"; then
  fail "the gradient of the project built with Zymase::Flags is wrong"
else
  echo "ok: find_package(Zymase) + Zymase::Flags with $clang: $(cat "$tmp/log")"
fi

# Refused: a compiler that is not clang, and a clang of another major.
refused() { # NAME COMPILER
  if env CC="$2" cmake -S "$project" -B "$tmp/refused-$1" \
    -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/log" 2>&1; then
    cat "$tmp/log"
    fail "find_package(Zymase) accepted $2 ($1)"
  elif ! grep -q "Zymase: the C compiler $2 is" "$tmp/log"; then
    cat "$tmp/log"
    fail "find_package(Zymase) did not say why $2 ($1) is refused"
  else
    echo "ok: find_package(Zymase) refuses $2 ($1)"
  fi
}
for cc in gcc cc; do
  if command -v "$cc" >/dev/null 2>&1 &&
    ! "$cc" --version 2>/dev/null | grep -q clang; then
    refused not-clang "$(command -v "$cc")"
    break
  fi
done
other=
for c in /usr/lib/llvm-*/bin/clang; do
  [ -x "$c" ] || continue
  m=$("$c" -dumpversion 2>/dev/null | sed 's/\..*//')
  if [ -n "$m" ] && [ "$m" != "$llvm" ]; then
    other=$c
    break
  fi
done
if [ -n "$other" ]; then
  refused other-major "$other"
else
  echo "note: no clang of another major than $llvm here: that refusal is not checked"
fi

# The installed zymase-clang finds the installed plugin (the newest, and the
# only one here) relative to itself, as does zymase-clang-NN.
for w in zymase-clang zymase-clang-$llvm; do
  if ! run env -u ZYMASE_LLVM -u ZYMASE_PLUGIN -u ZYMASE_CLANG \
    "$prefix/bin/$w" -O2 -I"$prefix/include" "$project/app.c" -lm \
    -o "$tmp/$w"; then
    fail "$prefix/bin/$w could not compile $project/app.c"
  elif ! run "$tmp/$w"; then
    fail "the gradient of $project/app.c compiled by $prefix/bin/$w is wrong"
  else
    echo "ok: installed $w: $(cat "$tmp/log")"
  fi
done

if [ "$failed" = 0 ]; then
  rm -rf "$tmp"
  echo "install/find-package: ok"
else
  echo "install/find-package: failed (files kept in $tmp)"
fi
exit "$failed"
