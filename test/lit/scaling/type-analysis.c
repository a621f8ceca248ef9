// Compile time scales linearly with the size of the differentiated code and
// the number of __enzyme_autodiff calls: a generated function of N loops in
// a row, differentiated N/20 times from main, at N = 40 and N = 160.  The
// plugin's own counters (-zymase-print-stats: type-analysis rules evaluated,
// type-tree entries inserted) may grow at most 6x for 4x the size (the
// fixpoint re-running every rule each round, or the caller analysed again
// for each call, made them grow 16x).  Not a timing: counts are exact.
// The last RUN line shows that the check fails on quadratic growth.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: python3 %S/gen-chain.py 40 > %tA.c
// RUN: python3 %S/gen-chain.py 160 > %tB.c
// RUN: %clang -O0 -Xclang -load -Xclang %plugin -mllvm -zymase-print-stats -c %tA.c -o %tA.o 2> %tA.o0
// RUN: %clang -O0 -Xclang -load -Xclang %plugin -mllvm -zymase-print-stats -c %tB.c -o %tB.o 2> %tB.o0
// RUN: python3 %S/gen-chain.py --check %tA.o0 %tB.o0 | %FileCheck %s
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-print-stats -c %tA.c -o %tA.o 2> %tA.o2
// RUN: %clang -O2 -Xclang -load -Xclang %plugin -mllvm -zymase-print-stats -c %tB.c -o %tB.o 2> %tB.o2
// RUN: python3 %S/gen-chain.py --check %tA.o2 %tB.o2 | %FileCheck %s
// RUN: %not python3 %S/gen-chain.py --check --max-ratio 3 %tA.o2 %tB.o2 | %FileCheck %s --check-prefix=STRICT
// CHECK: scaling: ok
// STRICT: scaling: FAIL
