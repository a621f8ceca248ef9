// errors/memory-call-external-pointer.c - a pointer to memory with a shadow passed to a function without a body (or a variadic one) is an unsupported error at the call.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
#include <stdarg.h>

double __enzyme_autodiff(void *, ...);
double g(double *p);

__attribute__((noinline)) double first(int n, ...) {
  va_list ap;
  va_start(ap, n);
  double *p = va_arg(ap, double *);
  va_end(ap);
  return p[0];
}

double f(double *x) {
  // CHECK: memory-call-external-pointer.c:[[@LINE+4]]:10: error: [zymase:unsupported] cannot differentiate 'f': calls that receive pointers to memory with a shadow are not supported yet
  // CHECK-NEXT: instruction: {{.*}}call double @g(ptr
  // CHECK-NEXT: hint: pass the argument with enzyme_const if no derivative flows through its memory
  // NOG: error: [zymase:unsupported] cannot differentiate 'f': calls that receive pointers to memory with a shadow are not supported yet
  return g(x) + x[0];
}

double v(double *x) {
  // CHECK: memory-call-external-pointer.c:[[@LINE+4]]:10: error: [zymase:unsupported] cannot differentiate 'v': calls that receive pointers to memory with a shadow are not supported yet
  // CHECK-NEXT: instruction: {{.*}}call double (i32, ...) @first(i32 {{.*}}, ptr
  // CHECK: 2 errors generated
  // NOG: error: [zymase:unsupported] cannot differentiate 'v': calls that receive pointers to memory with a shadow are not supported yet
  return first(1, x) * x[1];
}

double h(double *x, double *dx) {
  return __enzyme_autodiff((void *)f, x, dx) +
         __enzyme_autodiff((void *)v, x, dx);
}
