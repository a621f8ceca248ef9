// A local array copied from the argument (memcpy, or a copy loop the
// optimizer turns into one) and then indexed by a variable, updated in
// place by noinline callees: its type is known at offset 0 only (the
// variable index), so the reverse sweep could not lay out the copy and
// refused it ("cannot deduce the type of the memory this copy moves"):
// the recursion at -O0, the loop at -O1 and -O2.  When the bytes cannot be
// laid out one by one, a copy whose known types are all one float type
// (and whole elements of it) now moves adjoints as that type, as copies
// too large to lay out already did.  Gradients and tangents against
// central differences; the primal against a plain evaluation.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// RUN: %clang -O0 %s -lm -o %t0 && %t0
// RUN: %clang -O2 %s -lm -o %t2 && %t2
// RUN: %if !quick %{ %clang -O1 %s -lm -o %t1 && %t1 %}
#include "fd.h"

#include <stdlib.h>
#include <string.h>

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup;

#define N 6
#define NOI __attribute__((noinline))

NOI void rec_inplace(double *p, int n) {
  if (n <= 1)
    return;
  p[1] += p[0] * p[0];
  rec_inplace(p + 1, n - 1);
}
double recursion(double *x) {
  double t[N];
  memcpy(t, x, sizeof t);
  rec_inplace(t, N);
  return t[N - 1] * t[2];
}
NOI void scale_inplace(double *p, int n, double s) {
  for (int i = 0; i < n; i++)
    p[i] *= s;
}
double scaled(double *x) {
  double t[N];
  for (int i = 0; i < N; i++)
    t[i] = x[i];
  for (int k = 0; k < 3; k++)
    scale_inplace(t + k, 3, t[k + 3]);
  double s = 0;
  for (int i = 0; i < N; i++)
    s += t[i] * t[i];
  return s;
}
double heap(double *x) {
  double *t = malloc(N * sizeof(double));
  memcpy(t, x, N * sizeof(double));
  for (int k = 0; k < 2; k++)
    scale_inplace(t + 2 * k, 4 - k, sin(t[k + 4]));
  double s = 0;
  for (int i = 0; i < N; i++)
    s += t[i] * x[(i + 1) % N];
  free(t);
  return s;
}

static double recursion_plain(const double *x) {
  double t[N];
  for (int i = 0; i < N; i++)
    t[i] = x[i];
  for (int i = 1; i < N; i++)
    t[i] += t[i - 1] * t[i - 1];
  return t[N - 1] * t[2];
}

#include "check-modes.h"
MODES(recursion)
MODES(scaled)
MODES(heap)

int main(void) {
  double x[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.4 + 0.3 * i - 0.05 * i * i + 0.01 * i * i * i;
  zy_check_close("recursion primal", recursion(x), recursion_plain(x), 1e-14);
  check("recursion", recursion, grad_recursion, tan_recursion, x);
  check("scaled", scaled, grad_scaled, tan_scaled, x);
  check("heap", heap, grad_heap, tan_heap, x);
  return zy_report();
}
