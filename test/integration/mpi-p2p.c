// Gradients through blocking point-to-point MPI calls: a ring of
// MPI_Send/MPI_Recv (and MPI_Ssend), MPI_Sendrecv with MPI_PROC_NULL at the
// ends of a line, MPI_Recv from MPI_ANY_SOURCE with MPI_STATUS_IGNORE,
// MPI_Sendrecv_replace, integer messages and MPI_Barrier on the way; each
// rank checks its slice of the gradient against collective central finite
// differences (and a closed form for the ring), on 2 and 3 ranks.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// REQUIRES: mpi
// RUN: %clang -O0 %s %mpi-flags -lm -o %t0 && %mpirun 2 %t0 && %mpirun 3 %t0
// RUN: %clang -O2 %s %mpi-flags -lm -o %t2 && %mpirun 2 %t2 && %mpirun 3 %t2
// RUN: %if mpich %{ %clang -O0 %s %mpich-flags -lm -o %t4 && %mpichrun 2 %t4 %}
// RUN: %if mpich %{ %clang -O2 %s %mpich-flags -lm -o %t5 && %mpichrun 3 %t5 %}
#include "mpi_check.h"

enum { N = 3 };

static double global(double local) {
  double all;
  MPI_Allreduce(&local, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

/* Each rank sends sin(x) to the right and multiplies what it receives
 * from the left by x. */
double ring(double *x, int n) {
  double s[N], y[N];
  int right = (zy_rank + 1) % zy_size, left = (zy_rank + zy_size - 1) % zy_size;
  for (int i = 0; i < n; i++)
    s[i] = sin(x[i]);
  if (zy_rank == 0) {
    MPI_Send(s, n, MPI_DOUBLE, right, 7, MPI_COMM_WORLD);
    MPI_Recv(y, n, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(y, n, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Ssend(s, n, MPI_DOUBLE, right, 7, MPI_COMM_WORLD);
  }
  double l = 0;
  for (int i = 0; i < n; i++)
    l += y[i] * x[i] * (i + 1);
  return global(l);
}

/* A line: u[0] and u[n+1] are halos from the neighbours (MPI_PROC_NULL
 * at the ends keeps the active boundary values there); an integer
 * message and a barrier on the way. */
double line(double *x, int n) {
  double u[N + 2];
  int left = zy_rank ? zy_rank - 1 : MPI_PROC_NULL;
  int right = zy_rank + 1 < zy_size ? zy_rank + 1 : MPI_PROC_NULL;
  for (int i = 0; i < n; i++)
    u[i + 1] = x[i] * x[i];
  u[0] = 2 * x[0];
  u[n + 1] = 3 * x[n - 1];
  int cnt = n, got = 0;
  MPI_Sendrecv(&cnt, 1, MPI_INT, right, 1, &got, 1, MPI_INT, left, 1,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 2, &u[0], 1, MPI_DOUBLE, left, 2,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Status st;
  MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 3, &u[n + 1], 1, MPI_DOUBLE, right,
               3, MPI_COMM_WORLD, &st);
  double l = 0;
  for (int i = 1; i <= n; i++)
    l += u[i] * (u[i - 1] + 2 * u[i + 1]);
  return global(l * (got + 1));
}

/* Rank 0 collects a value from every other rank, in whatever order they
 * arrive (MPI_ANY_SOURCE, the status ignored). */
double any_source(double *x, int n) {
  double v = x[0] * x[1] + x[2], l = 0;
  if (zy_rank == 0) {
    l = v * v;
    for (int k = 1; k < zy_size; k++) {
      double w;
      MPI_Recv(&w, 1, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
      l += w * w * w;
    }
  } else {
    MPI_Send(&v, 1, MPI_DOUBLE, 0, 10 + zy_rank, MPI_COMM_WORLD);
  }
  return global(l);
}

/* A periodic shift of the whole array by Sendrecv_replace, twice. */
double shift(double *x, int n) {
  double u[N];
  for (int i = 0; i < n; i++)
    u[i] = exp(0.3 * x[i]);
  int right = (zy_rank + 1) % zy_size, left = (zy_rank + zy_size - 1) % zy_size;
  MPI_Sendrecv_replace(u, n, MPI_DOUBLE, right, 4, left, 4, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE);
  double l = 0;
  for (int i = 0; i < n; i++)
    l += u[i] * x[i];
  MPI_Sendrecv_replace(u, n, MPI_DOUBLE, left, 5, right, 5, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE);
  for (int i = 0; i < n; i++)
    l += u[i] * u[i];
  return global(l);
}

int main(int argc, char **argv) {
  zy_mpi_start(&argc, &argv);
  double x[N], dx[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.3 + 0.2 * i + 0.1 * zy_rank;
  ZY_CHECK_GRAD("ring", ring, x, N, dx);
  /* d/dx_i: y_i (i+1) + cos(x_i) x_right,i (i+1), times the ranks that
   * return the loss */
  int right = (zy_rank + 1) % zy_size, left = (zy_rank + zy_size - 1) % zy_size;
  for (int i = 0; i < N; i++) {
    double xl = 0.3 + 0.2 * i + 0.1 * left, xr = 0.3 + 0.2 * i + 0.1 * right;
    zy_close("ring closed form", i, dx[i],
             zy_size * (i + 1) * (sin(xl) + cos(x[i]) * xr), 1e-12);
  }
  ZY_CHECK_GRAD("line", line, x, N, dx);
  ZY_CHECK_GRAD("any_source", any_source, x, N, dx);
  ZY_CHECK_GRAD("shift", shift, x, N, dx);
  return zy_mpi_finish();
}
