// The same input gives byte-identical output: two compilations of test
// programs with branches, calls, recursion and many rules are compared.
// RUN: %clang -O0 -S -emit-llvm %S/../../integration/calls.c -o %t.a0.ll
// RUN: %clang -O0 -S -emit-llvm %S/../../integration/calls.c -o %t.b0.ll
// RUN: diff %t.a0.ll %t.b0.ll
// RUN: %clang -O2 -S -emit-llvm %S/../../integration/calls.c -o %t.a2.ll
// RUN: %clang -O2 -S -emit-llvm %S/../../integration/calls.c -o %t.b2.ll
// RUN: diff %t.a2.ll %t.b2.ll
// RUN: %clang -O2 -S -emit-llvm %S/../../integration/rules-special.c -o %t.c2.ll
// RUN: %clang -O2 -S -emit-llvm %S/../../integration/rules-special.c -o %t.d2.ll
// RUN: diff %t.c2.ll %t.d2.ll
// RUN: grep -q __zymase_grad %t.a2.ll
