// A request with derivatives that the differentiated function posts but
// leaves for its caller to complete: its adjoint cannot be received, so
// the reverse pass stops the program with a message instead of returning
// a gradient that lacks it.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: mpi
// RUN: %clang -O0 %s %mpi-flags -lm -o %t0
// RUN: %not %mpirun 2 %t0 2>&1 | %FileCheck %s
// RUN: %if mpich %{ %clang -O2 %s %mpich-flags -lm -o %t5 %}
// RUN: %if mpich %{ %not %mpichrun 2 %t5 2>&1 | %FileCheck %s %}
// CHECK: zymase: an MPI request with derivatives was not completed by MPI_Wait
// CHECK-SAME: {{ }}or MPI_Waitall in the differentiated code
#include "mpi_check.h"

static MPI_Request pending;
static double s[2];

double post(double *x, int n) {
  int right = (zy_rank + 1) % zy_size;
  for (int i = 0; i < n; i++)
    s[i] = x[i] * x[i];
  MPI_Isend(s, n, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &pending);
  return x[0];
}

int main(int argc, char **argv) {
  zy_mpi_start(&argc, &argv);
  double x[2] = {1, 2}, dx[2] = {0}, r[2];
  int left = (zy_rank + zy_size - 1) % zy_size;
  __enzyme_autodiff((void *)post, enzyme_dup, x, dx, enzyme_const, 2);
  MPI_Recv(r, 2, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Wait(&pending, MPI_STATUS_IGNORE);
  return zy_mpi_finish();
}
