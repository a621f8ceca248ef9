// errors/fwddiff-unsupported.c - __enzyme_fwddiff (forward mode) is not supported: a bad-call error at the call.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_fwddiff(void *, ...);

double f(double x) { return x * x; }

double g(double x) {
  // CHECK: fwddiff-unsupported.c:[[@LINE+4]]:10: error: [zymase:bad-call] '__enzyme_fwddiff' is not supported
  // CHECK-NEXT: instruction: {{.*}}call double (ptr, ...) @__enzyme_fwddiff(ptr
  // CHECK: 1 error generated
  // NOG: error: [zymase:bad-call] '__enzyme_fwddiff' is not supported
  return __enzyme_fwddiff((void *)f, x, 1.0);
}
