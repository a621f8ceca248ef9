// errors/abi-custom-gradient-misfit.c - a custom gradient whose pair does
// not fit Enzyme's convention for its function is a located error: a
// reverse pass missing the return adjoint, a registration that is not
// three functions, a function_like name without a rule, an augmented
// forward pass that does not return a result the caller uses (the
// function writes memory, so it cannot run again for it).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_autodiff(void *, ...);

// CHECK-DAG: abi-custom-gradient-misfit.c:[[@LINE+1]]:1: error: [zymase:bad-registration] cannot differentiate 'f': the custom gradient '__enzyme_register_gradient_f' ({{.*}}abi-custom-gradient-misfit.c:[[@LINE+4]]): the reverse pass 'f_rev' takes 1 parameters; Enzyme's convention for 'f' gives it 2
double f(double x) { return x * x; }
void f_aug(double x) {}
double f_rev(double x) { return 2 * x; }
void *__enzyme_register_gradient_f[3] = {(void *)f, (void *)f_aug, (void *)f_rev};
double df(double x) { return __enzyme_autodiff((void *)f, x); }

// CHECK-DAG: abi-custom-gradient-misfit.c:[[@LINE+1]]:1: error: [zymase:bad-registration] cannot differentiate 'h': '__enzyme_register_gradient_h' ({{.*}}abi-custom-gradient-misfit.c:[[@LINE+2]]): a gradient registration must hold three functions
double h(double x) { return x; }
void *__enzyme_register_gradient_h[2] = {(void *)h, (void *)h};

// CHECK-DAG: abi-custom-gradient-misfit.c:[[@LINE+1]]:1: error: [zymase:bad-registration] cannot differentiate 'like': it is registered as like 'frobnicate', which has no derivative rule for a function of this type
double like(double x) { return x; }
void *__enzyme_function_like_like[2] = {(void *)like, (void *)"frobnicate"};

double counter;
double bump(double x) {
  counter += 1;
  return x * 3;
}
void bump_aug(double x) { counter += 1; }
double bump_rev(double x, double d) { return 3 * d; }
void *__enzyme_register_gradient_bump[3] = {(void *)bump, (void *)bump_aug,
                                            (void *)bump_rev};
// CHECK-DAG: abi-custom-gradient-misfit.c:[[@LINE+1]]:40: error: [zymase:bad-registration] cannot differentiate 'bump': the custom gradient '__enzyme_register_gradient_bump' {{.*}}: the result of the call is used, but the augmented forward pass does not return it
double use_bump(double x) { return 2 * bump(x); }
double dbump(double x) { return __enzyme_autodiff((void *)use_bump, x); }
