// errors/errno-read.c - a differentiated function that calls a math
// function and reads errno: the gradient makes math calls as pure
// functions of their arguments (a call whose result it does not need is
// not made), so errno there is not what the primal saw, and a branch on
// it would take the other side silently (the gradient of this f was 3
// instead of 6 before).  Refused at the load, -O0 and -O2; also where the
// math function is called by a function it calls (CALLEE_MATH: the read
// was folded to 0 before the check saw it, and the gradient was 3 instead
// of 6), and where errno is read by a function it calls after its own math
// call (CALLEE_READ: 3 instead of 6), refused at the call.  Writing errno
// only, or reading it in a call tree that calls no math function, or in
// the caller, is fine: the OK build checks those gradients (closed forms).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %not %clang -c -O0 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g %s -o %t.o 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 -g -DCALLEE_MATH %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=CM --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g -DCALLEE_MATH %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=CM --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O0 -g -DCALLEE_READ %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=CR --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -c -O2 -g -DCALLEE_READ %s -o %t.o 2>&1 | %FileCheck %s --check-prefix=CR --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %clang -O0 -DOK %s -lm -o %t0 && %t0
// RUN: %clang -O2 -DOK %s -lm -o %t2 && %t2
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_const;

#if defined(CALLEE_MATH)
// The math call in a function f calls (not inlined), errno read in f.
__attribute__((noinline)) static double h(double x, double big) {
  double e = exp(big);
  return x * x + (e > 1e300 ? 0.0 : e);
}
double f(double x, double big) {
  errno = 0;
  double v = h(x, big);
  // CM: errno-read.c:[[@LINE+1]]:{{[0-9]+}}: error: {{.*}}cannot differentiate 'f': reads errno, which the gradient does not keep: math functions ('h', which it calls, calls them)
  double s = errno == ERANGE ? 2.0 : 1.0;
  return s * v;
}
// CM: hint: read errno outside the differentiated function

double df(double x) { return __enzyme_autodiff((void *)f, x, enzyme_const, 1000.0); }
#elif defined(CALLEE_READ)
// The math call in f, errno read by a function f calls afterwards.
__attribute__((noinline)) static double scale(void) {
  return errno == ERANGE ? 2.0 : 1.0;
}
double f(double x, double big) {
  double e = exp(big);
  // CR: errno-read.c:[[@LINE+1]]:{{[0-9]+}}: error: {{.*}}cannot differentiate 'f': calls 'scale', which reads errno, which the gradient does not keep
  return scale() * x * x + (e > 1e300 ? 0.0 : e);
}
// CR: hint: read errno outside the differentiated function

double df(double x) { return __enzyme_autodiff((void *)f, x, enzyme_const, 1000.0); }
#elif !defined(OK)
double f(double x, double big) {
  errno = 0;
  double e = exp(big);
  // CHECK: errno-read.c:[[@LINE+1]]:{{[0-9]+}}: error: {{.*}}cannot differentiate 'f': reads errno, which the gradient does not keep
  double s = errno == ERANGE ? 2.0 : 1.0;
  return s * x * x + (e > 1e300 ? 0.0 : e);
}
// CHECK: hint: read errno outside the differentiated function

double df(double x) { return __enzyme_autodiff((void *)f, x, enzyme_const, 1000.0); }
#else
// errno set to 0 and never read: the exp loop's gradient as usual.
double g(const double *x, const int *n) {
  double s = 0;
  errno = 0;
  for (int i = 0; i < *n; i++)
    s += exp(x[i] * x[i]);
  return s;
}

// errno read, but no math function called: strtod's errno stays in order.
double h(double x, const char *text) {
  errno = 0;
  double v = strtod(text, NULL);
  return (errno == ERANGE ? 2.0 : 1.0) * v * x * x;
}

// errno read after a call that sets it (strtod), no math function in the
// call tree: kept in order.
__attribute__((noinline)) static double parse(const char *text) {
  return strtod(text, NULL);
}
double k(double x, const char *text) {
  errno = 0;
  double v = parse(text);
  return (errno == ERANGE ? 2.0 : 1.0) * v * x * x;
}

int main(void) {
  double x[3] = {0.5, -0.25, 1.0}, dx[3] = {0};
  int n = 3;
  __enzyme_autodiff((void *)g, x, dx, enzyme_const, &n);
  int bad = 0;
  for (int i = 0; i < 3; i++) {
    double want = 2 * x[i] * exp(x[i] * x[i]);
    if (fabs(dx[i] - want) > 1e-12 * fabs(want)) {
      printf("FAIL g dx[%d]: %.17g, want %.17g\n", i, dx[i], want);
      bad = 1;
    }
  }
  double d1 = __enzyme_autodiff((void *)h, 1.5, enzyme_const, "1e999");
  double d2 = __enzyme_autodiff((void *)h, 1.5, enzyme_const, "2");
  if (d1 != 2 * HUGE_VAL * 3 || d2 != 6) {
    printf("FAIL h: %g, %g, want inf, 6\n", d1, d2);
    bad = 1;
  }
  double k1 = __enzyme_autodiff((void *)k, 1.5, enzyme_const, "1e999");
  double k2 = __enzyme_autodiff((void *)k, 1.5, enzyme_const, "2");
  if (k1 != 2 * HUGE_VAL * 3 || k2 != 6) {
    printf("FAIL k: %g, %g, want inf, 6\n", k1, k2);
    bad = 1;
  }
  errno = 0;
  double r = exp(1000.0);
  if (errno != ERANGE || r != HUGE_VAL) /* the caller may read it */
    bad = 1;
  printf("%s\n", bad ? "FAILED" : "ok");
  return bad;
}
#endif
