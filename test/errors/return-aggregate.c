// errors/return-aggregate.c - a function returning a struct or a vector of doubles has no scalar result to seed: a bad-return error.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);

typedef struct { double a, b; } P;
typedef double V2 __attribute__((ext_vector_type(2)));

P f(double x) { P p = {x * x, x}; return p; }
V2 h(double x) { V2 r = {x, x * x}; return r; }

double g(double x) {
  // CHECK: return-aggregate.c:[[@LINE+6]]:10: error: [zymase:bad-return] cannot differentiate 'f': the function returns an aggregate; __enzyme_autodiff needs a scalar floating-point result to seed
  // CHECK-NEXT: instruction: {{.*}}call double (ptr, ...) @__enzyme_autodiff(ptr {{.*}}@f, double
  // CHECK: return-aggregate.c:[[@LINE+5]]:10: error: [zymase:bad-return] cannot differentiate 'h': the function returns an aggregate
  // CHECK: 2 errors generated
  // NOG: error: [zymase:bad-return] cannot differentiate 'f': the function returns an aggregate
  // NOG: error: [zymase:bad-return] cannot differentiate 'h': the function returns an aggregate
  return __enzyme_autodiff((void *)f, x) +
         __enzyme_autodiff((void *)h, x);
}
