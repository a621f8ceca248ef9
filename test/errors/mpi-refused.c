// errors/mpi-refused.c - MPI calls Zymase does not differentiate are
// refused with a located error naming the call: one-sided MPI_Put, a
// reduction with a user-defined op, a derived datatype made by
// MPI_Type_vector, a run-time datatype on integers,
// floats sent as MPI_BYTE, MPI_IN_PLACE chosen at run time, an MPI call
// inside an OpenMP parallel region, value-index pairs outside
// MINLOC/MAXLOC, intercommunicators made in the differentiated code, and
// MPI_Comm_free there when its reverse communicates (before, the reverse
// used the freed communicator: a crash).
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: mpi
// RUN: %not %clang -c -O0 -g %s %mpi-flags -DCASE=1 -o %t.o 2>&1 | %FileCheck %s --check-prefix=PUT --implicit-check-not=PLEASE
// RUN: %not %clang -c -O2 -g %s %mpi-flags -DCASE=1 -o %t.o 2>&1 | %FileCheck %s --check-prefix=PUT --implicit-check-not=PLEASE
// RUN: %not %clang -c -O0 -g %s %mpi-flags -DCASE=2 -o %t.o 2>&1 | %FileCheck %s --check-prefix=OP --implicit-check-not=PLEASE
// RUN: %not %clang -c -O2 -g %s %mpi-flags -DCASE=3 -o %t.o 2>&1 | %FileCheck %s --check-prefix=TYPE --implicit-check-not=PLEASE
// RUN: %not %clang -c -O0 -g %s %mpi-flags -DCASE=3 -o %t.o 2>&1 | %FileCheck %s --check-prefix=TYPE --implicit-check-not=PLEASE
// RUN: %not %clang -c -O2 -g %s %mpi-flags -DCASE=8 -o %t.o 2>&1 | %FileCheck %s --check-prefix=VTYPE --implicit-check-not=PLEASE
// RUN: %not %clang -c -O0 -g %s %mpi-flags -DCASE=8 -o %t.o 2>&1 | %FileCheck %s --check-prefix=VTYPE --implicit-check-not=PLEASE
// RUN: %not %clang -c -O0 -g %s %mpi-flags -DCASE=9 -o %t.o 2>&1 | %FileCheck %s --check-prefix=INTER --implicit-check-not=PLEASE
// RUN: %not %clang -c -O2 -g %s %mpi-flags -DCASE=9 -o %t.o 2>&1 | %FileCheck %s --check-prefix=INTER --implicit-check-not=PLEASE
// RUN: %if mpich %{ %not %clang -c -O2 -g %s %mpich-flags -DCASE=3 -o %t.o 2>&1 | %FileCheck %s --check-prefix=TYPE --implicit-check-not=PLEASE %}
// RUN: %if mpich %{ %not %clang -c -O0 -g %s %mpich-flags -DCASE=8 -o %t.o 2>&1 | %FileCheck %s --check-prefix=VTYPE --implicit-check-not=PLEASE %}
// RUN: %if mpich %{ %not %clang -c -O2 -g %s %mpich-flags -DCASE=9 -o %t.o 2>&1 | %FileCheck %s --check-prefix=INTER --implicit-check-not=PLEASE %}
// RUN: %not %clang -c -O0 -g %s %mpi-flags -DCASE=10 -o %t.o 2>&1 | %FileCheck %s --check-prefix=FREE --implicit-check-not=PLEASE
// RUN: %not %clang -c -O2 -g %s %mpi-flags -DCASE=10 -o %t.o 2>&1 | %FileCheck %s --check-prefix=FREE --implicit-check-not=PLEASE
// RUN: %if mpich %{ %not %clang -c -O2 -g %s %mpich-flags -DCASE=10 -o %t.o 2>&1 | %FileCheck %s --check-prefix=FREE --implicit-check-not=PLEASE %}
// RUN: %not %clang -c -O0 -g %s %mpi-flags -DCASE=4 -o %t.o 2>&1 | %FileCheck %s --check-prefix=BYTE --implicit-check-not=PLEASE
// RUN: %not %clang -c -O2 -g %s %mpi-flags -DCASE=5 -o %t.o 2>&1 | %FileCheck %s --check-prefix=INPLACE --implicit-check-not=PLEASE
// RUN: %not %clang -c -O2 -g %s %mpi-flags -DCASE=7 -o %t.o 2>&1 | %FileCheck %s --check-prefix=PAIR --implicit-check-not=PLEASE
// RUN: %if llvm22 %{ %not %clang -c -O2 -g -fopenmp %s %mpi-flags -DCASE=6 -o %t.o 2>&1 | %FileCheck %s --check-prefix=OMP --implicit-check-not=PLEASE %}
// RUN: %if mpich %{ %not %clang -c -O2 -g %s %mpich-flags -DCASE=1 -o %t.o 2>&1 | %FileCheck %s --check-prefix=PUT --implicit-check-not=PLEASE %}
// RUN: %if mpich %{ %not %clang -c -O0 -g %s %mpich-flags -DCASE=2 -o %t.o 2>&1 | %FileCheck %s --check-prefix=OP --implicit-check-not=PLEASE %}
#include <mpi.h>

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
MPI_Win win;
MPI_Op myop;
MPI_Datatype pair;

double f(double *x, int n) {
  double y[4];
#if CASE == 1
  // PUT: mpi-refused.c:[[@LINE+2]]:3: error: [zymase:unsupported] cannot differentiate 'f': the MPI call 'MPI_Put' is not differentiated
  // PUT: hint: move the call out of the differentiated code
  MPI_Put(x, n, MPI_DOUBLE, 1, 0, n, MPI_DOUBLE, win);
  y[0] = x[0];
#elif CASE == 2
  // OP: mpi-refused.c:[[@LINE+1]]:3: error: [zymase:unsupported] cannot differentiate 'f': the reduction op of 'MPI_Allreduce' is not differentiated: only MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_MINLOC and MPI_MAXLOC are supported
  MPI_Allreduce(x, y, n, MPI_DOUBLE, myop, MPI_COMM_WORLD);
#elif CASE == 3
  MPI_Datatype strided;
  // TYPE: mpi-refused.c:[[@LINE+2]]:3: error: [zymase:unsupported] cannot differentiate 'f': the MPI call 'MPI_Type_vector' is not differentiated
  // TYPE: hint: move the call out of the differentiated code
  MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &strided);
  MPI_Allreduce(x, y, 1, strided, MPI_SUM, MPI_COMM_WORLD);
#elif CASE == 8
  int iv[2] = {n, n};
  // VTYPE: mpi-refused.c:[[@LINE+1]]:3: error: [zymase:unsupported] cannot differentiate 'f': the datatype of 'MPI_Bcast' (argument 3) is not a predefined MPI datatype known when compiling; derived and run-time datatypes are differentiated only as contiguous datatypes on buffers of doubles or floats
  MPI_Bcast(iv, 1, pair, 0, MPI_COMM_WORLD);
  y[0] = x[0] * iv[1];
#elif CASE == 9
  MPI_Comm inter;
  // INTER: mpi-refused.c:[[@LINE+2]]:3: error: [zymase:unsupported] cannot differentiate 'f': the MPI call 'MPI_Intercomm_create' is not differentiated: intercommunicators are refused
  // INTER: hint: make the intercommunicator outside the differentiated code
  MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, 1, 5, &inter);
  MPI_Send(x, n, MPI_DOUBLE, 0, 0, inter);
  y[0] = x[0];
#elif CASE == 10
  MPI_Comm mine;
  MPI_Comm_dup(MPI_COMM_WORLD, &mine);
  MPI_Allreduce(x, y, 1, MPI_DOUBLE, MPI_SUM, mine);
  // FREE: mpi-refused.c:[[@LINE+2]]:3: error: [zymase:unsupported] cannot differentiate 'f': 'MPI_Comm_free' in a function whose reverse pass communicates: the reverse pass would use the freed communicator
  // FREE: hint: free the communicator after the gradient returns
  MPI_Comm_free(&mine);
#elif CASE == 4
  // BYTE: mpi-refused.c:[[@LINE+1]]:3: error: [zymase:unsupported] cannot differentiate 'f': 'MPI_Bcast' moves floating-point data (argument 3) with an integer or byte datatype
  MPI_Bcast(x, 8 * n, MPI_BYTE, 0, MPI_COMM_WORLD);
  y[0] = x[0];
#elif CASE == 5
  // INPLACE: mpi-refused.c:[[@LINE+1]]:3: error: [zymase:unsupported] cannot differentiate 'f': 'MPI_Allreduce' receives MPI_IN_PLACE or a buffer, chosen at run time
  MPI_Allreduce(n > 2 ? MPI_IN_PLACE : x, y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
#elif CASE == 7
  struct { double v; int i; } p = {x[0], 1}, q;
  // PAIR: mpi-refused.c:[[@LINE+1]]:3: error: [zymase:unsupported] cannot differentiate 'f': 'MPI_Send': value-index pairs are differentiated in MPI_MINLOC/MPI_MAXLOC reductions only
  MPI_Send(&p, 1, MPI_DOUBLE_INT, 1, 0, MPI_COMM_WORLD);
  q = p;
  y[0] = q.v;
#elif CASE == 6
#pragma omp parallel
  {
    // OMP: mpi-refused.c:[[@LINE+1]]:5: error: [zymase:unsupported] cannot differentiate {{.*}}: MPI calls inside an OpenMP parallel region are not differentiated yet (a call to 'MPI_Allreduce')
    MPI_Allreduce(x, y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
#endif
  return y[0] * y[0];
}

void g(double *x, double *dx, int n) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
}
