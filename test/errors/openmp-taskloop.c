// errors/openmp-taskloop.c - `#pragma omp taskloop` inside a function given to
// __enzyme_autodiff (with an active pointer) is refused at compile time with an
// error that names the construct (OpenMP support, issue #15).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openmp
// RUN: %not %clang -fopenmp -O0 -g -c %s -o /dev/null 2>&1 | %FileCheck %s --check-prefixes=CHECK,G --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -fopenmp -O2 -g -c %s -o /dev/null 2>&1 | %FileCheck %s --check-prefixes=CHECK,G --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -fopenmp -O0 -c %s -o /dev/null 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -fopenmp -O2 -c %s -o /dev/null 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// The wording is not fixed: the line must say error, name the function,
// and name the construct together with OpenMP or its runtime function.
// G: openmp-taskloop.c:{{[0-9]+}}:{{[0-9]+}}:
// CHECK: error: {{.*'f(\.[^']*)?'}}{{(.*(OpenMP|__kmpc).*[Tt]askloop|.*[Tt]askloop.*(OpenMP|__kmpc))}}
#include <math.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;

double f(double *x, int n) {
  double s = 0;
#pragma omp parallel
#pragma omp single
#pragma omp taskloop grainsize(4)
  for (int i = 0; i < n; i++)
    x[i] = sin(x[i]);
  for (int i = 0; i < n; i++)
    s += x[i];
  return s;
}

void df(double *x, double *dx, int n) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
}
