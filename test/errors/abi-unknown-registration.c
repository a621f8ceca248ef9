// errors/abi-unknown-registration.c - a registration global of Enzyme's
// interface that Zymase does not implement (a split forward-mode derivative) is
// an error naming it and where it is, never ignored.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);

// CHECK: abi-unknown-registration.c:[[@LINE+2]]:1: error: [zymase:bad-registration] cannot differentiate 'f': '__enzyme_register_splitderivative_f' ({{.*}}abi-unknown-registration.c:[[@LINE+5]]): Zymase does not implement this kind of registration yet
// NOG: error: [zymase:bad-registration] cannot differentiate 'f': '__enzyme_register_splitderivative_f': Zymase does not implement this kind of registration yet
double f(double x) { return x * x; }
double df(double x, double dx) { return 2 * x * dx; }

void *__enzyme_register_splitderivative_f[2] = {(void *)f, (void *)df};

double g(double x) { return __enzyme_autodiff((void *)f, x); }
