// errors/rev-vector-openmp.c - an OpenMP parallel region in a function given to __enzyme_autodiff with enzyme_width N is refused with a located error naming vector reverse mode and the region (its reverse forks per-thread tapes of one lane), never differentiated wrongly; width 1 there is the plain gradient and compiles.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: openmp
// RUN: %not %clang -fopenmp -O0 -g -c %s -o /dev/null 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %not %clang -fopenmp -O2 -g -c %s -o /dev/null 2>&1 | %FileCheck %s --implicit-check-not=PLEASE --implicit-check-not='internal error'
// RUN: %clang -fopenmp -O2 -c -DWIDTH=1 %s -o /dev/null

#ifndef WIDTH
#define WIDTH 2
#endif
extern int enzyme_width, enzyme_dupv, enzyme_const;
void __enzyme_autodiff(void *, ...);

void square_all(double *x, int n) {
  // CHECK: rev-vector-openmp.c:[[@LINE+1]]:{{[0-9]+}}: error: [zymase:unsupported] {{.*}}vector reverse mode (enzyme_width 2): an OpenMP parallel region is not supported
#pragma omp parallel for
  for (int i = 0; i < n; i++)
    x[i] = x[i] * x[i];
  // CHECK: hint: call __enzyme_autodiff once per direction (without enzyme_width)
}

void grad(double *x, double *dx, int n) {
  __enzyme_autodiff((void *)square_all, enzyme_width, WIDTH, enzyme_dupv,
                    n * sizeof(double), x, dx, enzyme_const, n);
}
