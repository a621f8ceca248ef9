#!/usr/bin/env python3
# gen-chain.py - input and check of the compile-time scaling test
# (type-analysis.c): `gen-chain.py N` prints a C program whose function
# runs N loops one after the other and whose main differentiates it N/20
# times; `gen-chain.py --check A B` reads the -zymase-print-stats lines of
# two compilations (sizes N and 4N) and fails when a count grew more than
# --max-ratio times (linear growth is 4x; quadratic would be 16x).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import re
import sys


def generate(n):
    out = ["#include <math.h>", "#include <stdio.h>",
           "double __enzyme_autodiff(void *, ...);",
           "extern int enzyme_dup, enzyme_const;",
           "double chain(const double *x, int n) {", "  double s = 0.5;"]
    for k in range(n):
        op = ["s * 0.99 + x[i] * x[i]", "s + sin(x[i]) * %d.0" % (k % 7 + 1),
              "s * cos(x[(i + %d) %% n])" % (k % 5), "s + x[i] / (1.0 + s * s)"][k % 4]
        out.append("  for (int i = 0; i < n; i++)")
        out.append("    s = %s;" % op)
    out += ["  return s;", "}", "int main(void) {",
            "  double x[8], dx[8], t = 0;",
            "  for (int i = 0; i < 8; i++) x[i] = 0.1 * (i + 1);"]
    for k in range(max(1, n // 20)):
        out.append("  for (int i = 0; i < 8; i++) dx[i] = 0;")
        out.append("  x[0] += 0.01;")
        out.append("  __enzyme_autodiff((void *)chain, enzyme_dup, x, dx, "
                   "enzyme_const, 8);")
        out.append("  t += dx[0];")
    out += ['  printf("%g\\n", t);', "  return 0;", "}"]
    print("\n".join(out))


def stats(path):
    with open(path) as f:
        for line in f:
            m = re.search(r"zymase-stats: (.*)", line)
            if m:
                w = m.group(1).split()
                return {w[i]: int(w[i + 1]) for i in range(0, len(w) - 1, 2)}
    sys.exit("gen-chain: no zymase-stats line in %s" % path)


def check(a, b, max_ratio):
    sa, sb = stats(a), stats(b)
    bad = 0
    for key in ("rules", "tree-insertions"):
        ratio = sb[key] / max(sa[key], 1)
        ok = ratio <= max_ratio
        print("%s: %d -> %d, x%.2f%s" % (key, sa[key], sb[key], ratio,
                                         "" if ok else " (more than x%g)" % max_ratio))
        bad |= not ok
    print("scaling: " + ("FAIL" if bad else "ok"))
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1] == "--check":
        limit = 6.0
        args = sys.argv[2:]
        if args[0] == "--max-ratio":
            limit, args = float(args[1]), args[2:]
        sys.exit(check(args[0], args[1], limit))
    generate(int(sys.argv[1]))
