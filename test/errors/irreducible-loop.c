// errors/irreducible-loop.c - a cycle entered at two blocks (a goto into a
// loop body) cannot be reversed: an unsupported error naming the function
// and pointing into the loop, at -O0 and -O2, with and without debug info.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);

// CHECK: irreducible-loop.c:{{2[0-9]}}:{{[0-9]+}}: error: [zymase:unsupported] cannot differentiate 'f': irreducible control flow
// CHECK: hint: restructure the loop
// CHECK: 1 error generated
// NOG: error: [zymase:unsupported] cannot differentiate 'f': irreducible control flow
double f(double x, int n) {
  double s = 0;
  int i = 0;
  if (n & 1)
    goto inside;
  while (i < n) {
    s = s * x;
  inside:
    s = s + x * x;
    i++;
  }
  return s;
}

double g(double x, int n) { return __enzyme_autodiff((void *)f, x, n); }
