// errors/memory-loop.c - a loop over enzyme_dup memory that is not unrolled (variable trip count) is an unsupported error.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);

double dot(const double *a, const double *b, int n) {
  double s = 0;
  // CHECK: memory-loop.c:[[@LINE+5]]:10: error: [zymase:unsupported] cannot differentiate 'dot': the function contains a loop
  // CHECK: hint: a loop with a small constant trip count is unrolled and works
  // CHECK: 1 error generated
  // NOG: error: [zymase:unsupported] cannot differentiate 'dot': the function contains a loop
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

double g(double *a, double *da, double *b, double *db) {
  return __enzyme_autodiff((void *)dot, a, da, b, db, 3);
}
