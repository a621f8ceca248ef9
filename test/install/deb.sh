#!/bin/sh
# deb.sh - test install/deb: builds the Debian packages with cpack, checks
# their dependencies (dpkg-deb -I) and files (dpkg-deb -c), extracts them
# (dpkg-deb -x, no dpkg -i) and runs the extracted zymase-clang, which must
# find the extracted plugin relative to itself, on a program whose gradient
# is checked.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Usage: deb.sh BUILD-DIR SOURCE-DIR LLVM-MAJOR
set -u
build=$1 src=$2 llvm=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/zymase-deb.XXXXXX") || exit 1
failed=0
fail() {
  echo "FAIL: $*"
  failed=1
}
run() {
  if "$@" >"$tmp/log" 2>&1; then
    return 0
  fi
  cat "$tmp/log"
  return 1
}
for t in cpack dpkg-deb; do
  command -v "$t" >/dev/null 2>&1 || {
    echo "FAIL: $t not found (tools/install-deps installs it)"
    exit 1
  }
done

if ! run cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/out"; then
  echo "FAIL: cpack -G DEB --config $build/CPackConfig.cmake"
  exit 1
fi
plugin_deb=$(ls "$tmp"/out/zymase-llvm"$llvm"_*.deb 2>/dev/null)
common_deb=$(ls "$tmp"/out/zymase-common_*_all.deb 2>/dev/null)
if [ -z "$plugin_deb" ] || [ -z "$common_deb" ]; then
  ls "$tmp/out"
  echo "FAIL: cpack made no zymase-llvm${llvm}_*.deb or zymase-common_*_all.deb"
  exit 1
fi

# Dependencies: the clang and LLVM library of this major, and the common files.
depends=$(dpkg-deb -f "$plugin_deb" Depends)
for d in "clang-$llvm" "libllvm$llvm" "zymase-common"; do
  printf '%s\n' "$depends" | tr ',' '\n' | sed 's/^ *//; s/ .*//' |
    grep -qx "$d" || fail "$plugin_deb: Depends: $depends, without $d"
done
[ "$(dpkg-deb -f "$plugin_deb" Package)" = "zymase-llvm$llvm" ] ||
  fail "$plugin_deb is not the package zymase-llvm$llvm"
dpkg-deb -I "$plugin_deb" >/dev/null || fail "dpkg-deb -I $plugin_deb"

echo "ok: $(basename "$plugin_deb"): Depends: $depends"

# Files, under /usr; the package of a major has none in common with another.
contents() { dpkg-deb -c "$1" | awk '{print $6}' | sed 's|^\./|/|'; }
contents "$plugin_deb" >"$tmp/plugin.txt"
contents "$common_deb" >"$tmp/common.txt"
for f in /usr/lib/zymase/Zymase-$llvm.so /usr/bin/zymase-clang-$llvm; do
  grep -qx "$f" "$tmp/plugin.txt" || fail "$plugin_deb has no $f"
done
for f in /usr/bin/zymase-clang /usr/include/zymase/enzyme.h \
  /usr/lib/cmake/Zymase/ZymaseConfig.cmake \
  /usr/lib/cmake/Zymase/ZymaseConfigVersion.cmake \
  /usr/share/doc/zymase/README.md; do
  grep -qx "$f" "$tmp/common.txt" || fail "$common_deb has no $f"
done
if grep -v '/$' "$tmp/plugin.txt" | grep -v "^/usr/" ||
  grep -v '/$' "$tmp/plugin.txt" | grep -v -e "-$llvm\.so\$" -e "-$llvm\$"; then
  fail "$plugin_deb has files outside /usr or not named for LLVM $llvm"
fi

# Extracted, the wrappers find the plugin beside them.
root=$tmp/root
dpkg-deb -x "$plugin_deb" "$root" && dpkg-deb -x "$common_deb" "$root" ||
  fail "dpkg-deb -x"
for w in zymase-clang zymase-clang-$llvm; do
  if ! run env -u ZYMASE_LLVM -u ZYMASE_PLUGIN -u ZYMASE_CLANG \
    "$root/usr/bin/$w" -O2 -I"$root/usr/include" \
    "$src/test/install/project/app.c" -lm -o "$tmp/$w"; then
    fail "the extracted $w could not compile app.c"
  elif ! run "$tmp/$w"; then
    fail "the gradient of app.c compiled by the extracted $w is wrong"
  else
    echo "ok: extracted $w: $(cat "$tmp/log")"
  fi
done

if [ "$failed" = 0 ]; then
  rm -rf "$tmp"
  echo "install/deb: ok"
else
  echo "install/deb: failed (files kept in $tmp)"
fi
exit "$failed"
