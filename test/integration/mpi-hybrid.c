// A hybrid program: OpenMP threads inside each MPI rank.  The heat
// equation of mpi-heat.c with its stencil in an OpenMP parallel loop and
// the halo exchange (MPI_Sendrecv) outside it; 2 threads per rank, 2 and 3
// ranks; the gradient is checked against collective central finite
// differences.  (Lit feature `openmp`: on LLVM 19 the test suite supplies
// the other installed LLVM's omp.h.)
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: mpi, openmp
// RUN: %clang -O0 -fopenmp %s %mpi-flags -lm -o %t0
// RUN: env OMP_NUM_THREADS=2 %mpirun 2 %t0
// RUN: %clang -O2 -fopenmp %s %mpi-flags -lm -o %t2
// RUN: env OMP_NUM_THREADS=2 %mpirun 3 %t2
#include "mpi_check.h"

enum { N = 64, STEPS = 10 };

double hybrid(double *x, int n) {
  double u[N + 2], v[N + 2];
  int left = zy_rank ? zy_rank - 1 : MPI_PROC_NULL;
  int right = zy_rank + 1 < zy_size ? zy_rank + 1 : MPI_PROC_NULL;
  u[0] = u[n + 1] = 0;
  for (int i = 0; i < n; i++)
    u[i + 1] = x[i];
  for (int t = 0; t < STEPS; t++) {
    MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 0, &u[0], 1, MPI_DOUBLE, left, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[n + 1], 1, MPI_DOUBLE, right,
                 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
#pragma omp parallel for
    for (int i = 1; i <= n; i++)
      v[i] = u[i] + 0.3 * (u[i - 1] - 2 * u[i] + u[i + 1]) -
             0.05 * u[i] * u[i] * u[i];
    for (int i = 1; i <= n; i++)
      u[i] = v[i];
  }
  double l = 0, all;
  for (int i = 1; i <= n; i++)
    l += u[i] * u[i];
  MPI_Allreduce(&l, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

int main(int argc, char **argv) {
  zy_mpi_start(&argc, &argv);
  double x[N], dx[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.5 + 0.4 * sin(i + N * zy_rank);
  ZY_CHECK_GRAD("hybrid", hybrid, x, N, dx);
  return zy_mpi_finish();
}
