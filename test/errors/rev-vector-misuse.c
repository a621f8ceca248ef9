// errors/rev-vector-misuse.c - vector reverse mode (enzyme_width N in __enzyme_autodiff) refuses, with a located error at the call or the construct: a width of 0, a pointer missing one of its N shadows, a declared result too small for the N adjoints of each active argument, in split mode a reverse pass given more return adjoints than lanes or another width than the forward pass (it would misread the tape), and what one forward sweep cannot serve for several lanes: a global variable with derivatives (one shadow), a call of a function with a custom gradient (its pair takes one shadow per pointer), a BLAS call, and realloc of memory the function did not allocate.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=NOG --implicit-check-not=PLEASE --implicit-check-not='internal error'

#include <stdlib.h>

typedef struct {
  double d[2];
} T2;
double __enzyme_autodiff(void *, ...);
T2 __enzyme_autodiff2(void *, ...);
void __enzyme_autodiff_void(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
T2 __enzyme_reverse(void *, ...);
double cblas_ddot(int n, const double *x, int incx, const double *y, int incy);
extern int enzyme_width, enzyme_dup, enzyme_dupv, enzyme_const;

double f(double x) { return x * x; }

T2 width_zero(double x) {
  // CHECK: rev-vector-misuse.c:[[@LINE+2]]:10: error: [zymase:bad-marker] {{.*}}enzyme_width must be followed by a constant number of directions from 1 to 64
  // NOG: error: [zymase:bad-marker] {{.*}}enzyme_width must be followed by a constant number of directions from 1 to 64
  return __enzyme_autodiff2((void *)f, enzyme_width, 0, x);
}

void scale(double *p) { *p *= 3; }
void missing_shadow(double *p, double *d0, double *d1) {
  // CHECK: rev-vector-misuse.c:[[@LINE+3]]:3: error: [zymase:bad-marker] {{.*}}shadow 3 of pointer argument 1 is missing
  // CHECK: hint: pass the shadow after the pointer (with enzyme_width N, N shadows, or enzyme_dupv, stride and one)
  // NOG: error: [zymase:bad-marker] {{.*}}shadow 3 of pointer argument 1 is missing
  __enzyme_autodiff_void((void *)scale, enzyme_width, 3, enzyme_dup, p, d0, d1);
}

double too_small(double x) {
  // CHECK: rev-vector-misuse.c:[[@LINE+3]]:10: error: [zymase:bad-return] {{.*}}the declared return type (double, 8 bytes) cannot hold the 2 gradients (16 bytes)
  // CHECK: hint: {{.*}}with enzyme_width N, an array of N such values per active argument
  // NOG: error: [zymase:bad-return] {{.*}}cannot hold the 2 gradients
  return __enzyme_autodiff((void *)f, enzyme_width, 2, x);
}

T2 split_adjoints(double x) {
  void *tape = __enzyme_augmentfwd((void *)f, enzyme_width, 2, x);
  // CHECK: rev-vector-misuse.c:[[@LINE+3]]:10: error: [zymase:bad-call] {{.*}}too many return adjoints: enzyme_width 2 takes 2
  // CHECK: hint: pass the N adjoints of the result (a struct of N values, or N values), then the tape
  // NOG: error: [zymase:bad-call] {{.*}}too many return adjoints: enzyme_width 2 takes 2
  return __enzyme_reverse((void *)f, enzyme_width, 2, x, 1.0, 2.0, 3.0, tape);
}

double state;
double keep(double x) {
  state = x * 2;
  return x * state;
}
T2 global(double x) {
  // CHECK: rev-vector-misuse.c:[[@LINE-4]]:{{[0-9]+}}: error: [zymase:unsupported] {{.*}}vector reverse mode (enzyme_width 2): a global variable with derivatives ('state'), whose one shadow cannot hold several directions
  // NOG: error: [zymase:unsupported] {{.*}}vector reverse mode (enzyme_width 2): a global variable with derivatives ('state')
  return __enzyme_autodiff2((void *)keep, enzyme_width, 2, x);
}

double cube(double x) { return x * x * x; }
double cube_aug(double x) { return x * x * x; }
double cube_rev(double x, double dret) { return 3 * x * x * dret; }
void *__enzyme_register_gradient_cube[3] = {(void *)cube, (void *)cube_aug,
                                            (void *)cube_rev};
double uses_cube(double *p) { return cube(*p) + *p; }
void custom(double *p, double *d0, double *d1) {
  // CHECK: rev-vector-misuse.c:[[@LINE-2]]:{{[0-9]+}}: error: [zymase:unsupported] {{.*}}vector reverse mode (enzyme_width 2): a call of a function with a custom gradient ('cube') is not supported
  // CHECK: hint: the registered augmented forward and reverse take one shadow per pointer
  // NOG: error: [zymase:unsupported] {{.*}}a call of a function with a custom gradient ('cube')
  __enzyme_autodiff_void((void *)uses_cube, enzyme_width, 2, p, d0, d1);
}

double dot(const double *x, const double *y) { return cblas_ddot(3, x, 1, y, 1); }
void blas(double *x, double *dx, double *y) {
  // CHECK: rev-vector-misuse.c:[[@LINE-2]]:{{[0-9]+}}: error: [zymase:unsupported] {{.*}}vector reverse mode (enzyme_width 4): a BLAS call ('cblas_ddot') is not supported
  // CHECK: hint: call __enzyme_autodiff once per direction (without enzyme_width)
  // NOG: error: [zymase:unsupported] {{.*}}a BLAS call ('cblas_ddot')
  __enzyme_autodiff_void((void *)dot, enzyme_width, 4, enzyme_dupv, 24, x, dx,
                         enzyme_const, y);
}

double grow(double *p, int n) {
  p = realloc(p, 2 * n * sizeof *p);
  double s = p[0] * p[n - 1];
  free(p);
  return s;
}
void realloc_caller(double *p, double *dp) {
  // CHECK: rev-vector-misuse.c:[[@LINE-6]]:{{[0-9]+}}: error: [zymase:unsupported] {{.*}}vector reverse mode (enzyme_width 2): realloc of memory the function did not allocate is not supported
  // NOG: error: [zymase:unsupported] {{.*}}realloc of memory the function did not allocate
  __enzyme_autodiff_void((void *)grow, enzyme_width, 2, enzyme_dupv, 64, p, dp,
                         4);
}

double g2(double x, double y) { return x * y; }
T2 split_widths(double x, double y) {
  void *tape = __enzyme_augmentfwd((void *)g2, enzyme_width, 2, x, y);
  // (reported once every call is lowered)
  // CHECK: rev-vector-misuse.c:[[@LINE+2]]:10: error: [zymase:bad-call] {{.*}}this __enzyme_reverse differentiates with another activity than every __enzyme_augmentfwd of the function
  // NOG: error: [zymase:bad-call] {{.*}}this __enzyme_reverse differentiates with another activity
  return __enzyme_reverse((void *)g2, x, y, 1.0, tape);
}
