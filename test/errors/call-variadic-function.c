// errors/call-variadic-function.c - an active value passed to a variadic function (one with a body, one without; both pure) is an unsupported error at the call.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'
#include <stdarg.h>

double __enzyme_autodiff(void *, ...);
__attribute__((pure)) double vsum(int n, ...);

__attribute__((noinline, pure)) double first(int n, ...) {
  va_list ap;
  va_start(ap, n);
  double v = va_arg(ap, double);
  va_end(ap);
  return v;
}

// CHECK: call-variadic-function.c:[[@LINE+3]]:29: error: [zymase:unsupported] cannot differentiate 'f': calls to variadic functions are not differentiated
// CHECK-NEXT: instruction: {{.*}}call double (i32, ...) @first(i32 {{.*}}, double
// NOG: error: [zymase:unsupported] cannot differentiate 'f': calls to variadic functions are not differentiated
double f(double x) { return first(1, x * x) * x; }

// CHECK: call-variadic-function.c:[[@LINE+4]]:29: error: [zymase:unsupported] cannot differentiate 'h': calls to variadic functions are not differentiated
// CHECK-NEXT: instruction: {{.*}}call double (i32, ...) @vsum(i32 {{.*}}1, double
// CHECK: 2 errors generated
// NOG: error: [zymase:unsupported] cannot differentiate 'h': calls to variadic functions are not differentiated
double h(double x) { return vsum(1, x) * x; }

double g(double x) {
  return __enzyme_autodiff((void *)f, x) + __enzyme_autodiff((void *)h, x);
}
