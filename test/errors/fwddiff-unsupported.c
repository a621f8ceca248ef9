// errors/fwddiff-unsupported.c - what __enzyme_fwddiff does not support yet is a located error at the call or the construct: in vector mode (enzyme_width) enzyme_dupv on a float, a missing tangent and a global variable with derivatives (one shadow for several directions), enzyme_out (reverse mode's marker), calls without a body that touch derivatives, and floats copied through an integer (their tangents would be lost).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

#include <string.h>

double __enzyme_fwddiff(void *, ...);
typedef struct {
  double d[2];
} T2;
T2 __enzyme_fwddiff2(void *, ...);
double external(double);
extern int enzyme_width, enzyme_out, enzyme_dup, enzyme_dupv;

double f(double x) { return x * x; }

T2 dupv_float(double x) {
  // CHECK: fwddiff-unsupported.c:[[@LINE+3]]:10: error: [zymase:bad-marker] {{.*}}'enzyme_dupv' marks argument 1, which is not a pointer
  // CHECK: hint: pass the value's tangents after it, one per direction
  // NOG: error: [zymase:bad-marker] {{.*}}'enzyme_dupv' marks argument 1, which is not a pointer
  return __enzyme_fwddiff2((void *)f, enzyme_width, 2, enzyme_dupv, 8, x, 1.0);
}

T2 too_few(double x) {
  // CHECK: fwddiff-unsupported.c:[[@LINE+2]]:10: error: [zymase:bad-marker] {{.*}}tangent 2 of argument 1 is missing
  // CHECK: hint: with enzyme_width N, pass N tangents after the value
  return __enzyme_fwddiff2((void *)f, enzyme_width, 2, x, 1.0);
}

double state;
double keep(double x) {
  state = x * 2;
  return x * x;
}
T2 width_global(double x) {
  // CHECK: fwddiff-unsupported.c:[[@LINE-4]]:{{[0-9]+}}: error: [zymase:unsupported] {{.*}}vector forward mode (enzyme_width 2): a global variable with derivatives ('state')
  return __enzyme_fwddiff2((void *)keep, enzyme_width, 2, x, 1.0, 2.0);
}

double out(double x) {
  // CHECK: fwddiff-unsupported.c:[[@LINE+2]]:10: error: [zymase:bad-marker] {{.*}}'enzyme_out' marks argument 1: __enzyme_fwddiff takes no enzyme_out arguments
  // CHECK: hint: in forward mode pass the tangent after the value
  return __enzyme_fwddiff((void *)f, enzyme_out, x);
}

double bits(double *x, double *y) {
  long long b;
  memcpy(&b, x, 8);
  b ^= 1;
  memcpy(y, &b, 8);
  return y[0];
}
double punning(double *x, double *dx, double *y, double *dy) {
  // CHECK: fwddiff-unsupported.c:[[@LINE-4]]:{{[0-9]+}}: error: [zymase:unsupported] {{.*}}forward mode: floating-point data is stored as an integer
  return __enzyme_fwddiff((void *)bits, x, dx, y, dy);
}

double ext(double x) { return external(x) * x; }
double unknown(double x) {
  // CHECK: fwddiff-unsupported.c:[[@LINE-2]]:{{[0-9]+}}: error: [zymase:no-rule] {{.*}}forward mode: no derivative for a call to 'external'
  // CHECK: errors generated
  return __enzyme_fwddiff((void *)ext, x, 1.0);
}
