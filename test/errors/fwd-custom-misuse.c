// errors/fwd-custom-misuse.c - custom forward derivatives
// (__enzyme_register_derivative_f = {f, df}) that cannot serve are located
// errors: a df whose parameters are not f's each followed by its shadow
// (a missing tangent, an int given one), a df returning neither the
// tangent nor {result, tangent}, a registration of one function, a second
// registration for the same function; and a function with a custom
// gradient only (reverse mode) called in forward mode.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g -DGRADIENT_ONLY %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=GRAD --implicit-check-not=PLEASE --implicit-check-not='internal error'

double __enzyme_fwddiff(void *, ...);

#ifndef GRADIENT_ONLY
// CHECK-DAG: fwd-custom-misuse.c:[[@LINE+2]]:{{[0-9]+}}: error: [zymase:bad-registration] cannot differentiate 'missing': '__enzyme_register_derivative_missing' ({{.*}}): the forward derivative's type does not fit the function
// CHECK-DAG: hint: the forward derivative takes the function's parameters, each pointer and floating-point one followed by its shadow or tangent
double missing(double x, double y) { return x * y; }
double dmissing(double x, double dx, double y) { return dx * y; }
void *__enzyme_register_derivative_missing[2] = {(void *)missing,
                                                 (void *)dmissing};

// CHECK-DAG: fwd-custom-misuse.c:[[@LINE+1]]:{{[0-9]+}}: error: [zymase:bad-registration] cannot differentiate 'intshadow': {{.*}}the forward derivative's type does not fit the function
double intshadow(double x, int n) { return x * n; }
double dintshadow(double x, double dx, int n, int dn) { return dx * n; }
void *__enzyme_register_derivative_intshadow[2] = {(void *)intshadow,
                                                   (void *)dintshadow};

// CHECK-DAG: fwd-custom-misuse.c:[[@LINE+2]]:{{[0-9]+}}: error: [zymase:bad-registration] cannot differentiate 'badret': {{.*}}the forward derivative's type does not fit the function
typedef struct { double a, b, c; } Three;
double badret(double x) { return x; }
Three dbadret(double x, double dx) { return (Three){x, dx, 0}; }
void *__enzyme_register_derivative_badret[2] = {(void *)badret,
                                                (void *)dbadret};

// CHECK-DAG: fwd-custom-misuse.c:[[@LINE+1]]:{{[0-9]+}}: error: [zymase:bad-registration] cannot differentiate 'alone': '__enzyme_register_derivative_alone' ({{.*}}): a forward derivative registration must hold two functions
double alone(double x) { return x; }
void *__enzyme_register_derivative_alone[1] = {(void *)alone};

// CHECK-DAG: fwd-custom-misuse.c:[[@LINE+1]]:{{[0-9]+}}: error: [zymase:bad-registration] cannot differentiate 'twice': '__enzyme_register_derivative_twice2' ({{.*}}): a second forward derivative for the same function
double twice(double x) { return x; }
double dtwice(double x, double dx) { return dx; }
void *__enzyme_register_derivative_twice1[2] = {(void *)twice, (void *)dtwice};
void *__enzyme_register_derivative_twice2[2] = {(void *)twice, (void *)dtwice};

double use(double x) { return missing(x, x) + intshadow(x, 2) + badret(x); }
double tangent(double x) { return __enzyme_fwddiff((void *)use, x, 1.0); }
#else
// GRAD: fwd-custom-misuse.c:[[@LINE+8]]:{{[0-9]+}}: error: [zymase:unsupported] cannot differentiate 'use_step': forward mode: the function has a custom gradient (__enzyme_register_gradient), which serves reverse mode only, and no custom forward derivative (a call to 'step')
// GRAD: hint: register its forward derivative too: void *__enzyme_register_derivative_f[2] = {(void *)f, (void *)forward_f};
__attribute__((noinline)) double step(double x) { return x > 0 ? x : 0; }
double step_aug(double x) { return step(x); }
double step_rev(double x, double d) { return d; }
void *__enzyme_register_gradient_step[3] = {(void *)step, (void *)step_aug,
                                            (void *)step_rev};

double use_step(double x) { return step(x) * x; }
double tangent(double x) { return __enzyme_fwddiff((void *)use_step, x, 1.0); }
#endif
