// errors/unsupported-loop.c - a loop in the differentiated function is not supported yet: an unsupported error naming the function, at -O0 and after -O2 (loop still present).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);

// The location is inside the loop (lines 17-18), not the function header.
// CHECK: unsupported-loop.c:{{1[78]}}:{{[0-9]+}}: error: [zymase:unsupported] cannot differentiate 'f': the function contains a loop
// CHECK-NEXT: instruction:
// CHECK: 1 error generated
// NOG: unsupported-loop.c:{{[0-9]+}}:{{[0-9]+}}: error: [zymase:unsupported] cannot differentiate 'f': the function contains a loop
double f(double x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s = s * x + 1;
  return s;
}

double g(double x, int n) { return __enzyme_autodiff((void *)f, x, n); }
