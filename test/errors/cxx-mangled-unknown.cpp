// errors/cxx-mangled-unknown.cpp - C++ declarations of Enzyme's interface without extern "C" are mangled; one Zymase lacks (__enzyme_iter) is a located error, not a link failure, and one it implements (__enzyme_batch) is lowered under its mangled name (here refused for the missing enzyme_width).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_batch(void *, ...);
unsigned long __enzyme_iter(unsigned long, unsigned long);

double f(double x) { return x * x; }

double g(double x) {
  // CHECK: cxx-mangled-unknown.cpp:[[@LINE+2]]:10: error: [zymase:bad-marker] {{.*}}__enzyme_batch needs enzyme_width
  // CHECK-NEXT: instruction: {{.*}}call {{.*}}@_Z14__enzyme_batchPvz(
  return __enzyme_batch((void *)f, x, 1.0);
}

unsigned long h() {
  // CHECK: cxx-mangled-unknown.cpp:[[@LINE+2]]:10: error: [zymase:bad-call] {{.*}}'_Z13__enzyme_itermm' is part of Enzyme's interface that Zymase does not implement
  // CHECK: 2 errors generated
  return __enzyme_iter(12, 1);
}
