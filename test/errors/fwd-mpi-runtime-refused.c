// errors/fwd-mpi-runtime-refused.c - forward mode stops on the MPI handles
// the reverse mode stops on when the program runs (mpi-runtime-refused.c):
// a datatype made by MPI_Type_vector (not contiguous) in an active
// MPI_Bcast, and an intercommunicator in an active MPI_Send/MPI_Recv; the
// tangent function stops with a message naming the call, its function and
// its line.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: mpi
// RUN: %clang -O0 -g %s %mpi-flags -DCASE=1 -o %t1 && %not %mpirun 2 %t1 2>&1 | %FileCheck %s --check-prefix=VECTOR
// RUN: %clang -O2 -g %s %mpi-flags -DCASE=1 -o %t2 && %not %mpirun 2 %t2 2>&1 | %FileCheck %s --check-prefix=VECTOR
// RUN: %clang -O0 -g %s %mpi-flags -DCASE=2 -o %t3 && %not %mpirun 2 %t3 2>&1 | %FileCheck %s --check-prefix=INTER
// RUN: %clang -O2 -g %s %mpi-flags -DCASE=2 -o %t4 && %not %mpirun 2 %t4 2>&1 | %FileCheck %s --check-prefix=INTER
// RUN: %if mpich %{ %clang -O2 -g %s %mpich-flags -DCASE=1 -o %t5 && %not %mpichrun 2 %t5 2>&1 | %FileCheck %s --check-prefix=VECTOR %}
// RUN: %if mpich %{ %clang -O0 -g %s %mpich-flags -DCASE=2 -o %t6 && %not %mpichrun 2 %t6 2>&1 | %FileCheck %s --check-prefix=INTER %}
#include <mpi.h>
#include <stdio.h>

double __enzyme_fwddiff(void *, ...);

static MPI_Datatype strided;
static MPI_Comm inter;
static int color;

double f(double *x, int n) {
#if CASE == 1
  // VECTOR: zymase: 'MPI_Bcast' in 'f' ({{.*}}fwd-mpi-runtime-refused.c:[[@LINE+1]]): the datatype (argument 3) is not MPI_DOUBLE nor a contiguous datatype of it (MPI_Type_contiguous); other derived datatypes are not differentiated
  MPI_Bcast(x, 1, strided, 0, MPI_COMM_WORLD);
#else
  // INTER: zymase: 'MPI_{{Send|Recv}}' in 'f' ({{.*}}fwd-mpi-runtime-refused.c:[[@LINE+1]]): the communicator is an intercommunicator; communication with derivatives is differentiated on intracommunicators only
  if (color == 0) MPI_Send(x, n, MPI_DOUBLE, 0, 3, inter); else MPI_Recv(x, n, MPI_DOUBLE, 0, 3, inter, MPI_STATUS_IGNORE);
#endif
  return x[0] * x[1];
}

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &strided);
  MPI_Type_commit(&strided);
  MPI_Comm half;
  color = rank % 2;
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 9, &inter);
  double x[4] = {1, 2, 3, 4}, dx[4] = {1, 0, 0, 0};
  double t = __enzyme_fwddiff((void *)f, x, dx, 2);
  printf("not reached: %g\n", t);
  MPI_Finalize();
  return 0;
}
