// A load in a loop iteration whose memory a later iteration overwrites
// (u[i + 1] is read in iteration i and written in iteration i + 1) must be
// cached: alias queries compare pointers of one iteration, where u[i] and
// u[i + 1] never alias, so the cache plan asks about any offset from the
// loaded pointer.  Checked against finite differences.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %clang -O0 -Xclang -load -Xclang %plugin -mllvm -zymase-verify -mllvm -zymase-no-preopt %s -lm -o %tn && %tn
#include <string.h>

#include "fd-memory.h"

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

#define N 8

/* u[i] = u[i+1]^2 + sin(u[i]) for i = 0 .. n-2, then sum u[i]^2 */
double shift_square(double *u, int n) {
  for (int i = 0; i + 1 < n; i++)
    u[i] = u[i + 1] * u[i + 1] + sin(u[i]);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += u[i] * u[i];
  return s;
}

/* The same reading two ahead through a pointer that walks the array. */
double walk_two(double *u, int n) {
  double *p = u;
  for (int i = 0; i + 2 < n; i++, p++)
    *p = p[2] * p[1] + 0.5 * *p;
  double s = 0;
  for (int i = 0; i < n; i++)
    s += u[i] * u[i] * u[i];
  return s;
}

static double copy_and(double (*f)(double *, int), const double *u0, int n) {
  double u[N];
  memcpy(u, u0, sizeof u);
  return f(u, n);
}

#define CHECK(f, u0, n)                                                        \
  do {                                                                         \
    double u_[N], du_[N] = {0}, fd_[N];                                        \
    memcpy(u_, u0, sizeof u_);                                                 \
    __enzyme_autodiff((void *)f, enzyme_dup, u_, du_, enzyme_const, n);        \
    for (int k = 0; k < N; k++)                                                \
      fd_[k] = ZY_DIFF_AT(u0, k, copy_and(f, u0, n));                          \
    zy_check_array(#f, du_, fd_, N, ZY_FD_TOL);                                \
  } while (0)

int main(void) {
  double u0[N] = {0.3, -0.7, 1.1, 0.4, -1.3, 0.9, 0.2, -0.5};
  for (int n = 1; n <= N; n += 3) {
    CHECK(shift_square, u0, n);
    CHECK(walk_two, u0, n);
  }
  return zy_report();
}
